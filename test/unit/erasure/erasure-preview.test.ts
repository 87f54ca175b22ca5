/**
 * Erasure.preview on each store (docs/decisions.md "Erasure of one user"):
 * what an erasure of a user would delete, counted without deleting. A
 * gateway on a fresh store, with attachments on the local blob store, makes
 * the data through the API (threads in two workspaces, messages naming
 * attachments, feedback, reported and derived runs with their traces,
 * scores, events, anonymous sessions, one claimed into the user's workspace,
 * the user's rows in another user's thread with that user's reply under
 * them, webhook deliveries of each), then the use case runs in this process
 * on the gateway's store. Each preview is checked against the figures the
 * fixture implies, against what the real erasure answers, and against what
 * left the tables and the blob directory. Then attachments named in awkward
 * places (after escapes, in object keys, deep in arrays, in another user's
 * thread), and a user with thousands of rows.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import * as SqlClient from "@effect/sql/SqlClient"
import type * as ConfigError from "effect/ConfigError"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { BlobStoreLive } from "../../../app/Implementations.js"
import type { ErasureCounts } from "../../../schema/Erasure.js"
import { InvalidRequest, NotFound } from "../../../schema/Errors.js"
import { attachmentKeysIn, Erasure } from "../../../src/erasure/Erasure.js"
import { parseKey, workspaceSegment } from "../../../src/files/Files.js"
import { environment } from "../../../src/platform/Config.js"
import { exportOf, jsonSpan, postJson } from "../../protocols/otlp/otlp.js"
import { expectUpload, put, UPLOAD } from "../../support/files-helpers.js"
import { asAnonymous, newMessage, newThread } from "../../support/helpers.js"
import {
  admin,
  asUser,
  createProject,
  type StartedGateway,
  startGateway,
  stores,
  type UserClient
} from "../../support/layers.js"

const PUBLIC_URL = "https://gateway.example.test"

/** Each counted kind with its table (attachments are blobs: counted apart). */
const TABLES: ReadonlyArray<readonly [Exclude<keyof ErasureCounts, "attachments">, string]> = [
  ["threads", "threads"],
  ["messages", "messages"],
  ["feedback", "message_feedback"],
  ["runs", "runs"],
  ["scores", "scores"],
  ["events", "events"],
  ["spans", "spans"],
  ["traces", "traces"],
  ["refresh_tokens", "refresh_tokens"],
  ["workspace_claims", "workspace_claims"],
  ["webhook_deliveries", "webhook_deliveries"]
]

const ZERO: ErasureCounts = {
  threads: 0,
  messages: 0,
  feedback: 0,
  runs: 0,
  scores: 0,
  events: 0,
  attachments: 0,
  spans: 0,
  traces: 0,
  refresh_tokens: 0,
  workspace_claims: 0,
  webhook_deliveries: 0
}

/** Every file under `dir` (the local blob store's blobs), as paths relative to it. */
const filesUnder = (dir: string): Set<string> =>
  new Set(
    readdirSync(dir, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => join(entry.parentPath, entry.name).slice(dir.length + 1))
  )

