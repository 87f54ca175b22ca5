/**
 * Outgoing webhooks through real HTTP on each store: subscriptions, a
 * correctly signed Standard Webhooks delivery of each event type to a local
 * receiver, retries with backoff (the test clock), the delivery log,
 * redelivery, the 24-hour give-up, tenancy, private destinations, and a
 * gateway killed with kill -9 before delivering.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { asProject, expectError, newMessage, newThread, runJob as runJobOnce } from "../../support/helpers.js"
import {
  ADMIN_TOKEN,
  admin,
  asUser,
  call,
  createProject,
  freshPostgresDatabase,
  stores,
  useGateway
} from "../../support/layers.js"
import { spawnGateway } from "../../support/process.js"
import { type Receiver, startReceiver, verifySignature } from "../../support/webhook-receiver.js"
import { exportOf, jsonSpan, postJson, traceIdOf } from "../otlp/otlp.js"

const ALL_EVENTS = ["thread.created", "message.created", "run.created", "score.created", "feedback.created"]
const HOUR = 3_600_000

describe.each(stores)("webhooks ($name)", (storeUnderTest) => {
  const handle = useGateway(storeUnderTest, { JOBS_POLL_SECONDS: "0", WEBHOOK_ALLOW_PRIVATE: "true" })
  let receiver: Receiver
  beforeAll(async () => {
    receiver = await startReceiver()
  })
  afterAll(async () => {
    await receiver.close()
  })
  const adminCall = (method: string, route: string, body?: unknown) => admin(handle.current)(method, route, body)
  const runJob = () => runJobOnce(handle.current, "webhooks")
  const subscribe = async (projectId: string, url: string, events: ReadonlyArray<string>) => {
    const reply = await adminCall("POST", `/projects/${projectId}/webhooks`, { url, events })
    expect(reply.status, reply.text).toBe(201)
    return reply.body as { id: string; secret: string; url: string; events: Array<string> }
  }
  const deliveries = async (projectId: string, webhookId: string) => {
    const reply = await adminCall("GET", `/projects/${projectId}/webhooks/${webhookId}/deliveries`)
    expect(reply.status, reply.text).toBe(200)
    return reply.body.deliveries as Array<{
      id: string
      event_type: string
      status: string
      attempts: number
      attempt_log: Array<{ status_code: number | null; error: string | null }>
      next_attempt_at: string | null
    }>
  }

  it("create, list (no secret), delete; bad input 400, unknown project 404", async () => {
    const project = await createProject(handle.current)
    const created = await subscribe(project.project_id, receiver.url("/crud"), ["message.created"])
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/)
    expect(Buffer.from(created.secret.slice(6), "base64")).toHaveLength(24)
    expect(created.id).toMatch(/^wh_/)
    const list = await adminCall("GET", `/projects/${project.project_id}/webhooks`)
    expect(list.status).toBe(200)
    expect(list.body.webhooks).toEqual([
      { id: created.id, url: receiver.url("/crud"), events: ["message.created"], created_at: expect.any(String) }
    ])
    expect(list.text).not.toContain(created.secret.slice(6))

    const bad: ReadonlyArray<[unknown, string]> = [
      [{ url: "ftp://example.com/x", events: ["run.created"] }, "url"],
      [{ url: "not a url", events: ["run.created"] }, "url"],
      [{ url: "http://user:pw@127.0.0.1/x", events: ["run.created"] }, "url"],
      [{ url: `http://127.0.0.1/${"a".repeat(2_048)}`, events: ["run.created"] }, "url"],
      [{ url: receiver.url("/x"), events: [] }, "events"],
      [{ url: receiver.url("/x"), events: ["run.deleted"] }, "events.0"],
      [{ url: receiver.url("/x"), events: ["run.created", "run.created"] }, "events"]
    ]
    for (const [body, issue] of bad) {
      expectError(await adminCall("POST", `/projects/${project.project_id}/webhooks`, body), 400, issue)
    }
    // Just inside the URL length.
    const longest = `http://127.0.0.1/${"a".repeat(2_048 - "http://127.0.0.1/".length)}`
    expect(longest).toHaveLength(2_048)
    const inside = await subscribe(project.project_id, longest, ["alert.fired"])
    expect((await adminCall("GET", `/projects/${project.project_id}/settings`)).body.webhooks).toBe(2)
    expectError(
      await adminCall("POST", "/projects/proj_nope/webhooks", { url: receiver.url("/x"), events: ["run.created"] }),
      404
    )
    expectError(await adminCall("GET", "/projects/proj_nope/webhooks"), 404)
    expectError(await adminCall("GET", `/projects/${project.project_id}/webhooks/wh_nope/deliveries`), 404)

    expect((await adminCall("DELETE", `/projects/${project.project_id}/webhooks/${inside.id}`)).status).toBe(204)
    expect((await adminCall("DELETE", `/projects/${project.project_id}/webhooks/${created.id}`)).status).toBe(204)
    expectError(await adminCall("DELETE", `/projects/${project.project_id}/webhooks/${created.id}`), 404)
    expect((await adminCall("GET", `/projects/${project.project_id}/webhooks`)).body.webhooks).toEqual([])
  })

  it("20 webhooks per project; the 21st is 409", async () => {
    const project = await createProject(handle.current)
    for (let i = 0; i < 20; i++) await subscribe(project.project_id, receiver.url(`/many/${i}`), ["alert.fired"])
    const over = await adminCall("POST", `/projects/${project.project_id}/webhooks`, {
      url: receiver.url("/many/20"),
      events: ["alert.fired"]
    })
    expectError(over, 409)
  })

  it("each event type arrives once, signed (Standard Webhooks), with its object; another project's never", async () => {
    const mine = await createProject(handle.current, "mine")
    const other = await createProject(handle.current, "other")
    const hook = await subscribe(mine.project_id, receiver.url("/mine"), ALL_EVENTS)
    const otherHook = await subscribe(other.project_id, receiver.url("/other"), ["thread.created"])
    const client = asUser(handle.current, mine.api_key, "user_1", "ws_1")
    const otherClient = asUser(handle.current, other.api_key, "user_1", "ws_1")

    const threadId = await newThread(client, { title: "hello" })
    const messageId = await newMessage(client, threadId, {
      content: { role: "user", content: [{ type: "text", text: "hi" }] }
    })
    const feedback = await client("POST", `/threads/${threadId}/messages/${messageId}/feedback`, {
      body: { type: "negative" }
    })
    expect([200, 201]).toContain(feedback.status)
    const run = await client("POST", "/runs", { body: { thread_id: threadId, status: "completed", model_id: "m1" } })
    expect(run.status, run.text).toBe(201)
    const score = await client("POST", "/scores", {
      body: { name: "quality", data_type: "numeric", value: 0.5, run_id: run.body.run_id }
    })
    expect(score.status, score.text).toBe(201)
    // The other project: a thread (its own subscription), and a message nobody there subscribed to.
    const otherThread = await newThread(otherClient)
    await newMessage(otherClient, otherThread)

    const before = Date.now()
    const result = await runJob()
    expect(result.details.delivered).toBeGreaterThanOrEqual(6)

    const got = receiver.at("/mine")
    expect(got.map((entry) => JSON.parse(entry.body).type).sort()).toEqual([...ALL_EVENTS].sort())
    const byType = new Map(got.map((entry) => [JSON.parse(entry.body).type as string, entry]))
    const ids: Record<string, string> = {
      "thread.created": threadId,
      "message.created": messageId,
      "feedback.created": feedback.body.feedback_id,
      "run.created": run.body.run_id,
      "score.created": score.body.score_id
    }
    for (const [type, entry] of byType) {
      expect(await verifySignature(hook.secret, entry), type).toBe(true)
      // Another secret does not verify it.
      expect(await verifySignature(otherHook.secret, entry)).toBe(false)
      expect(entry.headers["content-type"]).toBe("application/json")
      expect(entry.headers["webhook-id"]).toMatch(/^msg_[0-9A-Z]{26}-1$/)
      const timestamp = Number(entry.headers["webhook-timestamp"])
      expect(Math.abs(timestamp * 1000 - before)).toBeLessThan(60_000)
      const payload = JSON.parse(entry.body)
      expect(Object.keys(payload).sort()).toEqual(["data", "timestamp", "type"])
      expect(new Date(payload.timestamp).toISOString()).toBe(payload.timestamp)
      expect(payload.data.id, type).toBe(ids[type])
      expect(entry.body).not.toContain(other.project_id)
      expect(entry.body).not.toContain(otherThread)
    }
    expect(JSON.parse(byType.get("thread.created")?.body ?? "{}").data).toMatchObject({
      title: "hello",
      workspace_id: "ws_1"
    })
    expect(JSON.parse(byType.get("message.created")?.body ?? "{}").data).toMatchObject({
      thread_id: threadId,
      content: { role: "user", content: [{ type: "text", text: "hi" }] }
    })
    expect(JSON.parse(byType.get("feedback.created")?.body ?? "{}").data).toMatchObject({
      type: "negative",
      message_id: messageId
    })
    expect(JSON.parse(byType.get("run.created")?.body ?? "{}").data).toMatchObject({
      model_id: "m1",
      thread_id: threadId
    })
    expect(JSON.parse(byType.get("score.created")?.body ?? "{}").data).toMatchObject({ name: "quality", value: 0.5 })

    // The other project's subscription got its own thread only.
    const others = receiver.at("/other")
    expect(others.map((entry) => JSON.parse(entry.body).data.id)).toEqual([otherThread])
    expect(await verifySignature(otherHook.secret, others[0] ?? { path: "", headers: {}, body: "" })).toBe(true)

    // The log: each delivered at the first attempt, 204.
    const log = await deliveries(mine.project_id, hook.id)
    expect(log).toHaveLength(5)
    for (const delivery of log) {
      expect(delivery).toMatchObject({ status: "delivered", attempts: 1, next_attempt_at: null })
      expect(delivery.attempt_log.map((attempt) => attempt.status_code)).toEqual([204])
    }
    // Nothing left: a second run delivers nothing again.
    const count = receiver.received.length
    expect((await runJob()).details.delivered).toBe(0)
    expect(receiver.received.length).toBe(count)
    // A replayed thread (upsert finding the same external_id) is no new thread.created.
    const upsert = { last_message_at: new Date().toISOString(), external_id: "ext-1", upsert: true }
    expect((await client("POST", "/threads", { body: upsert })).status).toBe(201)
    expect((await client("POST", "/threads", { body: upsert })).status).toBe(200)
    await runJob()
    expect(receiver.at("/mine").filter((entry) => JSON.parse(entry.body).type === "thread.created")).toHaveLength(2)
  })

  it("a run derived from an exported trace raises run.created once; a re-export none", async () => {
    const project = await createProject(handle.current, "traces")
    const hook = await subscribe(project.project_id, receiver.url("/traces"), ["run.created"])
    const threadId = await newThread(asUser(handle.current, project.api_key, "user_1", "ws_1"))
    const spans = exportOf([
      jsonSpan({ trace: 7, span: 1, name: "invoke_agent", attributes: { "gen_ai.operation.name": "invoke_agent" } }),
      jsonSpan({
        trace: 7,
        span: 2,
        parent: 1,
        name: "chat m1",
        attributes: {
          "gen_ai.operation.name": "chat",
          "gen_ai.request.model": "m1",
          "gen_ai.usage.input_tokens": 10,
          "gen_ai.conversation.id": threadId
        }
      })
    ])
    for (let i = 0; i < 2; i++) {
      const exported = await postJson(handle.current.baseUrl, project.api_key, spans)
      expect(exported.status, exported.text).toBe(200)
    }
    await runJob()
    const got = receiver.at("/traces")
    expect(got).toHaveLength(1)
    const payload = JSON.parse(got[0]?.body ?? "{}")
    expect(payload).toMatchObject({
      type: "run.created",
      data: { thread_id: threadId, model_id: "m1", input_tokens: 10, trace_id: traceIdOf(7) }
    })
    expect(await verifySignature(hook.secret, got[0] ?? { path: "", headers: {}, body: "" })).toBe(true)
    const runs = await asProject(handle.current, project.api_key)("/runs")
    expect(runs.body.runs.map((run: { id: string }) => run.id)).toEqual([payload.data.id])
  })

  it("a backlog of several claims goes in one pass: each delivery sent once, each attempt recorded once", async () => {
    const project = await createProject(handle.current)
    const ok = await subscribe(project.project_id, receiver.url("/bulk-ok"), ["thread.created"])
    const failing = await subscribe(project.project_id, receiver.url("/bulk-fail"), ["thread.created"])
    receiver.answer("/bulk-fail", 500)
    const client = asUser(handle.current, project.api_key, "user_1", "ws_1")
    // 150 threads: 300 deliveries, more than two of the job's claims (128), delivered and retried ones mixed.
    const threads = 150
    await Promise.all(
      Array.from({ length: 10 }, async () => {
        for (let i = 0; i < threads / 10; i++) await newThread(client)
      })
    )

    const result = await runJob()
    expect(result.details.delivered).toBeGreaterThanOrEqual(threads)
    expect(result.details.retried).toBeGreaterThanOrEqual(threads)
    const sentOk = receiver.at("/bulk-ok")
    const sentFailing = receiver.at("/bulk-fail")
    expect(sentOk).toHaveLength(threads)
    expect(sentFailing).toHaveLength(threads)
    expect(new Set(sentOk.map((entry) => entry.headers["webhook-id"])).size).toBe(threads)
    expect(new Set(sentFailing.map((entry) => entry.headers["webhook-id"])).size).toBe(threads)

    // Each attempt is in its own delivery's log, once (the log lists the newest 100).
    const delivered = await deliveries(project.project_id, ok.id)
    expect(delivered).toHaveLength(100)
    for (const delivery of delivered) {
      expect(delivery).toMatchObject({ status: "delivered", attempts: 1, next_attempt_at: null })
      expect(delivery.attempt_log).toMatchObject([{ status_code: 204, error: null }])
    }
    const retried = await deliveries(project.project_id, failing.id)
    for (const delivery of retried) {
      expect(delivery).toMatchObject({ status: "pending", attempts: 1 })
      expect(delivery.attempt_log).toMatchObject([{ status_code: 500, error: "answered 500" }])
      expect(new Date(delivery.next_attempt_at ?? 0).getTime()).toBeGreaterThan(Date.now() + 20_000)
    }
    const ids = new Set(sentOk.map((entry) => entry.headers["webhook-id"]))
    for (const delivery of delivered) expect(ids.has(delivery.id)).toBe(true)

    // Nothing is due now: the next pass sends nothing.
    await runJob()
    expect(receiver.at("/bulk-ok")).toHaveLength(threads)
    expect(receiver.at("/bulk-fail")).toHaveLength(threads)
    // Its retries (due later) would go out in the next tests' passes, which move the clock: gone with their subscription.
    const removed = await adminCall("DELETE", `/projects/${project.project_id}/webhooks/${failing.id}`)
    expect(removed.status, removed.text).toBe(204)
  })

  it("a failing receiver gets retries with backoff (500, then a timeout, then 2xx); the log shows them; redeliver", async () => {
    const project = await createProject(handle.current)
    const hook = await subscribe(project.project_id, receiver.url("/flaky"), ["thread.created"])
    const client = asUser(handle.current, project.api_key, "user_1", "ws_1")
    await newThread(client)

    receiver.answer("/flaky", 500)
    expect((await runJob()).details.retried).toBe(1)
    let [delivery] = await deliveries(project.project_id, hook.id)
    expect(delivery).toMatchObject({ status: "pending", attempts: 1 })
    expect(delivery?.attempt_log[0]).toMatchObject({ status_code: 500, error: "answered 500" })
    const firstRetry = new Date(delivery?.next_attempt_at ?? 0).getTime()
    expect(firstRetry - Date.now()).toBeGreaterThan(20_000)
    expect(firstRetry - Date.now()).toBeLessThanOrEqual(30_000 + 1_000)

    // Not due yet: nothing is sent.
    await runJob()
    expect(receiver.at("/flaky")).toHaveLength(1)

    // 30 s later: it hangs, and 5 s is all it gets.
    handle.current.clock.advance(31_000)
    receiver.answer("/flaky", "hang")
    const started = Date.now()
    expect((await runJob()).details.retried).toBe(1)
    const took = Date.now() - started
    expect(took).toBeGreaterThanOrEqual(4_500)
    expect(took).toBeLessThan(10_000)
    ;[delivery] = await deliveries(project.project_id, hook.id)
    expect(delivery?.attempts).toBe(2)
    expect(delivery?.attempt_log[1]).toMatchObject({ status_code: null, error: "no answer within 5 s" })
    // The backoff doubled: one minute after the second attempt.
    const secondRetry = new Date(delivery?.next_attempt_at ?? 0).getTime()
    expect(secondRetry - handle.current.clock.unsafeCurrentTimeMillis()).toBeGreaterThan(50_000)

    handle.current.clock.advance(61_000)
    receiver.answer("/flaky", 200)
    expect((await runJob()).details.delivered).toBe(1)
    ;[delivery] = await deliveries(project.project_id, hook.id)
    expect(delivery).toMatchObject({ status: "delivered", attempts: 3, next_attempt_at: null })
    expect(delivery?.attempt_log.map((attempt) => attempt.status_code)).toEqual([500, null, 200])
    const sent = receiver.at("/flaky")
    expect(sent).toHaveLength(3)
    // The same message id on every attempt, each signed.
    expect(new Set(sent.map((entry) => entry.headers["webhook-id"]))).toEqual(new Set([delivery?.id]))
    for (const entry of sent) expect(await verifySignature(hook.secret, entry)).toBe(true)

    // Redeliver: due at once, same id, sent again.
    const again = await adminCall(
      "POST",
      `/projects/${project.project_id}/webhooks/${hook.id}/deliveries/${delivery?.id}/redeliver`
    )
    expect(again.status, again.text).toBe(200)
    expect(again.body).toMatchObject({ id: delivery?.id, status: "pending", attempts: 3 })
    expect((await runJob()).details.delivered).toBe(1)
    expect(receiver.at("/flaky")).toHaveLength(4)
    expect(receiver.at("/flaky")[3]?.headers["webhook-id"]).toBe(delivery?.id)
    ;[delivery] = await deliveries(project.project_id, hook.id)
    expect(delivery).toMatchObject({ status: "delivered", attempts: 4 })
    expectError(
      await adminCall("POST", `/projects/${project.project_id}/webhooks/${hook.id}/deliveries/msg_nope-1/redeliver`),
      404
    )
  })

  it("after 24 hours of failures a delivery is failed", async () => {
    const project = await createProject(handle.current)
    const hook = await subscribe(project.project_id, receiver.url("/down"), ["thread.created"])
    receiver.answer("/down", 503)
    await newThread(asUser(handle.current, project.api_key, "user_1", "ws_1"))
    expect((await runJob()).details.retried).toBe(1)
    handle.current.clock.advance(23 * HOUR)
    expect((await runJob()).details.retried).toBe(1)
    handle.current.clock.advance(2 * HOUR)
    expect((await runJob()).details.failed).toBe(1)
    const [delivery] = await deliveries(project.project_id, hook.id)
    expect(delivery).toMatchObject({ status: "failed", attempts: 3, next_attempt_at: null })
    expect(delivery?.attempt_log.map((attempt) => attempt.status_code)).toEqual([503, 503, 503])
    // Failed stays failed.
    handle.current.clock.advance(2 * HOUR)
    await runJob()
    expect(receiver.at("/down")).toHaveLength(3)
  })
})

describe.each(stores)("webhook destinations ($name, private addresses not allowed)", (storeUnderTest) => {
  const handle = useGateway(storeUnderTest, { JOBS_POLL_SECONDS: "0" })
  let receiver: Receiver
  beforeAll(async () => {
    receiver = await startReceiver()
  })
  afterAll(async () => {
    await receiver.close()
  })

  it("refuses private, loopback and link-local destinations at create", async () => {
    const project = await createProject(handle.current)
    for (const url of [
      "http://127.0.0.1:9/x",
      "http://localhost:9/x",
      "http://10.1.2.3/x",
      "http://172.16.0.1/x",
      "http://192.168.1.1/x",
      "http://169.254.169.254/latest/meta-data",
      "http://[::1]:9/x",
      "http://[fe80::1]/x",
      "http://[fd00::1]/x",
      "http://[::ffff:127.0.0.1]/x",
      "http://0.0.0.0/x",
      "http://100.64.0.1/x"
    ]) {
      const reply = await admin(handle.current)("POST", `/projects/${project.project_id}/webhooks`, {
        url,
        events: ["run.created"]
      })
      expectError(reply, 400, "url")
      expect(reply.body.message, url).toMatch(/private, loopback or link-local/)
    }
    // A public address is taken (no DNS needed for a literal).
    const ok = await admin(handle.current)("POST", `/projects/${project.project_id}/webhooks`, {
      url: "https://93.184.215.14/hooks",
      events: ["alert.fired"]
    })
    expect(ok.status, ok.text).toBe(201)
  })

  it("refuses them at delivery too (the address changed after create)", async () => {
    const project = await createProject(handle.current)
    const created = await admin(handle.current)("POST", `/projects/${project.project_id}/webhooks`, {
      url: "https://93.184.215.14/hooks",
      events: ["thread.created"]
    })
    expect(created.status).toBe(201)
    // As if its name now resolved to loopback: the row points at the receiver.
    await handle.current.sql("UPDATE webhooks SET url = $1 WHERE project_id = $2", [
      receiver.url("/sneaky"),
      project.project_id
    ])
    await newThread(asUser(handle.current, project.api_key, "user_1", "ws_1"))
    const run = await admin(handle.current)("POST", "/jobs/webhooks/run")
    expect(run.body.details.retried).toBe(1)
    expect(receiver.received).toHaveLength(0)
    const log = await admin(handle.current)(
      "GET",
      `/projects/${project.project_id}/webhooks/${created.body.id}/deliveries`
    )
    expect(log.body.deliveries[0].attempt_log[0]).toMatchObject({ status_code: null })
    expect(log.body.deliveries[0].attempt_log[0].error).toMatch(/private/)
  })
})

/** Gateways as real processes: one killed with kill -9 before delivering, the next one delivers. */
const processStores = [
  {
    name: "embedded",
    make: async () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-webhooks-kill-"))
      return { env: { DATA_DIR: dir }, drop: async () => fs.rmSync(dir, { recursive: true, force: true }) }
    }
  },
  ...(process.env.TEST_DATABASE_URL
    ? [
        {
          name: "postgres",
          make: async () => {
            const db = await freshPostgresDatabase(process.env.TEST_DATABASE_URL ?? "")
            return { env: { DATABASE_URL: db.url }, drop: db.drop }
          }
        }
      ]
    : [])
]

