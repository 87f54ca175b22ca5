/**
 * The dashboard's operating views over real HTTP on both stores
 * (docs/dashboard.md "Operating views" and "Roles"): the admin API's routes
 * behind the session cookie. An admin session does everything the admin
 * token does, each change seen afterwards through the admin API itself; a
 * project key's session reads its own project's settings and gets 403 from
 * every other route of the group, 404 for another project; changing calls
 * need the same-site header and Origin; no cookie is 401.
 */
import * as HttpApi from "@effect/platform/HttpApi"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Api } from "../../../schema/Api.js"
import { asProject, expectError, newMessage, newThread } from "../../support/helpers.js"
import {
  ADMIN_TOKEN,
  admin,
  asUser,
  call,
  createProject,
  type Gateway,
  type Reply,
  stores,
  useGateway
} from "../../support/layers.js"
import { type Receiver, startReceiver } from "../../support/webhook-receiver.js"
import { SAME_SITE, signIn } from "./http-support.js"

/** Signs in with `token`: the session cookie (`svc_session=...`). */
const signedIn = async (gateway: Gateway, token: string) => {
  const { reply, cookie } = await signIn(gateway, token)
  expect(reply.status, reply.text).toBe(204)
  return cookie
}

type Session = (method: string, path: string, body?: unknown, headers?: Record<string, string>) => Promise<Reply>

/** Calls `/v1/dashboard{path}` with the session's cookie, from the gateway's own page unless `headers` say otherwise. */
const as =
  (gateway: Gateway, cookie: string): Session =>
  (method, path, body, headers = SAME_SITE(gateway)) =>
    call(gateway.baseUrl, method, `/v1/dashboard${path}`, {
      ...(body === undefined ? {} : { body }),
      headers: { cookie, ...headers }
    })

// Sample bodies that decode, so that a refusal is the role's and not a 400.
const ALERT_RULE = {
  name: "many errors",
  metric: "run_errors",
  comparison: "gte",
  threshold: 10,
  window_minutes: 15,
  cooldown_minutes: 60,
  webhook_url: "http://127.0.0.1:9/alerts"
}
const EVALUATOR = { name: "refusal", target: "run", categories: [{ name: "refused", keywords: ["I cannot help"] }] }
const ISSUER = {
  issuer: "https://auth.example.com/",
  jwks_url: "https://auth.example.com/.well-known/jwks.json",
  audience: "travel-assistant",
  user_claim: "sub",
  workspace_claim: "org_id"
}

/** The body each route of the group with a payload is called with. */
const SAMPLE_BODIES: Readonly<Record<string, unknown>> = {
  setRetention: { days: 30 },
  setTopicCeiling: { value: 20 },
  setPlan: { plan: "pro" },
  setOrigins: { origins: ["https://app.example.com"] },
  setIssuer: ISSUER,
  setTestUsers: { prefixes: ["test_"] },
  createApiKey: { name: "ci" },
  createAlertRule: ALERT_RULE,
  updateAlertRule: ALERT_RULE,
  createEvaluator: EVALUATOR,
  updateEvaluator: EVALUATOR,
  createWebhook: { url: "http://127.0.0.1:9/hooks", events: ["run.created"] }
}

/** What a project key's session may do in the group: read its own project's settings. */
const KEY_READS = ["getSettings", "getOrigins", "getIssuer", "getTestUsers", "listSdkClients"]

interface Route {
  readonly name: string
  readonly method: string
  /** The path, `:project_id` and the other parameters still in it. */
  readonly path: string
  readonly hasPayload: boolean
}

/** Every route of the group `dashboardOperate` of the gateway's Api. */
const operateRoutes = (): ReadonlyArray<Route> => {
  const routes: Array<Route> = []
  HttpApi.reflect(Api, {
    predicate: ({ group }) => group.identifier === "dashboardOperate",
    onGroup: () => {},
    onEndpoint: ({ endpoint, payloads }) => {
      routes.push({ name: endpoint.name, method: endpoint.method, path: endpoint.path, hasPayload: payloads.size > 0 })
    }
  })
  return routes
}

/** The route's path for `projectId`: the job is `webhooks`, any other id made up. */
const pathOf = (route: Route, projectId: string) =>
  route.path.replace(/:([a-z_]+)/g, (_, name: string) =>
    name === "project_id" ? projectId : name === "job" ? "webhooks" : `x_${name}`
  )

const hasProject = (route: Route) => route.path.includes(":project_id")

