/**
 * Retention, the topic ceiling, the settings read and the job runner,
 * through real HTTP on each store (two gateways on one PostgreSQL when
 * TEST_DATABASE_URL is set).
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as Redacted from "effect/Redacted"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ExampleIds } from "../../../schema/Examples.js"
import type { StoreKind } from "../../../src/platform/db/Database.js"
import { expectUpload, put, UPLOAD } from "../../support/files-helpers.js"
import { expectError, inBatches, newMessage, newThread, runJob as runJobOnce } from "../../support/helpers.js"
import {
  admin,
  asUser,
  call,
  createProject,
  freshPostgresDatabase,
  type Gateway,
  startGateway,
  stores,
  type UserClient,
  useGateway
} from "../../support/layers.js"
import { useS3rver } from "../../support/s3rver.js"
import { exportOf, jsonSpan, postJson, traceIdOf } from "../otlp/otlp.js"

const HOUR = 3_600_000
const DAY = 24 * HOUR
const PUBLIC_URL = "https://gateway.example.test"

/** Moves threads' last activity `days` back (what a client cannot do). */
const age = (gateway: Gateway, projectId: string, threadIds: ReadonlyArray<string>, days: number) =>
  gateway.sql(
    `UPDATE threads SET last_message_at = now() - make_interval(days => $3::int)
      WHERE project_id = $1 AND id = ANY($2::text[])`,
    [projectId, threadIds, days]
  )

const countOf = async (gateway: Gateway, table: string, projectId: string) =>
  (await gateway.sql<{ n: number }>(`SELECT count(*)::int AS n FROM ${table} WHERE project_id = $1`, [projectId]))[0]
    ?.n ?? 0

/** A thread with two messages, a feedback, a run with a score, and an event. */
const fullThread = async (client: UserClient) => {
  const threadId = await newThread(client)
  const first = await newMessage(client, threadId, {
    content: { role: "user", content: [{ type: "text", text: "hi" }] }
  })
  const second = await newMessage(client, threadId, {
    parent: first,
    content: { role: "assistant", content: [{ type: "text", text: "hello" }] }
  })
  const feedback = await client("POST", `/threads/${threadId}/messages/${second}/feedback`, {
    body: { type: "positive" }
  })
  expect([200, 201], feedback.text).toContain(feedback.status)
  const run = await client("POST", "/runs", {
    body: { thread_id: threadId, status: "completed", model_id: "m", input_tokens: 1, output_tokens: 2 }
  })
  expect(run.status, run.text).toBe(201)
  const score = await client("POST", "/scores", {
    body: { name: "quality", data_type: "numeric", value: 1, run_id: run.body.run_id }
  })
  expect(score.status, score.text).toBe(201)
  const event = await client("POST", "/events", { body: { events: [{ kind: "message_copied", thread_id: threadId }] } })
  expect([200, 201, 202, 204], event.text).toContain(event.status)
  return threadId
}