describe.each(processStores)("a gateway killed before delivering ($name)", (store) => {
  it("leaves the deliveries (an event's, an alert firing's) to the next gateway", { timeout: 120_000 }, async () => {
    const receiver = await startReceiver()
    const made = await store.make()
    const env = { ...made.env, ADMIN_TOKEN, WEBHOOK_ALLOW_PRIVATE: "true", BOOTSTRAP_DEFAULT_PROJECT: "false" }
    try {
      // The first never runs jobs on its own: the delivery waits in the outbox when it dies.
      const first = await spawnGateway({ ...env, JOBS_POLL_SECONDS: "0" })
      const headers = { authorization: `Bearer ${ADMIN_TOKEN}` }
      const project = await call(first.url, "POST", "/v1/admin/projects", { body: { name: "killed" }, headers })
      expect(project.status, project.text).toBe(201)
      const projectId = project.body.project_id as string
      const hook = await call(first.url, "POST", `/v1/admin/projects/${projectId}/webhooks`, {
        body: { url: receiver.url("/after-kill"), events: ["thread.created"] },
        headers
      })
      expect(hook.status, hook.text).toBe(201)
      const thread = await call(first.url, "POST", "/v1/threads", {
        body: { last_message_at: new Date().toISOString() },
        headers: { authorization: `Bearer ${project.body.api_key}`, "svc-user-id": "u1", "svc-workspace-id": "w1" }
      })
      expect(thread.status, thread.text).toBe(201)
      // An alert rule that fires on the first run: its firing is written with its delivery, then the gateway dies.
      const rule = await call(first.url, "POST", `/v1/admin/projects/${projectId}/alert-rules`, {
        body: {
          name: "any run",
          metric: "runs",
          comparison: "gte",
          threshold: 1,
          window_minutes: 5,
          cooldown_minutes: 5,
          webhook_url: receiver.url("/alert-after-kill")
        },
        headers
      })
      expect(rule.status, rule.text).toBe(201)
      const run = await call(first.url, "POST", "/v1/runs", {
        body: { thread_id: thread.body.thread_id, status: "completed" },
        headers: { authorization: `Bearer ${project.body.api_key}`, "svc-user-id": "u1", "svc-workspace-id": "w1" }
      })
      expect(run.status, run.text).toBe(201)
      const checked = await call(first.url, "POST", "/v1/admin/jobs/alerts/run", { headers })
      expect(checked.status, checked.text).toBe(200)
      expect(checked.body.details).toMatchObject({ fired: 1 })
      const exited = new Promise((done) => first.child.once("exit", done))
      first.child.kill("SIGKILL")
      await exited
      expect(receiver.received).toHaveLength(0)

      const second = await spawnGateway({ ...env, JOBS_POLL_SECONDS: "1" })
      try {
        const deadline = Date.now() + 30_000
        while (
          (receiver.at("/after-kill").length === 0 || receiver.at("/alert-after-kill").length === 0) &&
          Date.now() < deadline
        ) {
          await new Promise((done) => setTimeout(done, 200))
        }
        const got = receiver.at("/after-kill")
        expect(got).toHaveLength(1)
        expect(JSON.parse(got[0]?.body ?? "{}").data.id).toBe(thread.body.thread_id)
        expect(await verifySignature(hook.body.secret, got[0] ?? { path: "", headers: {}, body: "" })).toBe(true)
        const fired = receiver.at("/alert-after-kill")
        expect(fired).toHaveLength(1)
        expect(JSON.parse(fired[0]?.body ?? "{}")).toMatchObject({ type: "alert.fired", data: { value: 1 } })
        expect(await verifySignature(rule.body.secret, fired[0] ?? { path: "", headers: {}, body: "" })).toBe(true)
      } finally {
        await second.stop()
      }
    } finally {
      await receiver.close()
      await made.drop()
    }
  })
})