/** Calls each route of the group that `which` picks with `headers` (and its sample body, if any): the replies. */
const callEvery = async (
  gateway: Gateway,
  projectId: string,
  headers: Record<string, string>,
  which: (route: Route) => boolean = () => true
): Promise<Array<{ route: Route; label: string; reply: Reply }>> => {
  const out: Array<{ route: Route; label: string; reply: Reply }> = []
  for (const route of operateRoutes().filter(which)) {
    const path = pathOf(route, projectId)
    const body = SAMPLE_BODIES[route.name]
    const reply = await call(gateway.baseUrl, route.method, path, {
      ...(body === undefined ? {} : { body }),
      headers
    })
    out.push({ route, label: `${route.name}: ${route.method} ${path}`, reply })
  }
  return out
}

describe("the dashboardOperate group", () => {
  it("has a sample body for each route with a payload, and no other", () => {
    const routes = operateRoutes()
    // Settings 12 (5 reads), keys 3, alert rules 5, evaluators 4, webhooks 5, erasure 3, jobs 2.
    expect(routes).toHaveLength(34)
    expect(routes.every((route) => route.path.startsWith("/v1/dashboard/"))).toBe(true)
    const withPayload = routes.filter((route) => route.hasPayload).map((route) => route.name)
    expect(withPayload.sort()).toEqual(Object.keys(SAMPLE_BODIES).sort())
    const names = routes.map((route) => route.name)
    expect(names).toEqual(expect.arrayContaining([...KEY_READS, "previewErasure", "eraseUser", "listJobs", "runJob"]))
  })
})