describe.each(stores)("Erasure.preview ($name)", (storeUnderTest) => {
  const blobDir = mkdtempSync(join(tmpdir(), "svc-erasure-preview-blobs-"))
  let gateway: StartedGateway
  let runtime: ManagedRuntime.ManagedRuntime<Erasure, ConfigError.ConfigError>
  let drop = async () => {}
  let project = { project_id: "", api_key: "" }
  let other = { project_id: "", api_key: "" }

  const preview = (projectId: string, userId: string) =>
    runtime.runPromise(Effect.flatMap(Erasure, (erasure) => erasure.preview(projectId, userId)))
  const erase = (projectId: string, userId: string) =>
    runtime.runPromise(Effect.flatMap(Erasure, (erasure) => erasure.erase(projectId, userId, "test")))
  const previewFailure = (projectId: string, userId: string) =>
    runtime.runPromise(Effect.flip(Effect.flatMap(Erasure, (erasure) => erasure.preview(projectId, userId))))

  const count = async (text: string, params: ReadonlyArray<unknown> = []) =>
    Number((await gateway.sql<{ n: number }>(text, params))[0]?.n ?? -1)
  const tableSizes = async () => {
    const sizes: Record<string, number> = {}
    for (const [, table] of TABLES) sizes[table] = await count(`SELECT count(*)::int AS n FROM ${table}`)
    return sizes
  }
  /** The blob path of a key on the local store. */
  const blobPath = (key: string) => join(blobDir, ...key.split("/"))
  const writeBlob = (key: string) => {
    mkdirSync(dirname(blobPath(key)), { recursive: true })
    writeFileSync(blobPath(key), "bytes")
  }

  /**
   * Checks `userId`'s preview against the real erasure: what erase answers,
   * what left each table and the blob directory. The preview, and erase's answer.
   */
  const previewThenErase = async (projectId: string, userId: string) => {
    const before = await tableSizes()
    const blobsBefore = filesUnder(blobDir)
    const previewed = await preview(projectId, userId)
    const erased = await erase(projectId, userId)
    expect(erased.deleted).toEqual(previewed)
    const after = await tableSizes()
    for (const [kind, table] of TABLES) {
      expect((before[table] ?? 0) - (after[table] ?? 0), kind).toBe(previewed[kind])
    }
    const blobsAfter = filesUnder(blobDir)
    expect([...blobsAfter].filter((file) => !blobsBefore.has(file))).toEqual([])
    expect(blobsBefore.size - blobsAfter.size).toBe(previewed.attachments)
    // Nothing left to erase.
    expect(await preview(projectId, userId)).toEqual(ZERO)
    return { previewed, erased }
  }

  beforeAll(async () => {
    const made = await storeUnderTest.make()
    gateway = await startGateway(made.store, {
      BLOB_DIR: blobDir,
      PUBLIC_URL,
      WEBHOOK_ALLOW_PRIVATE: "true",
      JOBS_POLL_SECONDS: "0"
    })
    // The use case as the gateway and `svc` build it, on the gateway's store and configuration (its blob store).
    runtime = ManagedRuntime.make(
      Erasure.Default.pipe(
        Layer.provide(BlobStoreLive),
        Layer.provide(Layer.succeed(SqlClient.SqlClient, gateway.sqlClient)),
        Layer.provide(Layer.setConfigProvider(environment(gateway.env)))
      )
    )
    drop = async () => {
      await runtime.dispose()
      await gateway.close()
      await made.drop()
    }
    project = await createProject(gateway, "preview")
    other = await createProject(gateway, "preview-other")
    // Deliveries of every kind of object (never sent: no job runs).
    for (const p of [project, other]) {
      const hook = await admin(gateway)("POST", `/projects/${p.project_id}/webhooks`, {
        url: "http://127.0.0.1:9/hooks",
        events: ["thread.created", "message.created", "run.created", "score.created", "feedback.created"]
      })
      expect(hook.status, hook.text).toBe(201)
    }
  })

  afterAll(async () => {
    await drop()
    rmSync(blobDir, { recursive: true, force: true })
  })

  const upload = async (client: UserClient, name: string) => {
    const made = expectUpload(await client("POST", UPLOAD, { body: { filename: name } }))
    const stored = await put(
      `${gateway.baseUrl}${made.signedUrl.slice(PUBLIC_URL.length)}`,
      Buffer.from(name),
      "image/png"
    )
    expect(stored.status, await stored.text()).toBe(200)
    return made
  }
  const feedback = async (client: UserClient, thread: string, message: string, type: string) => {
    const reply = await client("POST", `/threads/${thread}/messages/${message}/feedback`, { body: { type } })
    expect(reply.status, reply.text).toBe(200)
    return reply.body.feedback_id as string
  }
  const score = async (client: UserClient, body: Record<string, unknown>) => {
    const reply = await client("POST", "/scores", { body })
    expect(reply.status, reply.text).toBe(201)
    return reply.body.score_id as string
  }
  const report = async (client: UserClient, thread: string) => {
    const reply = await client("POST", "/runs", { body: { thread_id: thread, status: "completed", model_id: "m1" } })
    expect(reply.status, reply.text).toBe(201)
    return reply.body.run_id as string
  }
  const events = async (client: UserClient, list: ReadonlyArray<Record<string, unknown>>) => {
    const reply = await client("POST", "/events", { body: { events: list } })
    expect(reply.status, reply.text).toBe(202)
  }
  /** A model call span (a derived run) with `attributes`, under the trace's agent span (span 1). */
  const chat = (trace: number, span: number, attributes: Record<string, unknown>) =>
    jsonSpan({
      trace,
      span,
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
  const agent = (trace: number) =>
    jsonSpan({ trace, span: 1, name: "invoke_agent", attributes: { "gen_ai.operation.name": "invoke_agent" } })

  it("counts what erase deletes for a user with every kind of row, and leaves others' rows alone", async () => {
    const P = project.project_id
    const aliceOwn = asUser(gateway, project.api_key, "alice", "ws-alice")
    const aliceShared = asUser(gateway, project.api_key, "alice", "ws-shared")
    // The user's own workspace is its id: an anonymous workspace claimed into it names the user.
    const aliceHome = asUser(gateway, project.api_key, "alice", "alice")
    const bobOwn = asUser(gateway, project.api_key, "bob", "ws-bob")
    const bobShared = asUser(gateway, project.api_key, "bob", "ws-shared")
    const aliceElsewhere = asUser(gateway, other.api_key, "alice", "ws-alice")

    const photo = await upload(aliceOwn, "photo.png")
    const scan = await upload(aliceShared, "scan.png")
    const bobPhoto = await upload(bobOwn, "bob.png")
    const otherPhoto = await upload(aliceElsewhere, "other.png")
    // A key of this project whose blob is not there: named, not counted.
    const ghost = photo.key.replace(/\/[0-9A-HJKMNP-TV-Z]{26}\//, "/01HZZZZZZZZZZZZZZZZZZZZZZZ/")
    expect(ghost).not.toBe(photo.key)

    // Alice's threads: the photo named by the thread's metadata and again by a message (one blob).
    const a1 = await newThread(aliceOwn, { title: "alice's trip", metadata: { cover: photo.key } })
    const a1root = await newMessage(aliceOwn, a1, {
      content: { role: "user", content: [{ type: "text", text: `look: ![photo](${photo.publicUrl})` }] }
    })
    const a1reply = await newMessage(aliceOwn, a1, {
      parent: a1root,
      content: { text: `gone: ${ghost}; the other project's: ${otherPhoto.key}` }
    })
    const a2 = await newThread(aliceShared, { title: "alice shared" })
    const a2msg = await newMessage(aliceShared, a2, { content: { role: "user", attachments: [{ key: scan.key }] } })
    const bobInA2 = await newMessage(bobShared, a2, { parent: a2msg, content: { text: "bob in alice's thread" } })
    // Bob's threads; Alice writes in his shared one, and Bob answers her there (erased with her message).
    const b1 = await newThread(bobOwn, { metadata: { cover: bobPhoto.key } })
    const b1msg = await newMessage(bobOwn, b1, { content: { text: `mine: ${bobPhoto.publicUrl}` } })
    const b2 = await newThread(bobShared)
    const b2msg = await newMessage(bobShared, b2, { content: { text: "bob's question" } })
    const aliceInB2 = await newMessage(aliceShared, b2, { parent: b2msg, content: { text: "alice answers" } })
    const bobUnderAlice = await newMessage(bobShared, b2, { parent: aliceInB2, content: { text: "bob thanks" } })
    const bobBeside = await newMessage(bobShared, b2, { parent: b2msg, content: { text: "bob again" } })
    // Alice in the other project (untouched by an erasure in this one).
    const q1 = await newThread(aliceElsewhere, { metadata: { cover: otherPhoto.key } })
    await newMessage(aliceElsewhere, q1, { content: { text: `elsewhere ${otherPhoto.publicUrl}` } })

    const feedbackIds = [
      await feedback(aliceOwn, a1, a1reply, "positive"),
      await feedback(bobShared, a2, a2msg, "negative"), // anyone's on an erased message
      await feedback(aliceShared, b2, b2msg, "positive"), // the user's anywhere
      await feedback(bobShared, b2, aliceInB2, "positive") // on her message in Bob's thread
    ]
    const bobFeedback = await feedback(bobOwn, b1, b1msg, "positive")

    const runA = await report(aliceOwn, a1)
    const bobRunInA2 = await report(bobShared, a2)
    const bobRun = await report(bobOwn, b1)
    const scoreIds = [
      await score(aliceOwn, { name: "quality", data_type: "numeric", value: 1, run_id: runA, thread_id: a1 }),
      await score(aliceOwn, { name: "helpful", data_type: "boolean", value: true, message_id: a1reply, thread_id: a1 }),
      await score(bobShared, { name: "topic", data_type: "categorical", string_value: "x", thread_id: a2 }),
      await score(aliceShared, { name: "topic", data_type: "categorical", string_value: "y", thread_id: b2 }),
      await score(bobShared, {
        name: "helpful",
        data_type: "boolean",
        value: true,
        message_id: bobUnderAlice,
        thread_id: b2
      })
    ]
    const bobScore = await score(bobOwn, { name: "quality", data_type: "numeric", value: 0, run_id: bobRun })
    await events(aliceOwn, [{ kind: "message_sent", thread_id: a1 }, { kind: "thread_switched" }])
    await events(bobShared, [{ kind: "message_sent", thread_id: a2 }])
    await events(bobOwn, [{ kind: "thread_switched" }])

    // Derived runs: one on Alice's thread, one naming only her, and a trace with a call of each user
    // (the trace goes, Bob's run in it stays); one of Bob's alone.
    const exported = await postJson(
      gateway.baseUrl,
      project.api_key,
      exportOf([
        agent(301),
        chat(301, 2, { "gen_ai.conversation.id": a1 }),
        agent(302),
        chat(302, 2, { "user.id": "alice" }),
        agent(303),
        chat(303, 2, { "user.id": "alice" }),
        chat(303, 3, { "user.id": "bob" }),
        agent(304),
        chat(304, 2, { "user.id": "bob" })
      ])
    )
    expect(exported.status, exported.text).toBe(200)
    for (
      let i = 0;
      i < 100 && (await count("SELECT count(*)::int AS n FROM runs WHERE span_id IS NOT NULL")) < 5;
      i++
    ) {
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    expect(await count("SELECT count(*)::int AS n FROM runs WHERE span_id IS NOT NULL")).toBe(5)

    // Anonymous sessions: one claimed into Alice's workspace, one claimed into Carol's, one left as it is.
    const claimedIntoAlice = await asAnonymous(gateway, P)
    const claimedThread = await newThread(claimedIntoAlice.client)
    const claimedMessage = await newMessage(claimedIntoAlice.client, claimedThread, { content: { text: "hi" } })
    const claim = await aliceHome("POST", "/threads/claim", { body: { refresh_token: claimedIntoAlice.refreshToken } })
    expect(claim.status, claim.text).toBe(200)
    const claimedIntoCarol = await asAnonymous(gateway, P)
    await newThread(claimedIntoCarol.client)
    const carol = asUser(gateway, project.api_key, "carol", "ws-carol")
    const claim2 = await carol("POST", "/threads/claim", { body: { refresh_token: claimedIntoCarol.refreshToken } })
    expect(claim2.status, claim2.text).toBe(200)
    const unclaimed = await asAnonymous(gateway, P)
    const unclaimedThread = await newThread(unclaimed.client)
    await newMessage(unclaimed.client, unclaimedThread, { content: { text: "still anonymous" } })

    // Alice's: the ids of everything of hers the rule names, and the webhook deliveries of those objects.
    const derivedOfAlice = (
      await gateway.sql<{ id: string }>(
        "SELECT id FROM runs WHERE project_id = $1 AND span_id IS NOT NULL AND (user_id = 'alice' OR thread_id = $2)",
        [P, a1]
      )
    ).map((row) => row.id)
    expect(derivedOfAlice).toHaveLength(3)
    // Bob's score on her run that names no thread: erased with the run only.
    await gateway.sql(
      `INSERT INTO scores (project_id, id, workspace_id, user_id, name, data_type, value, run_id)
       SELECT $1, 'scr_bob_on_alice', 'ws-bob', 'bob', 'q', 'numeric', 1, id FROM runs
       WHERE project_id = $1 AND span_id IS NOT NULL AND user_id = 'alice' AND thread_id IS NULL LIMIT 1`,
      [P]
    )
    const objects = [
      a1,
      a2,
      claimedThread,
      a1root,
      a1reply,
      a2msg,
      bobInA2,
      aliceInB2,
      bobUnderAlice,
      claimedMessage,
      ...feedbackIds,
      runA,
      bobRunInA2,
      ...derivedOfAlice,
      ...scoreIds
    ]
    const deliveries = await count(
      "SELECT count(*)::int AS n FROM webhook_deliveries WHERE project_id = $1 AND object_id = ANY($2)",
      [P, objects]
    )
    expect(deliveries).toBeGreaterThanOrEqual(objects.length)

    const otherBefore = await preview(other.project_id, "alice")
    expect(otherBefore).toMatchObject({ threads: 1, messages: 1, attachments: 1 })
    const bobBefore = await preview(P, "bob")

    const { previewed } = await previewThenErase(P, "alice")
    expect(previewed).toEqual({
      // Her two threads and the anonymous one claimed into her workspace.
      threads: 3,
      // Those threads' five messages (Bob's reply in hers too); hers in Bob's thread with his reply under it.
      messages: 7,
      feedback: 4,
      // Reported: hers and Bob's in her thread; derived: on her thread, naming her, hers in the shared trace.
      runs: 5,
      // Three of hers; Bob's on her thread, on his reply under her message, on her thread-less run.
      scores: 6,
      events: 3,
      // The photo (named twice) and the scan; not the missing blob nor the other project's.
      attachments: 2,
      // Traces 301 to 303: two spans, two, three.
      spans: 7,
      traces: 3,
      refresh_tokens: 0,
      workspace_claims: 1,
      webhook_deliveries: deliveries
    })
    expect(existsSync(blobPath(photo.key))).toBe(false)
    expect(existsSync(blobPath(scan.key))).toBe(false)

    // Bob: his rows outside what went are all there; the other project's Alice is as she was.
    const exists = async (table: string, id: string) =>
      count(`SELECT count(*)::int AS n FROM ${table} WHERE project_id = $1 AND id = $2`, [P, id])
    for (const id of [b1, b2]) expect(await exists("threads", id), id).toBe(1)
    for (const id of [b1msg, b2msg, bobBeside]) expect(await exists("messages", id), id).toBe(1)
    for (const id of [bobInA2, bobUnderAlice]) expect(await exists("messages", id), id).toBe(0)
    expect(await exists("message_feedback", bobFeedback)).toBe(1)
    expect(await exists("scores", bobScore)).toBe(1)
    expect(await exists("runs", bobRun)).toBe(1)
    expect(await count("SELECT count(*)::int AS n FROM runs WHERE project_id = $1 AND user_id = 'bob'", [P])).toBe(3)
    expect(
      await count(
        "SELECT count(*)::int AS n FROM events WHERE project_id = $1 AND user_id = 'bob' AND thread_id IS NULL",
        [P]
      )
    ).toBe(1)
    expect(existsSync(blobPath(bobPhoto.key))).toBe(true)
    expect(existsSync(blobPath(otherPhoto.key))).toBe(true)
    expect(await preview(other.project_id, "alice")).toEqual(otherBefore)
    // Bob lost what was in Alice's thread or under her message, and trace 303: less, never more.
    const bobAfter = await preview(P, "bob")
    expect(bobAfter).toMatchObject({ threads: 2, runs: 3, attachments: 1 })
    for (const kind of [...TABLES.map(([k]) => k), "attachments" as const]) {
      expect(bobAfter[kind], kind).toBeLessThanOrEqual(bobBefore[kind])
    }

    // The anonymous sessions: a claimed one's claim and token; an unclaimed one's thread too.
    const intoCarol = await previewThenErase(P, claimedIntoCarol.userId)
    expect(intoCarol.previewed).toEqual({ ...ZERO, refresh_tokens: 1, workspace_claims: 1 })
    const still = await previewThenErase(P, unclaimed.userId)
    expect(still.previewed).toMatchObject({ threads: 1, messages: 1, refresh_tokens: 1, workspace_claims: 0 })
    expect(still.previewed.webhook_deliveries).toBeGreaterThanOrEqual(2)
    await previewThenErase(P, "bob")
  })

  it("answers zeros for a user with nothing, 404 for an unknown project, 400 for a user id erase refuses", async () => {
    expect(await preview(project.project_id, "nobody-at-all")).toEqual(ZERO)
    const unknown = await previewFailure("prj_unknown", "alice")
    expect(unknown).toBeInstanceOf(NotFound)
    for (const bad of ["", " alice", "x".repeat(256)]) {
      expect(await previewFailure(project.project_id, bad), JSON.stringify(bad)).toBeInstanceOf(InvalidRequest)
    }
  })

  it("finds the attachment keys erase finds, wherever in the content they stand", async () => {
    const P = project.project_id
    const segment = workspaceSegment("ws-carla")
    let serial = 0
    const newKey = (name = "f.png") => `${P}/${segment}/01HX${String(serial++).padStart(22, "0")}/${name}`
    const before = [
      "",
      " ",
      "\n",
      "\t",
      "\r",
      "\u0001",
      "x",
      "_",
      "-",
      ".",
      "/",
      '"',
      "\\",
      "\\n",
      "é",
      "😀",
      "(",
      "![a]("
    ]
    const after = ["", ")", " ", ".", "x", "\n", "/z", "?expires=1&signature=abc", "é", '"']
    const names = ["f.png", "report.final.pdf", "x.exe", `${"n".repeat(116)}.png`, "a-b_c.jpeg"]
    const texts: Array<string> = []
    const keys: Array<string> = []
    const cases: Array<{ readonly prefix: string; readonly suffix: string; readonly key: string }> = []
    for (const [i, prefix] of before.entries()) {
      for (const [j, suffix] of after.entries()) {
        const key = newKey(names[(i + j) % names.length])
        keys.push(key)
        cases.push({ prefix, suffix, key })
        texts.push(`${prefix}${key}${suffix}`)
      }
    }
    /** A key named f.png written after `prefix`, followed by what ends a key. */
    const keyAfter = (prefix: string) =>
      cases.find((c) => c.prefix === prefix && !/^[A-Za-z0-9._-]/.test(c.suffix) && c.key.endsWith("/f.png"))?.key ??
      "none"
    // A first segment longer than 48 characters, and another project's key.
    const long = newKey()
    keys.push(long)
    texts.push(`${"p".repeat(40)}${long}`)
    const foreign = `${other.project_id}/${segment}/01HX${String(serial++).padStart(22, "0")}/f.png`
    keys.push(foreign)
    texts.push(foreign)
    const shapeOf = (text: string, i: number): unknown =>
      [{ text }, { [text]: true }, { parts: [[{ deep: [1, null, text] }]] }, text, [text, text]][i % 5]

    const carla = asUser(gateway, project.api_key, "carla", "ws-carla")
    const dan = asUser(gateway, project.api_key, "dan", "ws-carla")
    const metadataKey = newKey()
    keys.push(metadataKey)
    const thread = await newThread(carla)
    await gateway.sql("UPDATE threads SET metadata = $2::jsonb WHERE id = $1", [
      thread,
      JSON.stringify({ cover: { [`\n${metadataKey}`]: true } })
    ])
    const dansThread = await newThread(dan)
    const dansRoot = await newMessage(dan, dansThread, { content: { text: "dan's" } })
    const insert = (threadId: string, id: string, parent: string | null, user: string, content: unknown) =>
      gateway.sql(
        `INSERT INTO messages (project_id, thread_id, id, parent_id, user_id, height, format, content)
         VALUES ($1, $2, $3, $4, $5, 0, 'svc/v0', $6::jsonb)`,
        [P, threadId, id, parent, user, JSON.stringify(content)]
      )
    for (const [i, text] of texts.entries()) {
      // Most in her thread; some in Dan's under her message there, written by Dan (erased as descendants).
      if (i % 7 === 0) {
        await insert(dansThread, `msg_carla_${i}`, dansRoot, "carla", { text: "carla in dan's" })
        await insert(dansThread, `msg_dan_${i}`, `msg_carla_${i}`, "dan", shapeOf(text, i))
      } else {
        await insert(thread, `msg_carla_${i}`, null, "carla", shapeOf(text, i))
      }
    }
    // A key only Dan's own message names: not hers to erase.
    const dansKey = newKey()
    keys.push(dansKey)
    await insert(dansThread, "msg_dan_own", dansRoot, "dan", { text: dansKey })

    // What erase would find (its own function, on the text it reads), and a blob for every key written, found or not.
    const docs = await gateway.sql<{ content: string }>(
      `SELECT content::text AS content FROM messages
       WHERE project_id = $1 AND (id LIKE 'msg_carla_%' OR id LIKE 'msg_dan_%' AND id <> 'msg_dan_own')
       UNION ALL SELECT metadata::text FROM threads WHERE project_id = $1 AND id = $2`,
      [P, thread]
    )
    const found = new Set(docs.flatMap((doc) => [...attachmentKeysIn(P, doc.content)]))
    for (const key of new Set([...keys, ...found])) if (parseKey(key) !== undefined) writeBlob(key)
    // The cases that tell a reading of the JSON text from one of its strings, and the ones that are no key.
    for (const prefix of ["", "\n", "\t", "\u0001", '"', "\\", "é", "(", "/", "."]) {
      expect(found.has(keyAfter(prefix)), JSON.stringify(prefix)).toBe(true)
    }
    for (const prefix of ["x", "_", "-", "\\n"]) expect(found.has(keyAfter(prefix)), JSON.stringify(prefix)).toBe(false)
    expect(found.has(metadataKey)).toBe(true)
    for (const key of [long, foreign, dansKey]) expect(found.has(key), key).toBe(false)
    expect(found.size).toBeGreaterThan(50)

    const { previewed } = await previewThenErase(P, "carla")
    expect(previewed.attachments).toBe(found.size)
    expect(previewed).toMatchObject({ threads: 1, messages: texts.length + Math.ceil(texts.length / 7) })
    for (const key of found) expect(existsSync(blobPath(key)), key).toBe(false)
    expect(existsSync(blobPath(dansKey))).toBe(true)
  })

  it("counts a user with thousands of rows in SQL, as erase deletes them", async () => {
    const P = project.project_id
    const heavy = asUser(gateway, project.api_key, "heavy", "ws-heavy")
    const threads: Array<string> = []
    for (let i = 0; i < 20; i++) threads.push(await newThread(heavy))
    const keyOf = (n: number) => `${P}/${workspaceSegment("ws-heavy")}/01HY${String(n).padStart(22, "0")}/p.png`
    await gateway.sql(
      `INSERT INTO messages (project_id, thread_id, id, parent_id, user_id, height, format, content)
       SELECT $1, t.id, 'msg_' || t.id || '_' || lpad(n::text, 4, '0'), NULL, 'heavy', 0, 'svc/v0',
         jsonb_build_object('role', 'user', 'content', jsonb_build_array(jsonb_build_object('type', 'text',
           'text', repeat('words ', 40) || CASE WHEN n % 20 = 0 THEN $3::text || lpad((n / 20)::text, 22, '0') || '/p.png' ELSE '' END)))
       FROM unnest($2::text[]) AS t(id), generate_series(1, 100) AS n`,
      [P, threads, keyOf(0).slice(0, -(22 + "/p.png".length))]
    )
    for (let n = 1; n <= 5; n += 2) writeBlob(keyOf(n))
    await gateway.sql(
      `INSERT INTO runs (project_id, id, thread_id, workspace_id, user_id, status, detail, trace_id)
       SELECT $1, 'run_' || t.id || '_' || n, t.id, 'ws-heavy', 'heavy', 'completed', '{}'::jsonb,
         t.id || '_' || (n % 10)
       FROM unnest($2::text[]) AS t(id), generate_series(1, 25) AS n`,
      [P, threads]
    )
    await gateway.sql(
      `INSERT INTO span_resources (project_id, id, resource, scope) VALUES ($1, 'res_heavy', '{}'::jsonb, '{}'::jsonb)`,
      [P]
    )
    await gateway.sql(
      `INSERT INTO traces (project_id, trace_id, name, start_ns, end_ns)
       SELECT DISTINCT project_id, trace_id, 'heavy', 0, 1 FROM runs WHERE project_id = $1 AND user_id = 'heavy'`,
      [P]
    )
    await gateway.sql(
      `INSERT INTO spans (project_id, trace_id, span_id, trace_state, name, kind, start_ns, end_ns, status_code,
         status_message, attributes, events, links, resource_id)
       SELECT project_id, trace_id, lpad(n::text, 16, '0'), '', 'span', 1, 0, 1, 0, '', '{}', '[]', '[]', 'res_heavy'
       FROM traces, generate_series(1, 3) AS n WHERE project_id = $1 AND name = 'heavy'`,
      [P]
    )
    await gateway.sql(
      `INSERT INTO events (project_id, id, workspace_id, user_id, kind, thread_id)
       SELECT $1, 'evt_' || t.id || '_' || n, 'ws-heavy', 'heavy', 'message_sent', t.id
       FROM unnest($2::text[]) AS t(id), generate_series(1, 25) AS n`,
      [P, threads]
    )
    await gateway.sql(
      `INSERT INTO scores (project_id, id, workspace_id, user_id, name, data_type, value, run_id)
       SELECT $1, 'scr_' || id, 'ws-heavy', 'heavy', 'q', 'numeric', 1, id FROM runs
       WHERE project_id = $1 AND user_id = 'heavy'`,
      [P]
    )
    // Her messages in another user's thread, each with a reply of his under it.
    const lender = asUser(gateway, project.api_key, "lender", "ws-heavy")
    const lent = await newThread(lender)
    await gateway.sql(
      `INSERT INTO messages (project_id, thread_id, id, parent_id, user_id, height, format, content)
       SELECT $1, $2, 'msg_lent_' || n || '_' || who, CASE WHEN who = 1 THEN NULL ELSE 'msg_lent_' || n || '_1' END,
         CASE WHEN who = 1 THEN 'heavy' ELSE 'lender' END, who - 1, 'svc/v0', '{"text": "lent"}'::jsonb
       FROM generate_series(1, 200) AS n, generate_series(1, 2) AS who`,
      [P, lent]
    )

    const started = performance.now()
    const previewed = await preview(P, "heavy")
    const took = performance.now() - started
    if (process.env.TEST_TIMING)
      console.info(`preview of 2,400 messages, 500 runs (${storeUnderTest.name}): ${took.toFixed(0)} ms`)
    expect(previewed).toEqual({
      ...ZERO,
      threads: 20,
      messages: 2_400,
      runs: 500,
      scores: 500,
      events: 500,
      // Keys 1 to 5 named in every thread; a blob for 1, 3 and 5.
      attachments: 3,
      // Ten traces a thread, three spans each.
      traces: 200,
      spans: 600,
      // The threads' (made through the API); the rows written in SQL made none.
      webhook_deliveries: 20
    })
    const erasing = performance.now()
    await previewThenErase(P, "heavy")
    if (process.env.TEST_TIMING)
      console.info(`preview + erase (${storeUnderTest.name}): ${(performance.now() - erasing).toFixed(0)} ms`)
  })
})
