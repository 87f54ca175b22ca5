/**
 * Erasure of one user (docs/decisions.md "Erasure of one user"): DELETE
 * /v1/admin/projects/{id}/users/{user_id} and the log at
 * GET /v1/admin/projects/{id}/erasures, on each store, with attachments on
 * the local blob store and on S3 (s3rver). Two users of one project and the
 * same user id in a second project, each with threads, messages, feedback,
 * runs (reported and derived from an OTLP export), scores, events and
 * attachments; one is erased. What goes is computed in SQL beforehand from
 * the rule, table by table; afterwards exactly that is gone, every other row
 * of every table is still there, and the counts answered are those sizes.
 * Then: the webhook deliveries of another user's reply erased as a
 * descendant, a re-run after an erasure cut short (its record holds both
 * runs' totals), and the access line (the user id only hashed).
 */
import { createHash } from "node:crypto"
import { existsSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { expectUpload, put, UPLOAD } from "../../support/files-helpers.js"
import { asAnonymous, asProject, expectError, newMessage, newThread, runJob } from "../../support/helpers.js"
import {
  admin,
  asUser,
  call,
  captureConsole,
  createProject,
  type Gateway,
  pglite,
  type StoreUnderTest,
  stores,
  type UserClient,
  useGateway
} from "../../support/layers.js"
import { useS3rver } from "../../support/s3rver.js"
import { type Receiver, startReceiver } from "../../support/webhook-receiver.js"
import { exportOf, jsonSpan, postJson, traceIdOf } from "../otlp/otlp.js"

const PUBLIC_URL = "https://gateway.example.test"
const s3rver = useS3rver()

interface BlobSetup {
  readonly name: "local" | "s3"
  readonly env: () => Record<string, string>
  /** The URL the test PUTs a signed upload to. */
  readonly reach: (gateway: Gateway, url: string) => string
  readonly exists: (key: string) => Promise<boolean>
}

const blobDir = mkdtempSync(join(tmpdir(), "svc-erasure-blobs-"))
afterAll(() => rmSync(blobDir, { recursive: true, force: true }))

const blobSetups: ReadonlyArray<BlobSetup> = [
  {
    name: "local",
    env: () => ({ BLOB_DIR: blobDir, PUBLIC_URL }),
    reach: (gateway, url) => `${gateway.baseUrl}${url.slice(PUBLIC_URL.length)}`,
    exists: async (key) => existsSync(join(blobDir, ...key.split("/")))
  },
  {
    name: "s3",
    env: () => s3rver.env,
    reach: (_, url) => url,
    exists: s3rver.exists
  }
]

// Each store with the local blob store; S3 once (removing a blob does not depend on the database).
const cases = stores.flatMap((store, index) =>
  blobSetups
    .filter((blobs) => index === 0 || blobs === blobSetups[0])
    .map((blobs) => ({ store, blobs, name: `${store.name}, ${blobs.name}` }))
)

/** Every table's rows as keys, by table: what is there before and after. */
const TABLE_KEYS: Record<string, string> = {
  threads: "project_id || '/' || id",
  messages: "project_id || '/' || id",
  message_feedback: "project_id || '/' || id",
  runs: "project_id || '/' || id",
  scores: "project_id || '/' || id",
  events: "project_id || '/' || id",
  spans: "project_id || '/' || trace_id || '/' || span_id",
  span_resources: "project_id || '/' || id",
  traces: "project_id || '/' || trace_id",
  refresh_tokens: "project_id || '/' || id",
  workspace_claims: "project_id || '/' || from_segment",
  webhook_deliveries: "project_id || '/' || id",
  usage_daily: "project_id || '/' || day || '/' || user_id"
}

const snapshot = async (gateway: Gateway) => {
  const out: Record<string, Set<string>> = {}
  for (const [table, key] of Object.entries(TABLE_KEYS)) {
    const rows = await gateway.sql<{ k: string }>(`SELECT ${key} AS k FROM ${table}`)
    out[table] = new Set(rows.map((row) => row.k))
  }
  return out
}

/**
 * What erasing `user` from `project` must delete, by the rule (docs/decisions.md),
 * as row keys per table, computed in SQL before the erasure.
 */
const doomedBy = async (gateway: Gateway, project: string, user: string) => {
  const q = async (text: string) =>
    new Set((await gateway.sql<{ k: string }>(text, [project, user])).map((row) => row.k))
  const threads = `SELECT id FROM threads WHERE project_id = $1 AND user_id = $2`
  const messages = `SELECT id FROM messages WHERE project_id = $1 AND (thread_id IN (${threads}) OR user_id = $2)`
  const runs = `SELECT id FROM runs WHERE project_id = $1 AND (thread_id IN (${threads}) OR user_id = $2)`
  const feedback = `SELECT id FROM message_feedback WHERE project_id = $1 AND (message_id IN (${messages}) OR user_id = $2)`
  const scores = `SELECT id FROM scores WHERE project_id = $1 AND (user_id = $2
      OR thread_id IN (${threads}) OR message_id IN (${messages}) OR run_id IN (${runs}))`
  return {
    threads: await q(`SELECT project_id || '/' || id AS k FROM threads WHERE project_id = $1 AND user_id = $2`),
    messages: await q(
      `SELECT project_id || '/' || id AS k FROM messages WHERE project_id = $1 AND id IN (${messages})`
    ),
    message_feedback: await q(`SELECT project_id || '/' || id AS k FROM message_feedback
      WHERE project_id = $1 AND id IN (${feedback})`),
    runs: await q(`SELECT project_id || '/' || id AS k FROM runs WHERE project_id = $1 AND id IN (${runs})`),
    scores: await q(`SELECT project_id || '/' || id AS k FROM scores WHERE project_id = $1 AND id IN (${scores})`),
    events: await q(`SELECT project_id || '/' || id AS k FROM events
      WHERE project_id = $1 AND (thread_id IN (${threads}) OR user_id = $2)`),
    spans: await q(`SELECT project_id || '/' || trace_id || '/' || span_id AS k FROM spans WHERE project_id = $1
      AND trace_id IN (SELECT trace_id FROM runs WHERE project_id = $1 AND id IN (${runs}))`),
    traces: await q(`SELECT project_id || '/' || trace_id AS k FROM traces WHERE project_id = $1
      AND trace_id IN (SELECT trace_id FROM runs WHERE project_id = $1 AND id IN (${runs}))`),
    // A resource row (one export's) goes when no span of another trace uses it.
    span_resources: await q(`SELECT r.project_id || '/' || r.id AS k FROM span_resources r WHERE r.project_id = $1
      AND NOT EXISTS (SELECT 1 FROM spans s WHERE s.project_id = $1 AND s.resource_id = r.id
        AND s.trace_id NOT IN (SELECT trace_id FROM runs WHERE project_id = $1 AND id IN (${runs}) AND trace_id IS NOT NULL))`),
    refresh_tokens: await q(
      `SELECT project_id || '/' || id AS k FROM refresh_tokens WHERE project_id = $1 AND user_id = $2`
    ),
    usage_daily: await q(`SELECT project_id || '/' || day || '/' || user_id AS k FROM usage_daily
      WHERE project_id = $1 AND user_id = $2`),
    // Outgoing deliveries whose object (the body's data.id) is one of the objects erased, whoever's.
    webhook_deliveries: await q(`SELECT project_id || '/' || id AS k FROM webhook_deliveries d
      WHERE project_id = $1 AND (body::jsonb -> 'data' ->> 'id') IN (
        SELECT id FROM (${threads}) t WHERE d.event_type = 'thread.created'
        UNION ALL SELECT id FROM (${messages}) m WHERE d.event_type = 'message.created'
        UNION ALL SELECT id FROM (${runs}) r WHERE d.event_type = 'run.created'
        UNION ALL SELECT id FROM (${scores}) s WHERE d.event_type = 'score.created'
        UNION ALL SELECT id FROM (${feedback}) f WHERE d.event_type = 'feedback.created')`)
  }
}

const COUNT_KINDS = {
  threads: "threads",
  messages: "messages",
  message_feedback: "feedback",
  runs: "runs",
  scores: "scores",
  events: "events",
  spans: "spans",
  traces: "traces",
  refresh_tokens: "refresh_tokens",
  webhook_deliveries: "webhook_deliveries"
} as const

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex")

describe.each(cases)("erasure of one user ($name)", ({ store, blobs }: { store: StoreUnderTest; blobs: BlobSetup }) => {
  const handle = useGateway(store, () => ({ ...blobs.env(), WEBHOOK_ALLOW_PRIVATE: "true", JOBS_POLL_SECONDS: "0" }))
  const gateway = () => handle.current
  let project: { project_id: string; api_key: string }
  let other: { project_id: string; api_key: string }
  const traceBase = blobs.name === "local" ? 100 : 200

  /** One user's data: threads in two workspaces, messages naming attachments, feedback, runs, scores, events. */
  const seed = async (
    p: { project_id: string; api_key: string },
    user: string,
    ownWorkspace: string,
    trace: number
  ) => {
    const client = asUser(gateway(), p.api_key, user, ownWorkspace)
    const shared = asUser(gateway(), p.api_key, user, "ws-shared")
    const upload = async (c: UserClient, name: string) => {
      const made = expectUpload(await c("POST", UPLOAD, { body: { filename: name } }))
      const stored = await put(blobs.reach(gateway(), made.signedUrl), Buffer.from(`bytes of ${name}`), "image/png")
      expect(stored.status, await stored.text()).toBe(200)
      return made
    }
    const photo = await upload(client, `${user}-photo.png`)
    const scan = await upload(shared, `${user}-scan.png`)
    const thread = await newThread(client, { title: `${user}'s trip`, metadata: { cover: photo.key } })
    const root = await newMessage(client, thread, {
      content: { role: "user", content: [{ type: "text", text: `look: ![photo](${photo.publicUrl})` }] }
    })
    const reply = await newMessage(client, thread, {
      parent: root,
      content: { role: "assistant", content: [{ type: "text", text: "nice" }] }
    })
    const sharedThread = await newThread(shared, { title: `${user} shared` })
    const sharedMessage = await newMessage(shared, sharedThread, {
      content: { role: "user", attachments: [{ key: scan.key }] }
    })
    const feedback = await client("POST", `/threads/${thread}/messages/${reply}/feedback`, {
      body: { type: "positive" }
    })
    expect(feedback.status, feedback.text).toBe(200)
    const run = await client("POST", "/runs", { body: { thread_id: thread, status: "completed", model_id: "m1" } })
    expect(run.status, run.text).toBe(201)
    const runId = run.body.run_id as string
    for (const body of [
      { name: "quality", data_type: "numeric", value: 1, run_id: runId, thread_id: thread },
      { name: "helpful", data_type: "boolean", value: true, message_id: reply, thread_id: thread },
      { name: "topic", data_type: "categorical", string_value: "travel", thread_id: sharedThread }
    ]) {
      const scored = await (body.thread_id === sharedThread ? shared : client)("POST", "/scores", { body })
      expect(scored.status, scored.text).toBe(201)
    }
    const events = await client("POST", "/events", {
      body: { events: [{ kind: "message_sent", thread_id: thread }, { kind: "thread_switched" }] }
    })
    expect(events.status, events.text).toBe(202)
    // Derived runs: a chat span on the thread (trace), and one naming only the user (trace + 1).
    const chat = (t: number, attributes: Record<string, unknown>) => [
      jsonSpan({ trace: t, span: 1, name: "invoke_agent", attributes: { "gen_ai.operation.name": "invoke_agent" } }),
      jsonSpan({
        trace: t,
        span: 2,
        parent: 1,
        name: "chat m1",
        attributes: {
          "gen_ai.operation.name": "chat",
          "gen_ai.provider.name": "openai",
          "gen_ai.request.model": "m1",
          "gen_ai.usage.input_tokens": 10,
          "gen_ai.usage.output_tokens": 5,
          ...attributes
        }
      })
    ]
    const exported = await postJson(
      gateway().baseUrl,
      p.api_key,
      exportOf([...chat(trace, { "gen_ai.conversation.id": thread }), ...chat(trace + 1, { "user.id": user })])
    )
    expect(exported.status, exported.text).toBe(200)
    return { client, shared, thread, sharedThread, root, reply, sharedMessage, photo, scan, runId }
  }

  let alice: Awaited<ReturnType<typeof seed>>
  let bob: Awaited<ReturnType<typeof seed>>
  let elsewhere: Awaited<ReturnType<typeof seed>>
  let aliceInBobsThread: string
  let bobOnAlice: string

  beforeAll(async () => {
    project = await createProject(gateway(), "erasure")
    other = await createProject(gateway(), "erasure-other")
    // Deliveries to a subscription of each project (never sent: no job runs), carrying the users' objects.
    for (const p of [project, other]) {
      const hook = await admin(gateway())("POST", `/projects/${p.project_id}/webhooks`, {
        url: "http://127.0.0.1:9/hooks",
        events: ["thread.created", "message.created", "run.created", "score.created", "feedback.created"]
      })
      expect(hook.status, hook.text).toBe(201)
    }
    alice = await seed(project, "alice", "ws-alice", traceBase)
    bob = await seed(project, "bob", "ws-bob", traceBase + 10)
    elsewhere = await seed(other, "alice", "ws-alice", traceBase + 20)
    // Alice writes in Bob's shared thread, and gives feedback on Bob's message; Bob on Alice's.
    aliceInBobsThread = await newMessage(alice.shared, bob.sharedThread, {
      parent: bob.sharedMessage,
      content: { role: "user", content: [{ type: "text", text: "me too" }] }
    })
    const fb = await alice.shared("POST", `/threads/${bob.sharedThread}/messages/${bob.sharedMessage}/feedback`, {
      body: { type: "negative" }
    })
    expect(fb.status, fb.text).toBe(200)
    const bobFb = await bob.shared("POST", `/threads/${alice.sharedThread}/messages/${alice.sharedMessage}/feedback`, {
      body: { type: "positive" }
    })
    expect(bobFb.status, bobFb.text).toBe(200)
    bobOnAlice = bobFb.body.feedback_id as string
    // The derived runs are written after the export answers; wait for them.
    for (let i = 0; i < 100; i++) {
      const [row] = await gateway().sql<{ n: number }>("SELECT count(*)::int AS n FROM runs WHERE span_id IS NOT NULL")
      if (Number(row?.n) >= 6) break
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
  })

  it("deletes exactly the user's rows and blobs, answers their counts, and keeps an audit record", async () => {
    // Reading a project's usage writes this gateway's pending counts of that project first (only that
    // project's: Usage.flushOf): with both read, the snapshot sees every rollup row.
    const usageBefore = await asProject(gateway(), project.api_key)("/usage/period")
    expect(usageBefore.status, usageBefore.text).toBe(200)
    expect((await asProject(gateway(), other.api_key)("/usage/period")).status).toBe(200)
    const before = await snapshot(gateway())
    const doomed = await doomedBy(gateway(), project.project_id, "alice")
    // The fixture holds every kind, for each user.
    for (const table of [
      "threads",
      "messages",
      "message_feedback",
      "runs",
      "scores",
      "events",
      "spans",
      "span_resources",
      "traces",
      "webhook_deliveries"
    ] as const) {
      expect(doomed[table].size, table).toBeGreaterThan(0)
    }
    expect(doomed.runs.size).toBe(3)
    expect(doomed.message_feedback.has(`${project.project_id}/${bobOnAlice}`)).toBe(true)
    expect(doomed.messages.has(`${project.project_id}/${aliceInBobsThread}`)).toBe(true)
    for (const key of [alice.photo.key, alice.scan.key, bob.photo.key, elsewhere.photo.key]) {
      expect(await blobs.exists(key), key).toBe(true)
    }

    const reply = await admin(gateway())("DELETE", `/projects/${project.project_id}/users/alice`)
    expect(reply.status, reply.text).toBe(200)
    const erasure = reply.body
    expect(Object.keys(erasure).sort()).toEqual([
      "deleted",
      "erasure_id",
      "finished_at",
      "requested_by",
      "started_at",
      "usage_rows_anonymized",
      "user_sha256"
    ])
    expect(erasure.user_sha256).toBe(sha256("alice"))
    expect(erasure.requested_by).toBe("admin-api")
    expect(erasure.deleted).toEqual({
      ...Object.fromEntries(
        Object.entries(COUNT_KINDS).map(([table, kind]) => [kind, doomed[table as keyof typeof COUNT_KINDS].size])
      ),
      attachments: 2,
      workspace_claims: 0
    })
    expect(erasure.usage_rows_anonymized).toBe(doomed.usage_daily.size)
    expect(erasure.usage_rows_anonymized).toBeGreaterThan(0)

    // Table by table: exactly the doomed rows went; every other row of every project stayed.
    const after = await snapshot(gateway())
    for (const table of Object.keys(TABLE_KEYS)) {
      const gone = doomed[table as keyof typeof doomed] ?? new Set<string>()
      const expected = [...(before[table] ?? [])].filter((key) => !gone.has(key)).sort()
      if (table === "usage_daily") {
        // Moved under an anonymous id, not deleted.
        const moved = [...(after[table] ?? [])].filter((key) => !(before[table] ?? new Set()).has(key))
        expect(moved).toHaveLength(gone.size)
        for (const key of moved)
          expect(key).toMatch(new RegExp(`^${project.project_id}/\\d{4}-\\d{2}-\\d{2}/erased_era_`))
        expect([...(after[table] ?? [])].filter((key) => !moved.includes(key)).sort(), table).toEqual(expected)
        continue
      }
      expect([...(after[table] ?? [])].sort(), table).toEqual(expected)
    }
    // Nothing carries the user id in the project any more.
    for (const table of [
      "threads",
      "messages",
      "message_feedback",
      "runs",
      "scores",
      "events",
      "refresh_tokens",
      "usage_daily"
    ]) {
      const [row] = await gateway().sql<{ n: number }>(
        `SELECT count(*)::int AS n FROM ${table} WHERE project_id = $1 AND user_id = 'alice'`,
        [project.project_id]
      )
      expect(Number(row?.n), table).toBe(0)
    }
    const [otherAlice] = await gateway().sql<{ n: number }>(
      "SELECT count(*)::int AS n FROM threads WHERE project_id = $1 AND user_id = 'alice'",
      [other.project_id]
    )
    expect(Number(otherAlice?.n)).toBe(2)

    // Blobs: Alice's gone, Bob's and the other project's there.
    expect(await blobs.exists(alice.photo.key)).toBe(false)
    expect(await blobs.exists(alice.scan.key)).toBe(false)
    for (const key of [bob.photo.key, bob.scan.key, elsewhere.photo.key, elsewhere.scan.key]) {
      expect(await blobs.exists(key), key).toBe(true)
    }

    // Through the API.
    expectError(await alice.client("GET", `/threads/${alice.thread}`), 404)
    expectError(await alice.shared("GET", `/threads/${alice.sharedThread}`), 404)
    expect((await bob.client("GET", `/threads/${bob.thread}`)).status).toBe(200)
    const bobMessages = await bob.shared("GET", `/threads/${bob.sharedThread}/messages`)
    expect(bobMessages.body.messages.map((m: { id: string }) => m.id)).toEqual([bob.sharedMessage])
    const read = asProject(gateway(), project.api_key)
    const listed = (await read("/threads?limit=100")).body.threads as Array<{ id: string }>
    expect(listed.map((t) => t.id).sort()).toEqual([bob.thread, bob.sharedThread].sort())
    expectError(await read(`/runs/${alice.runId}`), 404)
    expect((await read(`/runs/${bob.runId}`)).status).toBe(200)
    expectError(await read(`/traces/${traceIdOf(traceBase)}`), 404)
    expect((await read(`/traces/${traceIdOf(traceBase + 10)}`)).status).toBe(200)
    const usageAfter = await read("/usage/period")
    expect(usageAfter.body).toEqual(usageBefore.body)
    expect(
      (await asUser(gateway(), other.api_key, "alice", "ws-alice")("GET", `/threads/${elsewhere.thread}`)).status
    ).toBe(200)

    // The log: the same record, no content.
    const log = await admin(gateway())("GET", `/projects/${project.project_id}/erasures`)
    expect(log.status, log.text).toBe(200)
    expect(log.body.erasures).toEqual([erasure])
    expect(log.text).not.toContain("alice")
    const [stored] = await gateway().sql<{ row: string }>(
      "SELECT row_to_json(e)::text AS row FROM user_erasures e WHERE id = $1",
      [erasure.erasure_id]
    )
    expect(stored?.row).not.toContain("alice")
    expect((await admin(gateway())("GET", `/projects/${other.project_id}/erasures`)).body.erasures).toEqual([])

    // Again: nothing left, zeros, and a second record.
    const again = await admin(gateway())("DELETE", `/projects/${project.project_id}/users/alice`)
    expect(again.status, again.text).toBe(200)
    expect(Object.values(again.body.deleted)).toEqual(Object.values(again.body.deleted).map(() => 0))
    expect(again.body.usage_rows_anonymized).toBe(0)
    const log2 = (await admin(gateway())("GET", `/projects/${project.project_id}/erasures`)).body.erasures
    expect(log2.map((e: { erasure_id: string }) => e.erasure_id)).toEqual([again.body.erasure_id, erasure.erasure_id])
  })

  it("an anonymous user: its session (refresh token) and its claimed workspace go", async () => {
    const anonymous = await asAnonymous(gateway(), project.project_id)
    const thread = await newThread(anonymous.client)
    await newMessage(anonymous.client, thread, { content: { role: "user", text: "hi" } })
    const owner = asUser(gateway(), project.api_key, "carol", "ws-carol")
    const claimed = await owner("POST", "/threads/claim", { body: { refresh_token: anonymous.refreshToken } })
    expect(claimed.status, claimed.text).toBe(200)
    const second = await asAnonymous(gateway(), project.project_id)
    const reply = await admin(gateway())(
      "DELETE",
      `/projects/${project.project_id}/users/${encodeURIComponent(anonymous.userId)}`
    )
    expect(reply.status, reply.text).toBe(200)
    // The thread moved to Carol with the claim: hers now, not the anonymous user's.
    expect(reply.body.deleted).toMatchObject({ threads: 0, messages: 0, refresh_tokens: 1, workspace_claims: 1 })
    const rows = await gateway().sql<{ n: number }>(
      "SELECT count(*)::int AS n FROM refresh_tokens WHERE project_id = $1 AND user_id = $2",
      [project.project_id, second.userId]
    )
    expect(Number(rows[0]?.n)).toBe(1)
    expect((await owner("GET", `/threads/${thread}`)).status).toBe(200)
    // The second session still refreshes; the erased one's token was already spent by the claim.
    const refreshed = await call(gateway().baseUrl, "POST", `/p/${project.project_id}/v1/auth/tokens/refresh`, {
      body: { refresh_token: second.refreshToken }
    })
    expect(refreshed.status, refreshed.text).toBe(200)
    const erasedSecond = await admin(gateway())(
      "DELETE",
      `/projects/${project.project_id}/users/${encodeURIComponent(second.userId)}`
    )
    expect(erasedSecond.body.deleted).toMatchObject({ refresh_tokens: 1 })
    const refused = await call(gateway().baseUrl, "POST", `/p/${project.project_id}/v1/auth/tokens/refresh`, {
      body: { refresh_token: second.refreshToken }
    })
    expect(refused.status, refused.text).toBe(401)
  })

  it("the user's message in another's thread goes with the replies under it; a test user's usage rows are deleted", async () => {
    const dave = asUser(gateway(), project.api_key, "dave", "ws-team")
    const qa = asUser(gateway(), project.api_key, "qa-erin", "ws-team")
    const thread = await newThread(dave)
    const root = await newMessage(dave, thread, { content: { text: "root" } })
    const erins = await newMessage(qa, thread, { parent: root, content: { text: "erin" } })
    const reply = await newMessage(dave, thread, { parent: erins, content: { text: "under erin" } })
    const sibling = await newMessage(dave, thread, { parent: root, content: { text: "beside erin" } })
    const prefixes = await admin(gateway())("PUT", `/projects/${project.project_id}/test-users`, { prefixes: ["qa-"] })
    expect(prefixes.status, prefixes.text).toBe(200)
    // Written to the rollup (a read flushes), under the test user's id.
    expect((await asProject(gateway(), project.api_key)("/usage/period")).status).toBe(200)
    const usageRows = await gateway().sql<{ n: number }>(
      "SELECT count(*)::int AS n FROM usage_daily WHERE project_id = $1 AND user_id = 'qa-erin'",
      [project.project_id]
    )
    expect(Number(usageRows[0]?.n)).toBe(1)

    const erased = await admin(gateway())("DELETE", `/projects/${project.project_id}/users/qa-erin`)
    expect(erased.status, erased.text).toBe(200)
    expect(erased.body.deleted).toMatchObject({ threads: 0, messages: 2 })
    expect(erased.body.usage_rows_anonymized).toBe(1)
    const left = (await dave("GET", `/threads/${thread}/messages`)).body.messages.map((m: { id: string }) => m.id)
    expect(left.sort()).toEqual([root, sibling].sort())
    expect(left).not.toContain(reply)
    const rollup = await gateway().sql<{ user_id: string }>(
      "SELECT user_id FROM usage_daily WHERE project_id = $1 AND (user_id = 'qa-erin' OR user_id LIKE 'erased_%')",
      [project.project_id]
    )
    // Deleted, not re-keyed: only Alice's earlier rows carry an erased_ id.
    expect(rollup.every((row) => row.user_id.startsWith(`erased_${"era_"}`))).toBe(true)
    expect(rollup.some((row) => row.user_id === "qa-erin")).toBe(false)
    const restored = await admin(gateway())("PUT", `/projects/${project.project_id}/test-users`, { prefixes: [] })
    expect(restored.status, restored.text).toBe(200)
  })

  it("unknown project 404; an unknown user answers zeros with a record; bad user ids 400; admin token required", async () => {
    expectError(await admin(gateway())("DELETE", "/projects/proj_nope/users/alice"), 404)
    expectError(await admin(gateway())("GET", "/projects/proj_nope/erasures"), 404)
    const nobody = await admin(gateway())("DELETE", `/projects/${other.project_id}/users/nobody`)
    expect(nobody.status, nobody.text).toBe(200)
    expect(Object.values(nobody.body.deleted).every((n) => n === 0)).toBe(true)
    expect(nobody.body.user_sha256).toBe(sha256("nobody"))
    const longest = "u".repeat(255)
    const inside = await admin(gateway())("DELETE", `/projects/${other.project_id}/users/${longest}`)
    expect(inside.status, inside.text).toBe(200)
    expectError(
      await admin(gateway())("DELETE", `/projects/${other.project_id}/users/${"u".repeat(256)}`),
      400,
      "user_id"
    )
    expectError(await admin(gateway())("DELETE", `/projects/${other.project_id}/users/%20alice`), 400, "user_id")
    // An id with a slash or spaces inside reaches the route encoded.
    const odd = await admin(gateway())("DELETE", `/projects/${other.project_id}/users/${encodeURIComponent("a/b c")}`)
    expect(odd.status, odd.text).toBe(200)
    expect(odd.body.user_sha256).toBe(sha256("a/b c"))
    const log = (await admin(gateway())("GET", `/projects/${other.project_id}/erasures`)).body.erasures
    expect(log.map((e: { user_sha256: string }) => e.user_sha256)).toEqual([
      sha256("a/b c"),
      sha256(longest),
      sha256("nobody")
    ])
    // The other project's Alice was never touched by any of this.
    expect(
      (await asUser(gateway(), other.api_key, "alice", "ws-alice")("GET", `/threads/${elsewhere.thread}`)).status
    ).toBe(200)
    const unauthorized = await call(gateway().baseUrl, "DELETE", `/v1/admin/projects/${other.project_id}/users/alice`)
    expect(unauthorized.status).toBe(401)
  })
})

describe.each(stores)("erasure of a user with 2,000 messages ($name)", (store) => {
  const handle = useGateway(store)

  it("erases them in bounded batches while another user's appends go on", async () => {
    const gateway = handle.current
    const project = await createProject(gateway, "erasure-size")
    const heavy = asUser(gateway, project.api_key, "heavy", "ws-heavy")
    const other = asUser(gateway, project.api_key, "other", "ws-other")
    const threads = await Promise.all(Array.from({ length: 20 }, () => newThread(heavy)))
    // 100 messages in each of 20 threads, a run and an event for every fourth, written in SQL (the API would take minutes).
    await gateway.sql(
      `INSERT INTO messages (project_id, thread_id, id, parent_id, user_id, height, format, content)
       SELECT $1, t.id, 'msg_' || t.id || '_' || lpad(n::text, 4, '0'), NULL, 'heavy', 0, 'svc/v0',
         jsonb_build_object('role', 'user', 'content', jsonb_build_array(jsonb_build_object('type', 'text', 'text', repeat('words ', 40))))
       FROM unnest($2::text[]) AS t(id), generate_series(1, 100) AS n`,
      [project.project_id, threads]
    )
    await gateway.sql(
      `INSERT INTO runs (project_id, id, thread_id, workspace_id, user_id, status, detail)
       SELECT $1, 'run_' || t.id || '_' || n, t.id, 'ws-heavy', 'heavy', 'completed', '{}'::jsonb
       FROM unnest($2::text[]) AS t(id), generate_series(1, 25) AS n`,
      [project.project_id, threads]
    )
    await gateway.sql(
      `INSERT INTO events (project_id, id, workspace_id, user_id, kind, thread_id)
       SELECT $1, 'evt_' || t.id || '_' || n, 'ws-heavy', 'heavy', 'message_sent', t.id
       FROM unnest($2::text[]) AS t(id), generate_series(1, 25) AS n`,
      [project.project_id, threads]
    )
    const otherThread = await newThread(other)

    // The same appends without an erasure, for comparison.
    const alone: Array<number> = []
    for (let i = 0; i < 10; i++) {
      const started = performance.now()
      await newMessage(other, otherThread, { content: { role: "user", text: "alone" } })
      alone.push(performance.now() - started)
    }
    alone.sort((a, b) => a - b)

    // Another user's appends, one after another, for as long as the erasure runs.
    let erasing = true
    const latencies: Array<number> = []
    const appends = (async () => {
      while (erasing) {
        const started = performance.now()
        await newMessage(other, otherThread, { content: { role: "user", text: "still here" } })
        latencies.push(performance.now() - started)
      }
    })()
    const started = performance.now()
    const reply = await admin(gateway)("DELETE", `/projects/${project.project_id}/users/heavy`)
    const elapsed = performance.now() - started
    erasing = false
    await appends
    expect(reply.status, reply.text).toBe(200)
    expect(reply.body.deleted).toMatchObject({ threads: 20, messages: 2000, runs: 500, events: 500 })
    const [left] = await gateway.sql<{ n: number }>(
      "SELECT count(*)::int AS n FROM messages WHERE project_id = $1 AND user_id = 'heavy'",
      [project.project_id]
    )
    expect(Number(left?.n)).toBe(0)
    const sorted = [...latencies].sort((a, b) => a - b)
    const worst = sorted[sorted.length - 1] ?? 0
    console.log(
      `erasure of 2,000 messages, 500 runs, 500 events in 20 threads (${store.name}): ${Math.round(elapsed)} ms; ` +
        `${latencies.length} appends by another user meanwhile, median ${Math.round(sorted[Math.floor(sorted.length / 2)] ?? 0)} ms, worst ${Math.round(worst)} ms ` +
        `(alone: median ${Math.round(alone[5] ?? 0)} ms, worst ${Math.round(alone[9] ?? 0)} ms)`
    )
    expect(latencies.length).toBeGreaterThan(0)
  })
})

describe.each(stores)("erasure: deliveries of erased objects, and a re-run after a cut ($name)", (store) => {
  const handle = useGateway(store, { WEBHOOK_ALLOW_PRIVATE: "true", JOBS_POLL_SECONDS: "0" })
  let receiver: Receiver
  beforeAll(async () => {
    receiver = await startReceiver()
  })
  afterAll(async () => {
    await receiver.close()
  })

  it("another user's reply erased as a descendant goes with its deliveries, its feedback's and its score's", async () => {
    const gateway = handle.current
    const project = await createProject(gateway, "erasure-deliveries")
    receiver.answer("/hooks", 500)
    const hook = await admin(gateway)("POST", `/projects/${project.project_id}/webhooks`, {
      url: receiver.url("/hooks"),
      events: ["message.created", "feedback.created", "score.created"]
    })
    expect(hook.status, hook.text).toBe(201)
    const ann = asUser(gateway, project.api_key, "ann", "ws-team")
    const ben = asUser(gateway, project.api_key, "ben", "ws-team")
    const benText = "ben's reply under ann's question"
    const thread = await newThread(ben)
    const root = await newMessage(ben, thread, { content: { text: "ben's root" } })
    const annMessage = await newMessage(ann, thread, { parent: root, content: { text: "ann's question" } })
    const benReply = await newMessage(ben, thread, { parent: annMessage, content: { text: benText } })
    const feedback = await ben("POST", `/threads/${thread}/messages/${benReply}/feedback`, {
      body: { type: "positive" }
    })
    expect(feedback.status, feedback.text).toBe(200)
    const score = await ben("POST", "/scores", {
      body: { name: "helpful", data_type: "boolean", value: true, message_id: benReply, thread_id: thread }
    })
    expect(score.status, score.text).toBe(201)
    // Each delivery tried once and failed: pending, due again later.
    expect((await runJob(gateway, "webhooks")).details).toMatchObject({ delivered: 0, retried: 5 })
    const objectsOf = async () =>
      new Set(
        (
          await gateway.sql<{ object: string }>(
            `SELECT (body::jsonb -> 'data' ->> 'id') AS object FROM webhook_deliveries WHERE project_id = $1`,
            [project.project_id]
          )
        ).map((row) => row.object)
      )
    expect(await objectsOf()).toEqual(
      new Set([root, annMessage, benReply, feedback.body.feedback_id, score.body.score_id])
    )

    const erased = await admin(gateway)("DELETE", `/projects/${project.project_id}/users/ann`)
    expect(erased.status, erased.text).toBe(200)
    expect(erased.body.deleted).toMatchObject({ messages: 2, feedback: 1, scores: 1, webhook_deliveries: 4 })
    // Only the delivery of what stays (Ben's root) is left.
    expect(await objectsOf()).toEqual(new Set([root]))
    const [withText] = await gateway.sql<{ n: number }>(
      "SELECT count(*)::int AS n FROM webhook_deliveries WHERE project_id = $1 AND body LIKE $2",
      [project.project_id, `%${benText}%`]
    )
    expect(Number(withText?.n)).toBe(0)

    // Due now, and the receiver answers: what goes out is only what stayed.
    receiver.answer("/hooks", 204)
    await gateway.sql(
      "UPDATE webhook_deliveries SET next_attempt_at = created_at WHERE project_id = $1 AND status = 'pending'",
      [project.project_id]
    )
    const before = receiver.at("/hooks").length
    expect((await runJob(gateway, "webhooks")).details).toMatchObject({ delivered: 1, retried: 0 })
    const later = receiver.at("/hooks").slice(before)
    expect(later.map((entry) => JSON.parse(entry.body).data.id)).toEqual([root])
    for (const entry of later) {
      expect(entry.body).not.toContain(benText)
      expect(entry.body).not.toContain(benReply)
    }
  })

  it("a re-run after an erasure cut short records the totals of both runs", async () => {
    const gateway = handle.current
    const project = await createProject(gateway, "erasure-cut")
    const cut = asUser(gateway, project.api_key, "cut", "ws-cut")
    const thread = await newThread(cut)
    await gateway.sql(
      `INSERT INTO messages (project_id, thread_id, id, parent_id, user_id, height, format, content)
       SELECT $1, $2, 'msg_cut_' || lpad(n::text, 4, '0'), NULL, 'cut', 0, 'svc/v0', '{"text":"cut"}'::jsonb
       FROM generate_series(1, 300) AS n`,
      [project.project_id, thread]
    )
    await gateway.sql(
      `INSERT INTO runs (project_id, id, thread_id, workspace_id, user_id, status, detail)
       SELECT $1, 'run_cut_' || n, $2, 'ws-cut', 'cut', 'completed', '{}'::jsonb FROM generate_series(1, 10) AS n`,
      [project.project_id, thread]
    )
    // A fault once 200 of the user's messages are deleted (the first batch): the next batch fails, as if the
    // gateway had died there. Nothing the first run committed comes back.
    await gateway.sql("CREATE TABLE erasure_fuse (n integer NOT NULL)")
    await gateway.sql("INSERT INTO erasure_fuse VALUES (0)")
    await gateway.sql(`CREATE FUNCTION erasure_fuse() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE deleted integer;
      BEGIN
        UPDATE erasure_fuse SET n = n + 1 RETURNING n INTO deleted;
        IF deleted > 200 THEN RAISE EXCEPTION 'erasure cut short'; END IF;
        RETURN OLD;
      END $$`)
    await gateway.sql(`CREATE TRIGGER erasure_fuse BEFORE DELETE ON messages FOR EACH ROW
      WHEN (OLD.project_id = '${project.project_id}') EXECUTE FUNCTION erasure_fuse()`)
    const first = await admin(gateway)("DELETE", `/projects/${project.project_id}/users/cut`)
    await gateway.sql("DROP TRIGGER erasure_fuse ON messages")
    await gateway.sql("DROP FUNCTION erasure_fuse()")
    await gateway.sql("DROP TABLE erasure_fuse")
    expect(first.status, first.text).toBe(500)
    const [left] = await gateway.sql<{ n: number }>(
      "SELECT count(*)::int AS n FROM messages WHERE project_id = $1 AND user_id = 'cut'",
      [project.project_id]
    )
    expect(Number(left?.n)).toBe(100)

    const rerun = await admin(gateway)("DELETE", `/projects/${project.project_id}/users/cut`)
    expect(rerun.status, rerun.text).toBe(200)
    expect(rerun.body.deleted).toMatchObject({ threads: 1, messages: 300, runs: 10 })
    // One record: the erasure the first run started, with everything both runs deleted.
    const log = await admin(gateway)("GET", `/projects/${project.project_id}/erasures`)
    expect(log.body.erasures).toEqual([rerun.body])
    expect(rerun.body.user_sha256).toBe(sha256("cut"))
    // Finished: another erasure of the same user is a new record.
    const again = await admin(gateway)("DELETE", `/projects/${project.project_id}/users/cut`)
    expect(again.body.erasure_id).not.toBe(rerun.body.erasure_id)
    expect(Object.values(again.body.deleted).every((n) => n === 0)).toBe(true)
  })
})

describe("erasure: the access line (embedded)", () => {
  const lines = captureConsole()
  const handle = useGateway(pglite, { LOG_FORMAT: "json", LOG_LEVEL: "Info" }, { logging: true })

  it("logs the erased user's id as its SHA-256, as the audit record keeps it, never as is", async () => {
    const gateway = handle.current
    const project = await createProject(gateway, "erasure-log")
    const userId = "zoë.private@example.com/x"
    const reply = await admin(gateway)("DELETE", `/projects/${project.project_id}/users/${encodeURIComponent(userId)}`)
    expect(reply.status, reply.text).toBe(200)
    expect(reply.body.user_sha256).toBe(sha256(userId))
    const route = "/v1/admin/projects/:project_id/users/:user_id"
    let access: { annotations: Record<string, unknown> } | undefined
    for (let i = 0; i < 100 && access === undefined; i++) {
      access = lines
        .filter((line) => line.startsWith("{"))
        .map((line) => JSON.parse(line))
        .find((entry) => entry.message === "Sent HTTP response" && entry.annotations["http.route"] === route)
      if (access === undefined) await new Promise((resolve) => setTimeout(resolve, 50))
    }
    expect(access?.annotations["http.url"]).toBe(
      `/v1/admin/projects/${project.project_id}/users/sha256:${sha256(userId)}`
    )
    const all = lines.join("\n")
    for (const form of [userId, encodeURIComponent(userId), "zo%C3%AB", "zoë", "private@example"]) {
      expect(all).not.toContain(form)
    }
  })
})