describe.each(stores)("dashboard operating views ($name)", (storeUnderTest) => {
  const handle = useGateway(storeUnderTest, {
    API_KEY_CACHE_MS: "0",
    TRUSTED_PROXIES: "127.0.0.1",
    JOBS_POLL_SECONDS: "0",
    WEBHOOK_ALLOW_PRIVATE: "true"
  })
  let gateway: Gateway
  let receiver: Receiver
  /** The admin's session. */
  let operator: Session
  const adminCall = (method: string, path: string, body?: unknown) => admin(gateway)(method, path, body)
  const adminSettings = async (projectId: string) => {
    const reply = await adminCall("GET", `/projects/${projectId}/settings`)
    expect(reply.status, reply.text).toBe(200)
    return reply.body
  }

  /** How many times the admin API says the job has run. */
  const jobRuns = async (name: string): Promise<number> => {
    const jobs = (await adminCall("GET", "/jobs")).body.jobs as Array<{ name: string; runs: number }>
    return jobs.find((job) => job.name === name)?.runs ?? -1
  }

  beforeAll(async () => {
    gateway = handle.current
    receiver = await startReceiver()
    operator = as(gateway, await signedIn(gateway, ADMIN_TOKEN))
  })
  afterAll(async () => {
    await receiver.close()
  })

  it("an admin session reads a project's settings as the admin API answers them", async () => {
    const project = await createProject(gateway, "Reads")
    const base = `/projects/${project.project_id}`
    for (const path of ["/settings", "/origins", "/test-users", "/sdk-clients"]) {
      const mine = await operator("GET", `${base}${path}`)
      expect(mine.status, `${path} ${mine.text}`).toBe(200)
      expect(mine.body, path).toEqual((await adminCall("GET", `${base}${path}`)).body)
    }
    // No issuer yet: 404 from both.
    expectError(await operator("GET", `${base}/issuer`), 404)
    expectError(await adminCall("GET", `${base}/issuer`), 404)
  })

  it("an admin session changes settings; the admin API sees each change", async () => {
    const project = await createProject(gateway, "Settings")
    const base = `/projects/${project.project_id}`

    const retention = await operator("PUT", `${base}/retention`, { days: 30 })
    expect(retention.status, retention.text).toBe(200)
    expect(retention.body.days).toBe(30)
    expect((await adminSettings(project.project_id)).retention.days).toBe(30)

    const origins = await operator("PUT", `${base}/origins`, { origins: ["https://app.example.com"] })
    expect(origins.status, origins.text).toBe(200)
    expect((await adminSettings(project.project_id)).origins).toEqual(["https://app.example.com"])
    await operator("PUT", `${base}/origins`, { origins: ["https://b.example.com", "http://localhost:3000"] })
    // Replaced, not added to.
    expect((await adminSettings(project.project_id)).origins.sort()).toEqual([
      "http://localhost:3000",
      "https://b.example.com"
    ])

    const testUsers = await operator("PUT", `${base}/test-users`, { prefixes: ["test_", "qa-"] })
    expect(testUsers.status, testUsers.text).toBe(200)
    expect((await adminSettings(project.project_id)).test_user_prefixes.sort()).toEqual(["qa-", "test_"])

    const ceiling = await operator("PUT", `${base}/topic-ceiling`, { value: 20 })
    expect(ceiling.status, ceiling.text).toBe(200)
    expect(ceiling.body).toEqual({ value: 20 })
    expect((await adminSettings(project.project_id)).topic_ceiling).toBe(20)
    // Out of range: the schema's 400, nothing changed.
    expectError(await operator("PUT", `${base}/topic-ceiling`, { value: 61 }), 400, "value")
    expect((await adminSettings(project.project_id)).topic_ceiling).toBe(20)

    const plan = await operator("PUT", `${base}/plan`, { plan: "pro" })
    expect(plan.status, plan.text).toBe(200)
    expect((await adminSettings(project.project_id)).plan).toBe("pro")

    const issuer = await operator("PUT", `${base}/issuer`, ISSUER)
    expect(issuer.status, issuer.text).toBe(200)
    expect((await adminCall("GET", `${base}/issuer`)).body).toEqual(ISSUER)
    expect((await operator("DELETE", `${base}/issuer`)).status).toBe(204)
    expectError(await adminCall("GET", `${base}/issuer`), 404)
    expect((await adminSettings(project.project_id)).issuer).toBeNull()

    // The dashboard's settings read is the admin API's, after all that.
    expect((await operator("GET", `${base}/settings`)).body).toEqual(await adminSettings(project.project_id))
  })

  it("an admin session creates an API key and revokes it; the key and its dashboard session then answer 401", async () => {
    const project = await createProject(gateway, "Keys")
    const base = `/projects/${project.project_id}`
    const created = await operator("POST", `${base}/api-keys`, { name: "ci", expires_in_days: 30 })
    expect(created.status, created.text).toBe(201)
    const { key_id: keyId, api_key: apiKey } = created.body as { key_id: string; api_key: string }
    expect((await asProject(gateway, apiKey)("/threads")).status).toBe(200)
    const listed = await adminCall("GET", `${base}/api-keys`)
    const entry = listed.body.api_keys.find((key: { key_id: string }) => key.key_id === keyId)
    expect(entry).toMatchObject({ name: "ci", revoked_at: null, expires_at: expect.any(String) })
    expect((await operator("GET", `${base}/api-keys`)).body).toEqual(listed.body)

    const keySession = as(gateway, await signedIn(gateway, apiKey))
    expect((await keySession("GET", "/session")).status).toBe(200)

    expect((await operator("DELETE", `${base}/api-keys/${keyId}`)).status).toBe(204)
    const after = await adminCall("GET", `${base}/api-keys`)
    expect(after.body.api_keys.find((key: { key_id: string }) => key.key_id === keyId).revoked_at).toEqual(
      expect.any(String)
    )
    expect((await asProject(gateway, apiKey)("/threads")).status).toBe(401)
    expect((await keySession("GET", "/session")).status).toBe(401)
    expect((await keySession("GET", `${base}/settings`)).status).toBe(401)
    // The project's first key is untouched.
    expect((await asProject(gateway, project.api_key)("/threads")).status).toBe(200)
  })

  it("an admin session creates, updates, reads the history of and deletes an alert rule", async () => {
    const project = await createProject(gateway, "Alerts")
    const base = `/projects/${project.project_id}`
    const created = await operator("POST", `${base}/alert-rules`, ALERT_RULE)
    expect(created.status, created.text).toBe(201)
    expect(created.body.secret).toMatch(/^whsec_/)
    const ruleId = created.body.rule_id as string
    const listed = await adminCall("GET", `${base}/alert-rules`)
    expect(listed.body.alert_rules).toEqual([expect.objectContaining({ rule_id: ruleId, threshold: 10 })])
    // The secret is shown once, at creation.
    expect(listed.text).not.toContain(created.body.secret)

    const updated = await operator("PUT", `${base}/alert-rules/${ruleId}`, { ...ALERT_RULE, threshold: 5 })
    expect(updated.status, updated.text).toBe(200)
    expect((await adminCall("GET", `${base}/alert-rules`)).body.alert_rules).toEqual([
      expect.objectContaining({ rule_id: ruleId, threshold: 5 })
    ])
    expect((await operator("GET", `${base}/alert-rules`)).body).toEqual(
      (await adminCall("GET", `${base}/alert-rules`)).body
    )

    const history = await operator("GET", `${base}/alert-rules/${ruleId}/history`)
    expect(history.status, history.text).toBe(200)
    expect(history.body).toEqual({ history: [] })

    expect((await operator("DELETE", `${base}/alert-rules/${ruleId}`)).status).toBe(204)
    expect((await adminCall("GET", `${base}/alert-rules`)).body.alert_rules).toEqual([])
    expectError(await operator("GET", `${base}/alert-rules/${ruleId}/history`), 404)
  })

  it("an admin session is refused an unsafe evaluator pattern (400, with why), creates a valid one and deletes it", async () => {
    const project = await createProject(gateway, "Evaluators")
    const base = `/projects/${project.project_id}`
    const unsafe = await operator("POST", `${base}/evaluators`, {
      ...EVALUATOR,
      categories: [{ name: "echo", pattern: "(a|b)\\1" }]
    })
    expectError(unsafe, 400, "categories.0.pattern")
    expect(unsafe.body.message).toContain('category "echo"')
    expect(unsafe.body.message).toMatch(/backreference/)
    expect((await adminCall("GET", `${base}/evaluators`)).body.evaluators).toEqual([])

    const created = await operator("POST", `${base}/evaluators`, {
      ...EVALUATOR,
      categories: [{ name: "apology", pattern: "\\b(sorry|apologi[sz]e)\\b" }]
    })
    expect(created.status, created.text).toBe(201)
    const evaluatorId = created.body.evaluator_id as string
    expect((await adminCall("GET", `${base}/evaluators`)).body.evaluators).toEqual([
      expect.objectContaining({ evaluator_id: evaluatorId, name: "refusal" })
    ])

    const updated = await operator("PUT", `${base}/evaluators/${evaluatorId}`, { ...EVALUATOR, sampling_rate: 0.5 })
    expect(updated.status, updated.text).toBe(200)
    expect((await adminCall("GET", `${base}/evaluators`)).body.evaluators[0].sampling_rate).toBe(0.5)
    expect((await operator("GET", `${base}/evaluators`)).body).toEqual(
      (await adminCall("GET", `${base}/evaluators`)).body
    )

    expect((await operator("DELETE", `${base}/evaluators/${evaluatorId}`)).status).toBe(204)
    expect((await adminCall("GET", `${base}/evaluators`)).body.evaluators).toEqual([])
  })

  it("an admin session subscribes a webhook, runs the webhooks job, filters the deliveries and redelivers", async () => {
    const project = await createProject(gateway, "Webhooks")
    const base = `/projects/${project.project_id}`
    const url = receiver.url("/operate")
    const created = await operator("POST", `${base}/webhooks`, { url, events: ["message.created"] })
    expect(created.status, created.text).toBe(201)
    const hookId = created.body.id as string
    expect((await adminCall("GET", `${base}/webhooks`)).body.webhooks).toEqual([
      expect.objectContaining({ id: hookId, url, events: ["message.created"] })
    ])

    const client = asUser(gateway, project.api_key, "user_1", "ws_1")
    const messageId = await newMessage(client, await newThread(client))

    const run = await operator("POST", "/jobs/webhooks/run")
    expect(run.status, run.text).toBe(200)
    expect(run.body).toMatchObject({ job: "webhooks", error: null })
    expect(run.body.details.delivered).toBe(1)
    const first = await receivedAt(receiver, "/operate", 1)
    expect(JSON.parse(first[0]?.body ?? "{}").data.id).toBe(messageId)

    const deliveriesPath = `${base}/webhooks/${hookId}/deliveries`
    const all = await operator("GET", deliveriesPath)
    expect(all.status, all.text).toBe(200)
    expect(all.body.deliveries).toHaveLength(1)
    const delivery = all.body.deliveries[0] as { id: string }
    expect(delivery).toMatchObject({ event_type: "message.created", status: "delivered", attempts: 1 })
    expect(all.body).toEqual((await adminCall("GET", deliveriesPath)).body)
    for (const who of [operator, (method: string, path: string) => adminCall(method, path)]) {
      const delivered = await who("GET", `${deliveriesPath}?status=delivered`)
      expect(delivered.status, delivered.text).toBe(200)
      expect(delivered.body.deliveries.map((d: { id: string }) => d.id)).toEqual([delivery.id])
      for (const status of ["failed", "pending"]) {
        const none = await who("GET", `${deliveriesPath}?status=${status}`)
        expect(none.status, none.text).toBe(200)
        expect(none.body.deliveries, status).toEqual([])
      }
    }
    expectError(await operator("GET", `${deliveriesPath}?status=lost`), 400)

    const again = await operator("POST", `${deliveriesPath}/${delivery.id}/redeliver`)
    expect(again.status, again.text).toBe(200)
    expect(again.body).toMatchObject({ id: delivery.id, status: "pending" })
    expect(
      (await adminCall("GET", `${deliveriesPath}?status=pending`)).body.deliveries.map((d: { id: string }) => d.id)
    ).toEqual([delivery.id])
    expect((await operator("POST", "/jobs/webhooks/run")).body.details.delivered).toBe(1)
    const both = await receivedAt(receiver, "/operate", 2)
    expect(both[1]?.headers["webhook-id"]).toBe(delivery.id)
    expect((await adminCall("GET", deliveriesPath)).body.deliveries[0]).toMatchObject({
      id: delivery.id,
      status: "delivered",
      attempts: 2
    })

    expect((await operator("DELETE", `${base}/webhooks/${hookId}`)).status).toBe(204)
    expect((await adminCall("GET", `${base}/webhooks`)).body.webhooks).toEqual([])
  })

  it("an admin session lists the jobs as the admin API does and runs one", async () => {
    const listed = await operator("GET", "/jobs")
    expect(listed.status, listed.text).toBe(200)
    const names = (jobs: Array<{ name: string }>) => jobs.map((job) => job.name).sort()
    expect(names(listed.body.jobs)).toEqual(names((await adminCall("GET", "/jobs")).body.jobs))
    expect(names(listed.body.jobs)).toContain("retention")

    const before = await jobRuns("retention")
    const run = await operator("POST", "/jobs/retention/run")
    expect(run.status, run.text).toBe(200)
    expect(run.body).toMatchObject({ job: "retention", error: null })
    expect(await jobRuns("retention")).toBe(before + 1)
    expectError(await operator("POST", "/jobs/no-such-job/run"), 404)
  })

  it("an admin session previews an erasure, erases the user with the same counts, and the log says dashboard", async () => {
    const project = await createProject(gateway, "Erasure")
    const base = `/projects/${project.project_id}`
    const erin = asUser(gateway, project.api_key, "erin", "ws_erin")
    const threadId = await newThread(erin, { title: "to forget" })
    const first = await newMessage(erin, threadId)
    await newMessage(erin, threadId, { parent: first })
    const run = await erin("POST", "/runs", { body: { thread_id: threadId, status: "completed", model_id: "m1" } })
    expect(run.status, run.text).toBe(201)
    const score = await erin("POST", "/scores", {
      body: { name: "quality", data_type: "numeric", value: 0.5, run_id: run.body.run_id }
    })
    expect(score.status, score.text).toBe(201)
    const events = await erin("POST", "/events", {
      body: { events: [{ kind: "message_sent", thread_id: threadId }, { kind: "thread_switched" }] }
    })
    expect(events.status, events.text).toBe(202)
    // Someone else's thread stays.
    const frank = asUser(gateway, project.api_key, "frank", "ws_frank")
    const franksThread = await newThread(frank)

    const preview = await operator("GET", `${base}/users/erin/erasure-preview`)
    expect(preview.status, preview.text).toBe(200)
    expect(preview.body).toMatchObject({ threads: 1, messages: 2, runs: 1, scores: 1, events: 2 })
    // A preview deletes nothing, and records nothing.
    expect((await operator("GET", `${base}/users/erin/erasure-preview`)).body).toEqual(preview.body)
    expect((await adminCall("GET", `${base}/erasures`)).body.erasures).toEqual([])

    const erased = await operator("DELETE", `${base}/users/erin`)
    expect(erased.status, erased.text).toBe(200)
    expect(erased.body.deleted).toEqual(preview.body)
    expect(erased.body.requested_by).toBe("dashboard")

    const log = await adminCall("GET", `${base}/erasures`)
    expect(log.body.erasures).toEqual([erased.body])
    expect((await operator("GET", `${base}/erasures`)).body).toEqual(log.body)

    const afterwards = await operator("GET", `${base}/users/erin/erasure-preview`)
    expect(afterwards.status, afterwards.text).toBe(200)
    expect(Object.values(afterwards.body).every((count) => count === 0)).toBe(true)
    expect(Object.keys(afterwards.body).sort()).toEqual(Object.keys(preview.body).sort())
    const threads = await asProject(gateway, project.api_key)("/threads")
    expect(threads.body.threads.map((thread: { id: string }) => thread.id)).toEqual([franksThread])
  })

  it("an admin session gets 404 for an unknown project on every project route", async () => {
    const headers = { cookie: await signedIn(gateway, ADMIN_TOKEN), ...SAME_SITE(gateway) }
    const replies = await callEvery(gateway, "prj_unknown", headers, hasProject)
    expect(replies).toHaveLength(32)
    for (const { label, reply } of replies) {
      expect(reply.status, `${label}: ${reply.text}`).toBe(404)
      expectError(reply, 404)
    }
  })

  it("a project key's session reads its own settings and gets 403 from every other route; another project is 404", async () => {
    const mine = await createProject(gateway, "Key's own")
    const other = await createProject(gateway, "Someone else's")
    // An issuer, so that all five reads have something to answer.
    expect((await adminCall("PUT", `/projects/${mine.project_id}/issuer`, ISSUER)).status).toBe(200)
    const headers = { cookie: await signedIn(gateway, mine.api_key), ...SAME_SITE(gateway) }
    const before = {
      mine: await adminSettings(mine.project_id),
      other: await adminSettings(other.project_id),
      webhookRuns: await jobRuns("webhooks")
    }

    for (const { route, label, reply } of await callEvery(gateway, mine.project_id, headers)) {
      if (KEY_READS.includes(route.name)) {
        expect(reply.status, `${label}: ${reply.text}`).toBe(200)
        // The admin API's answer for the same path.
        const adminPath = pathOf(route, mine.project_id).replace("/v1/dashboard", "")
        expect(reply.body, label).toEqual((await adminCall("GET", adminPath)).body)
      } else {
        expect(reply.status, `${label}: ${reply.text}`).toBe(403)
        expectError(reply, 403)
      }
    }
    // Nothing changed: the settings (issuer included), the keys, no erasure, no job run.
    expect(await adminSettings(mine.project_id)).toEqual(before.mine)
    expect((await adminCall("GET", `/projects/${mine.project_id}/api-keys`)).body.api_keys).toHaveLength(1)
    expect((await adminCall("GET", `/projects/${mine.project_id}/erasures`)).body.erasures).toEqual([])
    expect(await jobRuns("webhooks")).toBe(before.webhookRuns)

    for (const { route, label, reply } of await callEvery(gateway, other.project_id, headers)) {
      expect(reply.status, `${label}: ${reply.text}`).toBe(hasProject(route) ? 404 : 403)
      expect(reply.text, label).not.toContain("Someone else's")
    }
    expect(await adminSettings(other.project_id)).toEqual(before.other)
    expect(await jobRuns("webhooks")).toBe(before.webhookRuns)
  })

  it("refuses an admin session's change without the header or from another origin (CSRF), and nothing changes", async () => {
    const project = await createProject(gateway, "CSRF")
    const path = `/projects/${project.project_id}/retention`
    const withoutHeader = await operator("PUT", path, { days: 30 }, { origin: gateway.baseUrl })
    expectError(withoutHeader, 403)
    const crossSite = await operator(
      "PUT",
      path,
      { days: 30 },
      { origin: "https://evil.example", "x-svc-dashboard": "1" }
    )
    expectError(crossSite, 403)
    expectError(await operator("PUT", path, { days: 30 }, { "x-svc-dashboard": "1" }), 403)
    expect((await adminSettings(project.project_id)).retention.days).toBeNull()
    // The same call from the page itself goes through.
    expect((await operator("PUT", path, { days: 30 })).status).toBe(200)
    expect((await adminSettings(project.project_id)).retention.days).toBe(30)
  })

  it("answers 401 on every route of the group without a session cookie, the admin token as a bearer included", async () => {
    const project = await createProject(gateway, "No cookie")
    for (const headers of [SAME_SITE(gateway), { ...SAME_SITE(gateway), authorization: `Bearer ${ADMIN_TOKEN}` }]) {
      for (const { label, reply } of await callEvery(gateway, project.project_id, headers)) {
        expect(reply.status, `${label}: ${reply.text}`).toBe(401)
      }
    }
    expect((await adminSettings(project.project_id)).retention.days).toBeNull()
  })
})

/** The requests `receiver` got at `path`, once there are `count` of them (within 5 s). */
const receivedAt = async (receiver: Receiver, path: string, count: number) => {
  const deadline = Date.now() + 5_000
  while (receiver.at(path).length < count && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  expect(receiver.at(path)).toHaveLength(count)
  return receiver.at(path)
}
