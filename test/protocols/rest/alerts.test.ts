/**
 * Alert rules through real HTTP on each store: create, list, update,
 * delete and history; each limit just inside and just outside; the plan's
 * count; tenancy; what each metric measures (filters and test users
 * included); a firing delivered to a local receiver, signed with the rule's
 * secret (and to a project subscription to alert.fired); the cooldown, with
 * the gateway's test clock; two passes at once firing once; retries of a
 * failing receiver. The `alerts` and `webhooks` jobs are run on demand.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { expectError, newMessage, newThread, runJob as runJobOnce } from "../../support/helpers.js"
import { admin, asUser, createProject, stores, useGateway } from "../../support/layers.js"
import { type Receiver, startReceiver, verifySignature } from "../../support/webhook-receiver.js"

const MINUTE = 60_000

interface Rule {
  rule_id: string
  name: string
  metric: string
  threshold: number
  filters: Record<string, string>
  last_value: number | null
  last_checked_at: string | null
  last_fired_at: string | null
}

interface Firing {
  firing_id: string
  value: number
  threshold: number
  window_minutes: number
  window_start: string
  window_end: string
  fired_at: string
  delivery: {
    id: string
    status: string
    attempts: number
    attempt_log: Array<{ status_code: number | null }>
  } | null
}

describe.each(stores)("alert rules ($name)", (storeUnderTest) => {
  const handle = useGateway(storeUnderTest, { JOBS_POLL_SECONDS: "0", WEBHOOK_ALLOW_PRIVATE: "true" })
  let receiver: Receiver
  beforeAll(async () => {
    receiver = await startReceiver()
  })
  afterAll(async () => {
    await receiver.close()
  })
  const adminCall = (method: string, route: string, body?: unknown) => admin(handle.current)(method, route, body)
  const runJob = (job: "alerts" | "webhooks") => runJobOnce(handle.current, job)
  /** A rule that never fires (no project here has a million runs), to count and to check limits with. */
  const quiet = (overrides: Record<string, unknown> = {}) => ({
    name: "quiet",
    metric: "runs",
    comparison: "gt",
    threshold: 1_000_000,
    window_minutes: 60,
    cooldown_minutes: 60,
    webhook_url: receiver.url("/quiet"),
    ...overrides
  })
  const create = async (projectId: string, body: unknown) => {
    const reply = await adminCall("POST", `/projects/${projectId}/alert-rules`, body)
    expect(reply.status, reply.text).toBe(201)
    return reply.body as Rule & { secret: string }
  }
  const rules = async (projectId: string) => {
    const reply = await adminCall("GET", `/projects/${projectId}/alert-rules`)
    expect(reply.status, reply.text).toBe(200)
    return reply.body.alert_rules as Array<Rule>
  }
  const history = async (projectId: string, ruleId: string) => {
    const reply = await adminCall("GET", `/projects/${projectId}/alert-rules/${ruleId}/history`)
    expect(reply.status, reply.text).toBe(200)
    return reply.body.history as Array<Firing>
  }
  const setPlan = async (projectId: string, plan: string) => {
    const reply = await adminCall("PUT", `/projects/${projectId}/plan`, { plan })
    expect(reply.status, reply.text).toBe(200)
  }

  it("create (secret once), list, update, delete; settings count; unknown project, rule or another project's rule: 404", async () => {
    const project = await createProject(handle.current, "crud")
    const other = await createProject(handle.current, "other")
    const body = quiet({ name: "errors", filters: { model_id: "m1", tag: "beta", environment: "prod" } })
    const created = await create(project.project_id, body)
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/)
    expect(created).toMatchObject({
      rule_id: expect.stringMatching(/^alr_[0-9A-Z]{26}$/),
      name: "errors",
      metric: "runs",
      comparison: "gt",
      threshold: 1_000_000,
      window_minutes: 60,
      cooldown_minutes: 60,
      filters: { model_id: "m1", tag: "beta", environment: "prod" },
      webhook_url: receiver.url("/quiet"),
      last_checked_at: null,
      last_value: null,
      last_fired_at: null
    })
    const listed = await adminCall("GET", `/projects/${project.project_id}/alert-rules`)
    expect(listed.body.alert_rules).toHaveLength(1)
    expect(listed.body.alert_rules[0]).toEqual(
      Object.fromEntries(Object.entries(created).filter(([k]) => k !== "secret"))
    )
    expect(listed.text).not.toContain(created.secret.slice(6))
    expect((await adminCall("GET", `/projects/${project.project_id}/settings`)).body.alert_rules).toBe(1)

    const path = `/projects/${project.project_id}/alert-rules/${created.rule_id}`
    const updated = await adminCall("PUT", path, quiet({ name: "renamed", metric: "events:error_shown", threshold: 3 }))
    expect(updated.status, updated.text).toBe(200)
    expect(updated.body).toMatchObject({ rule_id: created.rule_id, name: "renamed", metric: "events:error_shown" })
    expect(updated.body.filters).toEqual({})
    expect(updated.body).not.toHaveProperty("secret")
    expect((await rules(project.project_id))[0]).toMatchObject({ name: "renamed", threshold: 3 })
    expect(await history(project.project_id, created.rule_id)).toEqual([])

    // Another project's rule, an unknown rule, an unknown project.
    const otherPath = `/projects/${other.project_id}/alert-rules/${created.rule_id}`
    expectError(await adminCall("PUT", otherPath, quiet()), 404)
    expectError(await adminCall("DELETE", otherPath), 404)
    expectError(await adminCall("GET", `${otherPath}/history`), 404)
    expect(await rules(other.project_id)).toEqual([])
    expectError(await adminCall("PUT", `/projects/${project.project_id}/alert-rules/alr_nope`, quiet()), 404)
    expectError(await adminCall("GET", `/projects/${project.project_id}/alert-rules/alr_nope/history`), 404)
    expectError(await adminCall("POST", "/projects/proj_nope/alert-rules", quiet()), 404)
    expectError(await adminCall("GET", "/projects/proj_nope/alert-rules"), 404)

    expect((await adminCall("DELETE", path)).status).toBe(204)
    expectError(await adminCall("DELETE", path), 404)
    expect(await rules(project.project_id)).toEqual([])
    expect((await adminCall("GET", `/projects/${project.project_id}/settings`)).body.alert_rules).toBe(0)
  })

  it("limits: window 5..1440, cooldown 5..10080, the metric, the comparison, the threshold, the filters", async () => {
    const project = await createProject(handle.current, "limits")
    await setPlan(project.project_id, "pro")
    const route = `/projects/${project.project_id}/alert-rules`
    // Just inside.
    const inside = [
      quiet({ window_minutes: 5, cooldown_minutes: 5 }),
      quiet({ window_minutes: 1_440, cooldown_minutes: 10_080 }),
      quiet({ metric: "events:error_shown", comparison: "lt", threshold: 0 }),
      quiet({ metric: "run_error_rate", comparison: "lte", threshold: 1 })
    ]
    for (const body of inside) await create(project.project_id, body)
    // Just outside, and other refused values: 400 naming the field.
    const outside: ReadonlyArray<[Record<string, unknown>, string, RegExp]> = [
      [quiet({ window_minutes: 4 }), "window_minutes", /from 5 to 1440/],
      [quiet({ window_minutes: 1_441 }), "window_minutes", /from 5 to 1440/],
      [quiet({ window_minutes: 30.5 }), "window_minutes", /whole number/],
      [quiet({ cooldown_minutes: 4 }), "cooldown_minutes", /from 5 to 10080/],
      [quiet({ cooldown_minutes: 10_081 }), "cooldown_minutes", /from 5 to 10080/],
      [quiet({ metric: "latency" }), "metric", /metric must be one of/],
      [quiet({ metric: "events:no_such_kind" }), "metric", /metric must be one of/],
      [quiet({ comparison: "eq" }), "comparison", /gt, gte, lt, lte/],
      [quiet({ threshold: -1 }), "threshold", /0 or more/],
      [quiet({ metric: "run_error_rate", threshold: 1.01 }), "threshold", /0 to 1/],
      [quiet({ metric: "negative_feedback", filters: { model_id: "m1" } }), "filters", /run metrics only/],
      [quiet({ filters: { model: "m1" } }), "filters", /./],
      [quiet({ name: "" }), "name", /empty/],
      [quiet({ webhook_url: "ftp://example.com/x" }), "webhook_url", /http/],
      [quiet({ extra: 1 }), "extra", /./]
    ]
    for (const [body, path, message] of outside) {
      const reply = await adminCall("POST", route, body)
      expectError(reply, 400, path)
      expect(reply.body.message, JSON.stringify(body)).toMatch(message)
    }
    const { window_minutes: _, ...missing } = quiet()
    expectError(await adminCall("POST", route, missing), 400, "window_minutes")
    // A PUT follows the same rules.
    const [first] = await rules(project.project_id)
    expectError(await adminCall("PUT", `${route}/${first?.rule_id}`, quiet({ cooldown_minutes: 10_081 })), 400)
    expect(await rules(project.project_id)).toHaveLength(inside.length)
  })

  it("rules by plan: hobby 1, pro 20, startup 100; past it 409", async () => {
    const project = await createProject(handle.current, "plans")
    const route = `/projects/${project.project_id}/alert-rules`
    await create(project.project_id, quiet())
    const hobby = await adminCall("POST", route, quiet())
    expectError(hobby, 409)
    expect(hobby.body.message).toMatch(/hobby plan allows 1 alert rule/)
    await setPlan(project.project_id, "pro")
    for (let i = 2; i <= 20; i++) await create(project.project_id, quiet({ name: `r${i}` }))
    expectError(await adminCall("POST", route, quiet()), 409)
    await setPlan(project.project_id, "startup")
    // 79 more as rows (fast), the 100th through the API.
    await handle.current.sql(
      `INSERT INTO alert_rules (project_id, id, name, metric, comparison, threshold, window_minutes, cooldown_minutes,
         webhook_url, secret, created_at, updated_at)
       SELECT $1, 'alr_fixture' || n, 'fixture', 'runs', 'gt', 1000000, 60, 60, $2, 'whsec_x', now(), now()
       FROM generate_series(1, 79) AS n`,
      [project.project_id, receiver.url("/quiet")]
    )
    await create(project.project_id, quiet({ name: "the 100th" }))
    // Creates at once cannot overshoot: the project row is locked while one counts.
    const over = await Promise.all([adminCall("POST", route, quiet()), adminCall("POST", route, quiet())])
    for (const reply of over) expectError(reply, 409)
    expect((await adminCall("GET", `/projects/${project.project_id}/settings`)).body.alert_rules).toBe(100)
    // Not measured by every pass of the later tests.
    await handle.current.sql("DELETE FROM alert_rules WHERE project_id = $1", [project.project_id])
  })

  it("measures each metric over its window: filters on runs, test users left out, no data for a rate without runs", async () => {
    const project = await createProject(handle.current, "metrics")
    await setPlan(project.project_id, "pro")
    expect((await adminCall("PUT", `/projects/${project.project_id}/test-users`, { prefixes: ["qa_"] })).status).toBe(
      200
    )
    const alice = asUser(handle.current, project.api_key, "alice", "ws_1")
    const bob = asUser(handle.current, project.api_key, "bob", "ws_2")
    const tester = asUser(handle.current, project.api_key, "qa_1", "ws_3")
    const aliceThread = await newThread(alice)
    const bobThread = await newThread(bob)
    const testerThread = await newThread(tester)
    const report = async (client: typeof alice, threadId: string, run: Record<string, unknown>) => {
      const reply = await client("POST", "/runs", { body: { thread_id: threadId, status: "completed", ...run } })
      expect(reply.status, reply.text).toBe(201)
    }
    // Durations 100..1000 by 100 (p95, interpolated: 955); 3 errors of 10; tokens 10 in, 20 out each.
    for (let i = 1; i <= 10; i++) {
      await report(i % 2 === 0 ? alice : bob, i % 2 === 0 ? aliceThread : bobThread, {
        status: i <= 3 ? "error" : "completed",
        model_id: i <= 6 ? "m1" : "m2",
        tags: i <= 4 ? ["beta"] : [],
        environment: i === 1 ? "staging" : "prod",
        duration_ms: i * 100,
        input_tokens: 10,
        output_tokens: 20
      })
    }
    // A test user's run, error and event: left out everywhere.
    await report(tester, testerThread, { status: "error", model_id: "m1", input_tokens: 1_000 })
    const message = await newMessage(alice, aliceThread)
    const negative = await alice("POST", `/threads/${aliceThread}/messages/${message}/feedback`, {
      body: { type: "negative" }
    })
    expect([200, 201]).toContain(negative.status)
    const events = (kinds: ReadonlyArray<string>) => ({ events: kinds.map((kind) => ({ kind })) })
    expect(
      (await bob("POST", "/events", { body: events(["error_shown", "error_shown", "message_sent"]) })).status
    ).toBe(202)
    expect((await tester("POST", "/events", { body: events(["error_shown"]) })).status).toBe(202)

    const measured: ReadonlyArray<[Record<string, unknown>, number | null]> = [
      [{ metric: "runs" }, 10],
      [{ metric: "run_errors" }, 3],
      [{ metric: "run_error_rate" }, 0.3],
      [{ metric: "input_tokens" }, 100],
      [{ metric: "output_tokens" }, 200],
      [{ metric: "p95_duration_ms" }, 955],
      [{ metric: "negative_feedback" }, 1],
      [{ metric: "events:error_shown" }, 2],
      [{ metric: "events:message_sent" }, 1],
      [{ metric: "events:run_stopped" }, 0],
      [{ metric: "active_users" }, 2],
      [{ metric: "runs", filters: { model_id: "m1" } }, 6],
      [{ metric: "run_errors", filters: { tag: "beta" } }, 3],
      [{ metric: "runs", filters: { environment: "staging" } }, 1],
      [{ metric: "runs", filters: { model_id: "m1", tag: "beta", environment: "prod" } }, 3],
      [{ metric: "run_error_rate", filters: { model_id: "none" } }, null],
      [{ metric: "p95_duration_ms", filters: { model_id: "none" } }, null]
    ]
    const made: Array<Rule> = []
    for (const [body] of measured)
      made.push(await create(project.project_id, quiet({ comparison: "lt", threshold: 0, ...body })))
    const run = await runJob("alerts")
    expect(run.details.checked).toBeGreaterThanOrEqual(measured.length)
    const byId = new Map((await rules(project.project_id)).map((rule) => [rule.rule_id, rule]))
    measured.forEach(([body, expected], index) => {
      const rule = byId.get(made[index]?.rule_id ?? "")
      expect(rule?.last_checked_at, JSON.stringify(body)).not.toBeNull()
      if (expected === null) expect(rule?.last_value, JSON.stringify(body)).toBeNull()
      else expect(rule?.last_value, JSON.stringify(body)).toBeCloseTo(expected, 6)
    })
    // The window ends now: two hours on, every figure is zero.
    handle.current.clock.advance(120 * MINUTE)
    try {
      await runJob("alerts")
      for (const rule of await rules(project.project_id)) expect([0, null]).toContain(rule.last_value)
    } finally {
      handle.current.clock.advance(-120 * MINUTE)
    }
  })

  it("fires once, signed with the rule's secret (and to alert.fired subscribers); the cooldown suppresses; past it, again", async () => {
    const project = await createProject(handle.current, "fires")
    const subscription = await adminCall("POST", `/projects/${project.project_id}/webhooks`, {
      url: receiver.url("/subscribed"),
      events: ["alert.fired"]
    })
    expect(subscription.status, subscription.text).toBe(201)
    const rule = await create(project.project_id, {
      name: "m1 errors",
      metric: "run_errors",
      comparison: "gte",
      threshold: 2,
      window_minutes: 60,
      cooldown_minutes: 10,
      filters: { model_id: "m1" },
      webhook_url: receiver.url("/fired")
    })
    const client = asUser(handle.current, project.api_key, "user_1", "ws_1")
    const threadId = await newThread(client)
    const report = (status: string, model: string) =>
      client("POST", "/runs", { body: { thread_id: threadId, status, model_id: model } })
    // One m1 error and one of another model: under the threshold.
    for (const [status, model] of [
      ["error", "m1"],
      ["error", "m2"],
      ["completed", "m1"]
    ] as const) {
      expect((await report(status, model)).status).toBe(201)
    }
    await runJob("alerts")
    expect(await history(project.project_id, rule.rule_id)).toEqual([])
    expect((await report("error", "m1")).status).toBe(201)

    const jobs = await adminCall("GET", "/jobs")
    expect(jobs.body.jobs).toContainEqual(expect.objectContaining({ name: "alerts", interval_seconds: 60 }))
    const before = handle.current.clock.unsafeCurrentTimeMillis()
    await runJob("alerts")
    const [firing] = await history(project.project_id, rule.rule_id)
    // Written with its delivery, in one transaction, before anything is sent (the outbox).
    expect(firing).toMatchObject({
      value: 2,
      threshold: 2,
      window_minutes: 60,
      delivery: { status: "pending", attempts: 0 }
    })
    expect(new Date(firing?.window_end ?? 0).getTime() - new Date(firing?.window_start ?? 0).getTime()).toBe(
      60 * MINUTE
    )
    expect(new Date(firing?.fired_at ?? 0).getTime()).toBeGreaterThanOrEqual(before)
    expect(receiver.at("/fired")).toHaveLength(0)

    await runJob("webhooks")
    const [got] = receiver.at("/fired")
    expect(receiver.at("/fired")).toHaveLength(1)
    if (got === undefined) throw new Error("no delivery")
    expect(await verifySignature(rule.secret, got)).toBe(true)
    expect(await verifySignature(subscription.body.secret, got)).toBe(false)
    expect(got.headers["webhook-id"]).toBe(firing?.delivery?.id)
    const payload = JSON.parse(got.body)
    expect(payload).toMatchObject({
      type: "alert.fired",
      data: {
        firing_id: firing?.firing_id,
        rule_id: rule.rule_id,
        name: "m1 errors",
        metric: "run_errors",
        comparison: "gte",
        threshold: 2,
        value: 2,
        window_minutes: 60,
        filters: { model_id: "m1" },
        fired_at: firing?.fired_at
      }
    })
    // The subscription to alert.fired got the same data, signed with its own secret.
    const [forwarded] = receiver.at("/subscribed")
    expect(receiver.at("/subscribed")).toHaveLength(1)
    if (forwarded === undefined) throw new Error("no subscription delivery")
    expect(await verifySignature(subscription.body.secret, forwarded)).toBe(true)
    expect(JSON.parse(forwarded.body)).toMatchObject({ type: "alert.fired", data: payload.data })
    // The webhook's delivery log shows its own delivery only.
    const log = await adminCall("GET", `/projects/${project.project_id}/webhooks/${subscription.body.id}/deliveries`)
    expect(log.body.deliveries.map((delivery: { event_type: string }) => delivery.event_type)).toEqual(["alert.fired"])
    expect((await history(project.project_id, rule.rule_id))[0]?.delivery).toMatchObject({
      status: "delivered",
      attempts: 1,
      attempt_log: [{ status_code: 204 }]
    })

    // Within the cooldown (10 minutes): still over the threshold, no second firing.
    handle.current.clock.advance(6 * MINUTE)
    await runJob("alerts")
    await runJob("webhooks")
    expect(await history(project.project_id, rule.rule_id)).toHaveLength(1)
    expect(receiver.at("/fired")).toHaveLength(1)
    // Past it: once more, however many passes run at once.
    handle.current.clock.advance(5 * MINUTE)
    const passes = await Promise.all([runJob("alerts"), runJob("alerts"), runJob("alerts")])
    // No other rule of this gateway can fire (they are quiet): one firing across the three passes.
    expect(passes.reduce((sum, pass) => sum + (pass.details.fired ?? 0), 0)).toBe(1)
    await runJob("webhooks")
    const fired = await history(project.project_id, rule.rule_id)
    expect(fired).toHaveLength(2)
    expect(fired[0]?.firing_id > (fired[1]?.firing_id ?? "")).toBe(true)
    expect(receiver.at("/fired")).toHaveLength(2)
    expect(receiver.at("/subscribed")).toHaveLength(2)
    const listed = (await rules(project.project_id))[0]
    expect(listed?.last_fired_at).toBe(fired[0]?.fired_at)
    expect(listed?.last_value).toBe(2)
  })

  it("a failing receiver gets retries with backoff, shown in the history; deleting the rule drops its deliveries", async () => {
    const project = await createProject(handle.current, "flaky")
    const rule = await create(project.project_id, {
      name: "any run",
      metric: "runs",
      comparison: "gte",
      threshold: 1,
      // A day: earlier tests moved the gateway's clock on.
      window_minutes: 1_440,
      cooldown_minutes: 60,
      webhook_url: receiver.url("/flaky")
    })
    const client = asUser(handle.current, project.api_key, "user_1", "ws_1")
    expect(
      (await client("POST", "/runs", { body: { thread_id: await newThread(client), status: "completed" } })).status
    ).toBe(201)
    receiver.answer("/flaky", 500)
    await runJob("alerts")
    expect((await runJob("webhooks")).details.retried).toBeGreaterThanOrEqual(1)
    let [firing] = await history(project.project_id, rule.rule_id)
    expect(firing?.delivery).toMatchObject({ status: "pending", attempts: 1, attempt_log: [{ status_code: 500 }] })

    // Not due before its backoff (30 s); due after it.
    await runJob("webhooks")
    expect(receiver.at("/flaky")).toHaveLength(1)
    handle.current.clock.advance(31_000)
    receiver.answer("/flaky", 200)
    await runJob("webhooks")
    ;[firing] = await history(project.project_id, rule.rule_id)
    expect(firing?.delivery).toMatchObject({ status: "delivered", attempts: 2 })
    expect(firing?.delivery?.attempt_log.map((attempt) => attempt.status_code)).toEqual([500, 200])
    const sent = receiver.at("/flaky")
    expect(sent).toHaveLength(2)
    expect(new Set(sent.map((entry) => entry.headers["webhook-id"]))).toEqual(new Set([firing?.delivery?.id]))
    for (const entry of sent) expect(await verifySignature(rule.secret, entry)).toBe(true)

    expect((await adminCall("DELETE", `/projects/${project.project_id}/alert-rules/${rule.rule_id}`)).status).toBe(204)
    const left = await handle.current.sql("SELECT count(*)::int AS n FROM webhook_deliveries WHERE project_id = $1", [
      project.project_id
    ])
    expect(left).toEqual([{ n: 0 }])
  })
})
