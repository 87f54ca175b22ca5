/**
 * Webhook destinations through real HTTP (docs/decisions.md "Webhooks",
 * Destinations): every non-public address form refused at create (400 with
 * the reason) and at delivery (an attempt that fails without connecting),
 * public addresses accepted. The check does not depend on the store: the
 * embedded one only.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { expectError, newThread, runJob } from "../../support/helpers.js"
import { admin, asUser, createProject, pglite, useGateway } from "../../support/layers.js"
import { type Receiver, startReceiver } from "../../support/webhook-receiver.js"

/** Refused at create: [url, what it is]. */
const REFUSED: ReadonlyArray<readonly [string, string]> = [
  ["http://127.0.0.1:9/x", "loopback"],
  ["http://localhost:9/x", "a name resolving to loopback"],
  ["http://10.1.2.3/x", "private 10/8"],
  ["http://172.16.0.1/x", "private 172.16/12"],
  ["http://192.168.1.1/x", "private 192.168/16"],
  ["http://169.254.169.254/latest/meta-data", "link-local (cloud metadata)"],
  ["http://0.0.0.0/x", "this network"],
  ["http://100.64.0.1/x", "carrier-grade NAT"],
  ["http://192.0.0.1/x", "IETF protocol assignments"],
  ["http://198.18.0.1/x", "benchmarking"],
  ["http://224.0.0.1/x", "multicast"],
  ["http://240.0.0.1/x", "reserved"],
  ["http://255.255.255.255/x", "broadcast"],
  ["http://192.0.2.1/x", "documentation"],
  ["http://[::]/x", "unspecified"],
  ["http://[::1]:9/x", "IPv6 loopback"],
  ["http://[fe80::1]/x", "IPv6 link-local"],
  ["http://[fd00::1]/x", "unique local"],
  ["http://[fec0::1]/x", "site-local (deprecated)"],
  ["http://[ff02::1]/x", "IPv6 multicast"],
  ["http://[2001:db8::1]/x", "IPv6 documentation"],
  ["http://[::ffff:127.0.0.1]/x", "IPv4-mapped loopback"],
  ["http://[::ffff:a9fe:a9fe]/x", "IPv4-mapped metadata (hex)"],
  ["http://[::ffff:8.8.8.8]/x", "IPv4-mapped, even of a public address"],
  ["http://[::127.0.0.1]/x", "IPv4-compatible (::/96)"],
  ["http://[::169.254.169.254]/x", "IPv4-compatible metadata"],
  ["http://[::ffff:0:127.0.0.1]/x", "IPv4-translated (::ffff:0:0:0/96)"],
  ["http://[64:ff9b::7f00:1]/x", "NAT64 well-known prefix (64:ff9b::/96)"],
  ["http://[64:ff9b:1::a9fe:a9fe]/x", "local-use NAT64 (64:ff9b:1::/48) of 169.254.169.254"],
  ["http://[64:ff9b:1:ffff::1]/x", "local-use NAT64, another embedding"],
  ["http://[2002:7f00:1::1]/x", "6to4 of 127.0.0.1"],
  ["http://[2002:a9fe:a9fe::1]/x", "6to4 of 169.254.169.254"],
  ["http://[2001::1]/x", "Teredo"],
  ["http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/x", "Teredo (RFC 4380's example)"],
  ["http://[100::1]/x", "discard-only (100::/64)"],
  ["http://[1::1]/x", "outside global unicast (2000::/3)"]
]

/** Accepted (address literals: no DNS needed). */
const ACCEPTED = [
  "https://93.184.215.14/hooks",
  "https://8.8.8.8/hooks",
  "http://1.1.1.1:8080/hooks",
  "https://[2606:2800:21f:cb07:6820:80da:af6b:8b2c]/hooks",
  "https://[2001:4860:4860::8888]/hooks",
  "https://[2a00:1450:4001:82b::200e]/hooks"
]

/** Refused at delivery: the subscription's URL changed to these after create (as a name that now resolves there). */
const REFUSED_AT_DELIVERY = [
  "[::ffff:127.0.0.1]",
  "[::127.0.0.1]",
  "[::ffff:0:127.0.0.1]",
  "[64:ff9b::7f00:1]",
  "[64:ff9b:1::a9fe:a9fe]",
  "[2002:7f00:1::1]",
  "[2001::7f00:1]",
  "[100::1]",
  "[fec0::1]",
  "127.0.0.1",
  // A name: checked on the addresses the lookup answers, before connecting.
  "localhost"
]

describe("webhook destinations: every non-public address form (embedded)", () => {
  const handle = useGateway(pglite, { JOBS_POLL_SECONDS: "0" })
  let receiver: Receiver
  beforeAll(async () => {
    receiver = await startReceiver()
  })
  afterAll(async () => {
    await receiver.close()
  })

  it.each(REFUSED)("refuses %s at create (%s)", async (url) => {
    const project = await createProject(handle.current)
    const reply = await admin(handle.current)("POST", `/projects/${project.project_id}/webhooks`, {
      url,
      events: ["run.created"]
    })
    expectError(reply, 400, "url")
    expect(reply.body.message, url).toMatch(/^url refused: .*private, loopback or link-local/)
    const listed = await admin(handle.current)("GET", `/projects/${project.project_id}/webhooks`)
    expect(listed.body.webhooks).toEqual([])
  })

  it("accepts public addresses", async () => {
    const project = await createProject(handle.current)
    for (const url of ACCEPTED) {
      const reply = await admin(handle.current)("POST", `/projects/${project.project_id}/webhooks`, {
        url,
        events: ["alert.fired"]
      })
      expect(reply.status, `${url}: ${reply.text}`).toBe(201)
    }
  })

  it("refuses them at delivery: the attempt fails without connecting", async () => {
    const project = await createProject(handle.current)
    const port = new URL(receiver.url("/")).port
    const hooks: Array<{ id: string; host: string }> = []
    for (const host of REFUSED_AT_DELIVERY) {
      const created = await admin(handle.current)("POST", `/projects/${project.project_id}/webhooks`, {
        url: "https://93.184.215.14/hooks",
        events: ["thread.created"]
      })
      expect(created.status, created.text).toBe(201)
      await handle.current.sql("UPDATE webhooks SET url = $1 WHERE project_id = $2 AND id = $3", [
        `http://${host}:${port}/sneaky`,
        project.project_id,
        created.body.id
      ])
      hooks.push({ id: created.body.id as string, host })
    }
    await newThread(asUser(handle.current, project.api_key, "user_1", "ws_1"))
    const run = await runJob(handle.current, "webhooks")
    expect(run.details.retried).toBe(REFUSED_AT_DELIVERY.length)
    expect(receiver.received).toHaveLength(0)
    for (const hook of hooks) {
      const log = await admin(handle.current)("GET", `/projects/${project.project_id}/webhooks/${hook.id}/deliveries`)
      const attempt = log.body.deliveries[0].attempt_log[0]
      expect(attempt.status_code, hook.host).toBeNull()
      expect(attempt.error, hook.host).toMatch(/private, loopback or link-local/)
    }
  })
})