describe.each(stores)("retention and settings ($name)", (storeUnderTest) => {
  const blobDir = mkdtempSync(join(tmpdir(), "svc-retention-blobs-"))
  const handle = useGateway(storeUnderTest, { JOBS_POLL_SECONDS: "0", BLOB_DIR: blobDir, PUBLIC_URL })
  afterAll(() => rmSync(blobDir, { recursive: true, force: true }))
  const run = () => runJobOnce(handle.current, "retention")

  it("reads every setting in one object, with the defaults", async () => {
    const project = await createProject(handle.current)
    const reply = await admin(handle.current)("GET", `/projects/${project.project_id}/settings`)
    expect(reply.status, reply.text).toBe(200)
    expect(reply.body).toEqual({
      project_id: project.project_id,
      name: "test",
      plan: "hobby",
      origins: [],
      issuer: null,
      test_user_prefixes: [],
      retention: { days: null, effective_days: null, effective_at: null },
      topic_ceiling: 30,
      alert_rules: 0,
      evaluators: 0,
      webhooks: 0
    })
    expectError(await admin(handle.current)("GET", `/projects/${ExampleIds.project}/settings`), 404)
  })

  it("takes a shorter retention after 24 hours and a longer one at once", async () => {
    const { project_id } = await createProject(handle.current)
    const clock = handle.current.clock
    const set = (days: unknown) => admin(handle.current)("PUT", `/projects/${project_id}/retention`, { days })
    const before = clock.unsafeCurrentTimeMillis()
    const shorter = await set(30)
    expect(shorter.status, shorter.text).toBe(200)
    expect(shorter.body.days).toBe(30)
    expect(shorter.body.effective_days).toBeNull()
    const at = Date.parse(shorter.body.effective_at)
    expect(at).toBeGreaterThanOrEqual(before + DAY)
    expect(at).toBeLessThan(before + DAY + 60_000)
    clock.advance(DAY - 60_000)
    let settings = await admin(handle.current)("GET", `/projects/${project_id}/settings`)
    expect(settings.body.retention).toEqual({ days: 30, effective_days: null, effective_at: shorter.body.effective_at })
    clock.advance(120_000)
    settings = await admin(handle.current)("GET", `/projects/${project_id}/settings`)
    expect(settings.body.retention.effective_days).toBe(30)
    // Longer: at once.
    const longer = await set(90)
    expect(longer.body).toMatchObject({ days: 90, effective_days: 90 })
    // Shorter again: 90 holds for 24 hours.
    expect((await set(7)).body).toMatchObject({ days: 7, effective_days: 90 })
    expect((await set(null)).body).toMatchObject({ days: null, effective_days: null })
    for (const bad of [8, 0, 366, "forever", 30.5]) expectError(await set(bad), 400, "days")
    expectError(await admin(handle.current)("PUT", `/projects/${ExampleIds.project}/retention`, { days: 7 }), 404)
    clock.offsetMs = 0
  })

  it("sets the topic ceiling from 10 to 60", async () => {
    const { project_id } = await createProject(handle.current)
    const set = (value: unknown) => admin(handle.current)("PUT", `/projects/${project_id}/topic-ceiling`, { value })
    for (const value of [10, 60]) {
      const reply = await set(value)
      expect(reply.status, reply.text).toBe(200)
      expect(reply.body).toEqual({ value })
      expect((await admin(handle.current)("GET", `/projects/${project_id}/settings`)).body.topic_ceiling).toBe(value)
    }
    for (const bad of [9, 61, 20.5, "20"]) expectError(await set(bad), 400, "value")
    expectError(await admin(handle.current)("PUT", `/projects/${ExampleIds.project}/topic-ceiling`, { value: 20 }), 404)
  })

  it("deletes what is past the retention, with its blobs, and nothing inside it or of other projects", async () => {
    const project = await createProject(handle.current, "retained")
    const other = await createProject(handle.current, "forever")
    const alice = asUser(handle.current, project.api_key, "alice", "ws-1")
    const bob = asUser(handle.current, other.api_key, "bob", "ws-1")
    // An attachment named in an old thread's message, and one in a recent thread.
    const attach = async (name: string) => {
      const upload = expectUpload(await alice("POST", UPLOAD, { body: { filename: name } }))
      const stored = await put(
        `${handle.current.baseUrl}${upload.signedUrl.slice(PUBLIC_URL.length)}`,
        Buffer.from("png"),
        "image/png"
      )
      expect(stored.status).toBe(200)
      return upload as { key: string; publicUrl: string }
    }
    const oldFile = await attach("old.png")
    const newFile = await attach("new.png")
    const blobPath = (key: string) => join(blobDir, ...key.split("/"))
    expect(existsSync(blobPath(oldFile.key))).toBe(true)

    const old = await Promise.all([fullThread(alice), fullThread(alice)])
    const withFile = await newThread(alice)
    await newMessage(alice, withFile, {
      content: { role: "user", content: [{ type: "image", image: oldFile.publicUrl }] }
    })
    const recent = await fullThread(alice)
    const recentWithFile = await newThread(alice)
    await newMessage(alice, recentWithFile, {
      content: { role: "user", content: [{ type: "image", image: newFile.publicUrl }] }
    })
    const otherOld = await fullThread(bob)
    await age(handle.current, project.project_id, [...old, withFile], 40)
    await age(handle.current, project.project_id, [recent, recentWithFile], 20)
    await age(handle.current, other.project_id, [otherOld], 400)

    const setting = await admin(handle.current)("PUT", `/projects/${project.project_id}/retention`, { days: 30 })
    expect(setting.body.effective_days).toBeNull()
    // Within the 24 hours, the old setting (forever) holds: nothing goes.
    expect((await run()).details.threads).toBe(0)
    expect(await countOf(handle.current, "threads", project.project_id)).toBe(5)

    handle.current.clock.advance(DAY + 60_000)
    try {
      const done = await run()
      expect(done.details).toMatchObject({
        threads: 3,
        messages: 5,
        feedback: 2,
        runs: 2,
        scores: 2,
        events: 2,
        attachments: 1
      })
      expect(done.items).toBe(3 + 5 + 2 + 2 + 2 + 2 + 1)
      const left = await handle.current.sql<{ id: string }>(
        "SELECT id FROM threads WHERE project_id = $1 ORDER BY id",
        [project.project_id]
      )
      expect(left.map((row) => row.id)).toEqual([recent, recentWithFile].sort())
      expect(await countOf(handle.current, "messages", project.project_id)).toBe(3)
      expect(await countOf(handle.current, "runs", project.project_id)).toBe(1)
      expect(await countOf(handle.current, "scores", project.project_id)).toBe(1)
      expect(await countOf(handle.current, "events", project.project_id)).toBe(1)
      expect(await countOf(handle.current, "message_feedback", project.project_id)).toBe(1)
      expect(existsSync(blobPath(oldFile.key))).toBe(false)
      expect(existsSync(blobPath(newFile.key))).toBe(true)
      expect(await countOf(handle.current, "threads", other.project_id)).toBe(1)
      expect(await countOf(handle.current, "messages", other.project_id)).toBe(2)
      // The API agrees: the old thread is gone, the recent one is there.
      expect((await alice("GET", `/threads/${old[0]}`)).status).toBe(404)
      expect((await alice("GET", `/threads/${recent}`)).status).toBe(200)
      // A second run finds nothing more.
      expect((await run()).items).toBe(0)
    } finally {
      handle.current.clock.offsetMs = 0
    }
  })

  it("deletes finished webhook deliveries past the retention; one still being tried stays", async () => {
    const project = await createProject(handle.current, "deliveries")
    const sql = handle.current.sql
    await sql(
      "INSERT INTO webhooks (project_id, id, url, events, secret) VALUES ($1, 'wh_1', 'https://x.example', $2, 's')",
      [project.project_id, ["thread.created"]]
    )
    const delivery = (id: string, status: string, daysAgo: number) =>
      sql(
        `INSERT INTO webhook_deliveries (project_id, id, webhook_id, event_type, body, status, created_at, retry_until)
          VALUES ($1, $2, 'wh_1', 'thread.created', '{}', $3, now() - make_interval(days => $4::int), now())`,
        [project.project_id, id, status, daysAgo]
      )
    await delivery("old-delivered", "delivered", 40)
    await delivery("old-failed", "failed", 40)
    await delivery("old-pending", "pending", 40)
    await delivery("recent", "delivered", 20)
    // 30 days in force now (what a setting made longer, or 24 hours ago, is).
    await sql("UPDATE projects SET retention_days = 30, retention_effective_at = NULL WHERE id = $1", [
      project.project_id
    ])
    expect((await run()).details.webhook_deliveries).toBe(2)
    const left = await sql<{ id: string }>("SELECT id FROM webhook_deliveries WHERE project_id = $1 ORDER BY id", [
      project.project_id
    ])
    expect(left.map((row) => row.id)).toEqual(["old-pending", "recent"])
  })

  it("deletes old spans with their traces and resource rows; a recent export's spans keep theirs", async () => {
    const project = await createProject(handle.current, "spans")
    const sql = handle.current.sql
    const exported = (trace: number, service: string) =>
      postJson(handle.current.baseUrl, project.api_key, exportOf([jsonSpan({ trace, span: 1 })], service))
    expect((await exported(1, "old-service")).status).toBe(200)
    expect((await exported(2, "new-service")).status).toBe(200)
    // The first export's rows were stored 40 days ago.
    for (const table of ["spans", "span_resources", "traces"]) {
      await sql(
        `UPDATE ${table} SET stored_at = now() - interval '40 days' WHERE project_id = $1 AND ${
          table === "span_resources"
            ? `id IN (SELECT resource_id FROM spans WHERE project_id = $1 AND trace_id = $2)`
            : "trace_id = $2"
        }`,
        [project.project_id, traceIdOf(1)]
      )
    }
    await sql("UPDATE projects SET retention_days = 30, retention_effective_at = NULL WHERE id = $1", [
      project.project_id
    ])
    const done = await run()
    expect(done.details).toMatchObject({ spans: 1, span_resources: 1, traces: 1 })
    expect(await countOf(handle.current, "span_resources", project.project_id)).toBe(1)
    const read = (trace: number) =>
      call(handle.current.baseUrl, "GET", `/v1/projects/traces/${traceIdOf(trace)}`, {
        headers: { authorization: `Bearer ${project.api_key}` }
      })
    expect((await read(1)).status).toBe(404)
    const recent = await read(2)
    expect(recent.body.spans[0].resource).toEqual({ "service.name": "new-service" })
  })

  it("two runs at once delete each row once", async () => {
    const project = await createProject(handle.current, "concurrent")
    const alice = asUser(handle.current, project.api_key, "alice", "ws-1")
    const ids = await inBatches(120, () => newThread(alice))
    await age(handle.current, project.project_id, ids, 400)
    await handle.current.sql("UPDATE projects SET retention_days = 365 WHERE id = $1", [project.project_id])
    const runs = await Promise.all([run(), run(), run()])
    expect(runs.reduce((sum, each) => sum + (each.details.threads ?? 0), 0)).toBe(120)
    expect(await countOf(handle.current, "threads", project.project_id)).toBe(0)
  })

  it("lists the jobs with their last run, and runs one on demand; an unknown job is 404", async () => {
    await run()
    const reply = await admin(handle.current)("GET", "/jobs")
    expect(reply.status, reply.text).toBe(200)
    const retention = reply.body.jobs.find((job: { name: string }) => job.name === "retention")
    expect(retention).toMatchObject({ name: "retention", interval_seconds: 3600, running: false, last_error: null })
    expect(retention.runs).toBeGreaterThanOrEqual(1)
    expect(retention.items_total).toBeGreaterThan(0)
    expect(typeof retention.last_finished_at).toBe("string")
    expect(typeof retention.next_run_at).toBe("string")
    expectError(await admin(handle.current)("POST", "/jobs/nope/run"), 404)
    expectError(await call(handle.current.baseUrl, "GET", "/v1/admin/jobs"), 401)
  })
})

