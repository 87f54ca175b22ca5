/**
 * The Effect client is generated from the server's contract: these keep it
 * so. Every group of the gateway's HttpApi that a client calls is in the
 * client's API with the same endpoints, and the query parameters the request
 * types make optional are exactly those the contract defaults.
 */

import { describe, expect, it } from "vitest"
import { Api } from "../../schema/Api.js"
import { ClientApi } from "../../sdk/effect/Api.js"
import { queryDefaults } from "../../sdk/effect/Defaults.js"

/** Groups the client leaves out, and why. */
const LEFT_OUT: Record<string, string> = {
  admin: "the admin plane takes ADMIN_TOKEN, not a client credential",
  settings: "admin plane (ADMIN_TOKEN)",
  erasure: "admin plane (ADMIN_TOKEN)",
  evaluators: "admin plane (ADMIN_TOKEN)",
  webhooks: "admin plane (ADMIN_TOKEN)",
  alerts: "admin plane (ADMIN_TOKEN)",
  sessions: "the anonymous auth mode calls these itself",
  titles: "a streamed text/plain answer: runs.stream wraps it as a Stream",
  dashboardSignIn: "the dashboard's page: its own client over DashboardApi, with a session cookie",
  dashboard: "the dashboard's page: its own client over DashboardApi, with a session cookie",
  dashboardOperate: "the dashboard's page: its own client over DashboardApi, with a session cookie"
}

const endpointsOf = (api: { readonly groups: Record<string, { readonly endpoints: Record<string, unknown> }> }) =>
  Object.fromEntries(Object.entries(api.groups).map(([name, group]) => [name, Object.keys(group.endpoints).sort()]))

describe("the Effect client's API", () => {
  it("has every group of the gateway's API but the ones left out, with the same endpoints", () => {
    const server = endpointsOf(Api)
    const client = endpointsOf(ClientApi)
    const expected = Object.fromEntries(Object.entries(server).filter(([name]) => !(name in LEFT_OUT)))
    expect(client).toEqual(expected)
    for (const name of Object.keys(LEFT_OUT)) expect(server).toHaveProperty(name)
  })

  it("makes optional exactly the query parameters the contract defaults (limit, offset)", () => {
    const defaulted = new Set(queryDefaults().flatMap(([, defaults]) => Object.keys(defaults)))
    expect([...defaulted].sort()).toEqual(["limit", "offset"])
    expect(Object.fromEntries(queryDefaults())).toMatchObject({
      "threads.list": { limit: 20 },
      "messages.list": { limit: 200 },
      "projects.search": { limit: 20, offset: 0 }
    })
  })
})