// Removing a blob does not depend on the database: S3 on the first store only.
const s3rver = useS3rver()
describe.each(stores.slice(0, 1))("retention with attachments on S3 ($name)", (storeUnderTest) => {
  // s3rver's configuration once it listens (top-level hooks run first).
  const handle = useGateway(storeUnderTest, () => ({
    JOBS_POLL_SECONDS: "0",
    RETENTION_GRACE_HOURS: "0",
    ...s3rver.env
  }))
  it("removes the old thread's object from the bucket and keeps the recent one's", async () => {
    const project = await createProject(handle.current, "s3-retention")
    const alice = asUser(handle.current, project.api_key, "alice", "ws-1")
    const attach = async (threadId: string, name: string) => {
      const upload = expectUpload(await alice("POST", UPLOAD, { body: { filename: name } }))
      expect((await put(upload.signedUrl, Buffer.from("png"), "image/png")).status).toBe(200)
      await newMessage(alice, threadId, {
        content: { role: "user", content: [{ type: "image", image: upload.publicUrl }] }
      })
      return upload.key
    }
    const [old, recent] = [await newThread(alice), await newThread(alice)]
    const oldKey = await attach(old, "old.png")
    const recentKey = await attach(recent, "recent.png")
    await age(handle.current, project.project_id, [old], 10)
    expect(await s3rver.exists(oldKey)).toBe(true)
    const set = await admin(handle.current)("PUT", `/projects/${project.project_id}/retention`, { days: 7 })
    expect(set.body.effective_days).toBe(7)
    const done = await admin(handle.current)("POST", "/jobs/retention/run")
    expect(done.body).toMatchObject({ error: null, details: { threads: 1, attachments: 1 } })
    expect(await s3rver.exists(oldKey)).toBe(false)
    expect(await s3rver.exists(recentKey)).toBe(true)
  })
})

describe.each(stores)("the job timer ($name)", (storeUnderTest) => {
  const handle = useGateway(storeUnderTest, { JOBS_POLL_SECONDS: "1", RETENTION_GRACE_HOURS: "0" })
  it("runs a due job on its own and records the run", async () => {
    const project = await createProject(handle.current)
    const alice = asUser(handle.current, project.api_key, "alice", "ws-1")
    const threadId = await newThread(alice)
    await age(handle.current, project.project_id, [threadId], 10)
    const set = await admin(handle.current)("PUT", `/projects/${project.project_id}/retention`, { days: 7 })
    expect(set.body.effective_days).toBe(7)
    // Make the job due now (it ran at start-up and waits an hour).
    await handle.current.sql("UPDATE jobs SET next_run_at = now() - interval '1 second' WHERE name = 'retention'")
    // The rows go first, then the run is recorded with its next run: wait for both.
    const retentionJob = async () => {
      const jobs = await admin(handle.current)("GET", "/jobs")
      return jobs.body.jobs.find((job: { name: string }) => job.name === "retention")
    }
    const deadline = Date.now() + 10_000
    while (
      Date.now() < deadline &&
      ((await countOf(handle.current, "threads", project.project_id)) > 0 ||
        Date.parse((await retentionJob()).next_run_at) <= Date.now())
    ) {
      await new Promise((resolve) => setTimeout(resolve, 200))
    }
    expect(await countOf(handle.current, "threads", project.project_id)).toBe(0)
    const retention = await retentionJob()
    expect(Date.parse(retention.next_run_at) - Date.now()).toBeGreaterThan(50 * 60_000)
  })
})

describe.runIf(process.env.TEST_DATABASE_URL)("two gateways on one PostgreSQL", () => {
  let gateways: Array<Gateway> = []
  let drop = async () => {}
  let store: StoreKind = { kind: "embedded", dataDir: undefined }
  beforeAll(async () => {
    const db = await freshPostgresDatabase(process.env.TEST_DATABASE_URL ?? "")
    drop = db.drop
    store = { kind: "postgres", url: Redacted.make(db.url) }
    gateways = [await startGateway(store, { JOBS_POLL_SECONDS: "0" })]
    gateways.push(await startGateway(store, { JOBS_POLL_SECONDS: "0" }))
  })
  afterAll(async () => {
    for (const gateway of gateways) await gateway.close()
    await drop()
  })

  it("running the job on both at once deletes each row once", async () => {
    const [first, second] = gateways
    if (first === undefined || second === undefined) throw new Error("no gateways")
    const project = await createProject(first, "shared")
    const alice = asUser(first, project.api_key, "alice", "ws-1")
    const ids = await inBatches(600, async (i) => {
      const threadId = await newThread(alice)
      if (i % 3 === 0) await newMessage(alice, threadId)
      return threadId
    })
    await age(first, project.project_id, ids, 400)
    await first.sql("UPDATE projects SET retention_days = 365 WHERE id = $1", [project.project_id])
    const runs = await Promise.all(
      [first, second, first, second].map(async (gateway) => {
        const reply = await admin(gateway)("POST", "/jobs/retention/run")
        expect(reply.status, reply.text).toBe(200)
        return reply.body as { details: Record<string, number> }
      })
    )
    expect(runs.reduce((sum, each) => sum + (each.details.threads ?? 0), 0)).toBe(600)
    expect(runs.reduce((sum, each) => sum + (each.details.messages ?? 0), 0)).toBe(200)
    expect(await countOf(first, "threads", project.project_id)).toBe(0)
  })

  it("a due job runs once across the timers of both gateways", async () => {
    const [first] = gateways
    if (first === undefined) throw new Error("no gateways")
    const runsNow = async () =>
      (await first.sql<{ runs: number }>("SELECT runs::int AS runs FROM jobs WHERE name = 'retention'"))[0]?.runs ?? 0
    const before = await runsNow()
    await first.sql("UPDATE jobs SET next_run_at = now() - interval '1 second' WHERE name = 'retention'")
    const timers = await Promise.all([1, 2, 3].map(() => startGateway(store, { JOBS_POLL_SECONDS: "1" })))
    try {
      await new Promise((resolve) => setTimeout(resolve, 3_500))
      expect(await runsNow()).toBe(before + 1)
    } finally {
      await Promise.all(timers.map((gateway) => gateway.close()))
    }
  })
})
