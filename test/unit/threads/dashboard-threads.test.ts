/**
 * The dashboard's thread reads on each store: listProject's order and
 * keyset paging with the user, workspace, archive and time filters, each
 * thread with its user and message count; one thread with the feedback of
 * its messages (oldest first, at most 1,000), and 404 for a thread of
 * another project or none.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as Schema from "effect/Schema"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { CallerShape } from "../../../schema/Api/Security.js"
import { DashboardThreadDetail, DashboardThreadList, DashboardThreadQuery } from "../../../schema/Dashboard.js"
import { InvalidRequest, NotFound } from "../../../schema/Errors.js"
import * as Database from "../../../src/platform/db/Database.js"
import { ProjectAdmin } from "../../../src/projects/ProjectAdmin.js"
import { Messages } from "../../../src/threads/Messages.js"
import { Threads } from "../../../src/threads/Threads.js"
import { stores } from "../../support/layers.js"

const services = Layer.mergeAll(Threads.Default, Messages.Default, ProjectAdmin.Default)
type Services = Layer.Layer.Success<typeof services>

const query = (params: Record<string, string>) => Schema.decodeUnknownSync(DashboardThreadQuery)(params)
const at = (minute: number) => new Date(Date.UTC(2026, 10, 22, 10, minute))

describe.each(stores)("dashboard threads ($name)", (storeUnderTest) => {
  let runtime: ManagedRuntime.ManagedRuntime<Services | SqlClient.SqlClient, unknown>
  let drop = async () => {}
  const run = <A, E>(effect: Effect.Effect<A, E, Services | SqlClient.SqlClient>) => runtime.runPromise(effect)
  let projectId: string
  let otherProjectId: string
  /** Thread ids by name. */
  const ids: Record<string, string> = {}

  const caller = (project: string, userId: string, workspaceId: string): CallerShape => ({
    projectId: project,
    userId,
    workspaceId,
    mode: "api_key"
  })

  beforeAll(async () => {
    const made = await storeUnderTest.make()
    drop = made.drop
    runtime = ManagedRuntime.make(Layer.provideMerge(services, Database.layerFor(made.store, 2)))
    await run(
      Effect.gen(function* () {
        const admin = yield* ProjectAdmin
        const threads = yield* Threads
        const messages = yield* Messages
        projectId = (yield* admin.create("dashboard")).project_id
        otherProjectId = (yield* admin.create("other")).project_id
        const alice = caller(projectId, "alice", "ws-1")
        const bob = caller(projectId, "bob", "ws-2")
        const make = function* (name: string, who: CallerShape, minute: number, count: number) {
          const { id } = yield* threads.create(who, { last_message_at: at(minute), title: name })
          ids[name] = id
          for (let i = 0; i < count; i++) {
            yield* messages.create(who, id, { format: "svc/v0", content: { text: `${name} ${i}` } })
          }
        }
        yield* make("a1", alice, 1, 3)
        yield* make("a2", alice, 2, 0)
        yield* make("b3", bob, 3, 1)
        // Three threads of one instant: the id orders them.
        yield* make("b5x", bob, 5, 2)
        yield* make("a5y", alice, 5, 0)
        yield* make("a5z", alice, 5, 1)
        yield* make("b7", bob, 7, 4)
        yield* threads.update(bob, ids.b3 as string, { is_archived: true })
        yield* make("elsewhere", caller(otherProjectId, "alice", "ws-1"), 9, 1)
        // The last message times set by the appends are put back where each thread started.
        yield* threads.update(alice, ids.a1 as string, { last_message_at: at(1) })
        for (const [name, who, minute] of [
          ["a1", alice, 1],
          ["b3", bob, 3],
          ["b5x", bob, 5],
          ["a5z", alice, 5],
          ["b7", bob, 7]
        ] as const) {
          yield* threads.update(who, ids[name] as string, { last_message_at: at(minute) })
        }
      })
    )
  })
  afterAll(async () => {
    await runtime?.dispose()
    await drop()
  })

  const list = (params: Record<string, string>) =>
    run(Effect.flatMap(Threads, (threads) => threads.listDashboard(projectId, query(params))))
  const names = (rows: ReadonlyArray<{ id: string }>) =>
    rows.map((row) => Object.keys(ids).find((name) => ids[name] === row.id))

  it("lists the project's threads as listProject orders them, each with its user and message count", async () => {
    const rows = await list({})
    const sameInstant = [ids.b5x, ids.a5y, ids.a5z].sort().reverse()
    expect(rows.map((row) => row.id)).toEqual([ids.b7, ...sameInstant, ids.b3, ids.a2, ids.a1])
    const project = await run(
      Effect.flatMap(Threads, (threads) => threads.listProject(projectId, { limit: 50, is_archived: undefined }))
    )
    expect(rows.map((row) => row.id)).toEqual(project.map((row) => row.id))
    const byName = new Map(rows.map((row) => [names([row])[0], row]))
    expect(byName.get("a1")).toMatchObject({ user_id: "alice", workspace_id: "ws-1", message_count: 3, title: "a1" })
    expect(byName.get("a2")).toMatchObject({ user_id: "alice", message_count: 0 })
    expect(byName.get("b7")).toMatchObject({ user_id: "bob", workspace_id: "ws-2", message_count: 4 })
    expect(byName.get("b3")).toMatchObject({ is_archived: true, message_count: 1 })
    // The rows encode as the wire writes them: timestamps as ISO 8601 with milliseconds.
    const encoded = Schema.encodeSync(DashboardThreadList)({ threads: rows })
    expect(encoded.threads[0]).toMatchObject({
      id: ids.b7,
      user_id: "bob",
      message_count: 4,
      last_message_at: "2026-11-22T10:07:00.000Z",
      project_id: projectId
    })
    expect(encoded.threads[0]?.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
  })

  it("pages by the last id of the previous page, through ties of last_message_at", async () => {
    const all = (await list({})).map((row) => row.id)
    const seen: Array<string> = []
    let after: string | undefined
    for (;;) {
      const page = await list({ limit: "2", ...(after === undefined ? {} : { after }) })
      seen.push(...page.map((row) => row.id))
      if (page.length < 2) break
      after = page[1]?.id
    }
    expect(seen).toEqual(all)
  })

  it("filters by user, workspace, archive flag and last message time (from inclusive, to exclusive)", async () => {
    expect(names(await list({ user_id: "alice" }))).toEqual(["a5z", "a5y", "a2", "a1"])
    expect(names(await list({ workspace_id: "ws-2" }))).toEqual(["b7", "b5x", "b3"])
    expect(names(await list({ is_archived: "true" }))).toEqual(["b3"])
    expect(names(await list({ is_archived: "false", workspace_id: "ws-2" }))).toEqual(["b7", "b5x"])
    expect(names(await list({ from: at(3).toISOString(), to: at(7).toISOString() }))).toEqual([
      "a5z",
      "a5y",
      "b5x",
      "b3"
    ])
    expect(names(await list({ user_id: "bob", workspace_id: "ws-1" }))).toEqual([])
    // Paging within a filter.
    const first = await list({ user_id: "alice", limit: "2" })
    expect(names(await list({ user_id: "alice", limit: "2", after: first[1]?.id as string }))).toEqual(["a2", "a1"])
  })

  it("refuses an after that names no thread of the project (400)", async () => {
    for (const after of ["thread_nope", ids.elsewhere as string]) {
      const error = await run(
        Effect.flip(Effect.flatMap(Threads, (threads) => threads.listDashboard(projectId, query({ after }))))
      )
      expect(error).toBeInstanceOf(InvalidRequest)
    }
  })

  it("answers one thread of any workspace with its messages' feedback, oldest first", async () => {
    const threadId = ids.b7 as string
    const { messages, before } = await run(
      Effect.gen(function* () {
        const messages = yield* Messages
        const listed = yield* messages.listProject(projectId, threadId, {
          limit: 10,
          format: undefined,
          after: undefined
        })
        const bob = caller(projectId, "bob", "ws-2")
        const carol = caller(projectId, "carol", "ws-2")
        const [m0, m1] = listed.map((row) => row.id)
        yield* messages.giveFeedback(bob, threadId, m1 as string, { type: "negative", comment: "wrong" })
        yield* Effect.sleep("5 millis")
        yield* messages.giveFeedback(carol, threadId, m0 as string, { type: "positive" })
        const before = yield* (yield* Threads).getDashboard(projectId, threadId)
        // Feedback on another thread's message is not this thread's.
        const [other] = yield* messages.listProject(projectId, ids.a1 as string, {
          limit: 1,
          format: undefined,
          after: undefined
        })
        yield* messages.giveFeedback(caller(projectId, "alice", "ws-1"), ids.a1 as string, other?.id as string, {
          type: "positive"
        })
        return { messages: [m0, m1], before }
      })
    )
    expect(before.thread).toMatchObject({ id: threadId, user_id: "bob", workspace_id: "ws-2", message_count: 4 })
    expect(before.feedback).toEqual([
      { message_id: messages[1], user_id: "bob", type: "negative", comment: "wrong", created_at: expect.any(Date) },
      { message_id: messages[0], user_id: "carol", type: "positive", comment: null, created_at: expect.any(Date) }
    ])
    const again = await run(Effect.flatMap(Threads, (threads) => threads.getDashboard(projectId, threadId)))
    expect(again.feedback).toHaveLength(2)
    const encoded = Schema.encodeSync(DashboardThreadDetail)(again)
    expect(encoded.feedback[0]?.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
    expect(encoded.thread.last_message_at).toBe("2026-11-22T10:07:00.000Z")
  })

  it("answers at most 1,000 feedback, the oldest", async () => {
    const threadId = ids.a2 as string
    const { feedback, message } = await run(
      Effect.gen(function* () {
        const alice = caller(projectId, "alice", "ws-1")
        const created = yield* (yield* Messages).create(alice, threadId, { format: "svc/v0", content: {} })
        // 1,001 users' feedback on the message, a second apart, written newest first.
        const sql = yield* SqlClient.SqlClient
        yield* sql`INSERT INTO message_feedback (project_id, id, thread_id, message_id, user_id, type, created_at)
          SELECT ${projectId}, 'fb_' || lpad(i::text, 4, '0'), ${threadId}, ${created.id}, 'user-' || i, 'positive',
            timestamptz '2026-01-01T00:00:00Z' + i * interval '1 second'
          FROM generate_series(1001, 1, -1) AS i`
        return { feedback: (yield* (yield* Threads).getDashboard(projectId, threadId)).feedback, message: created.id }
      })
    )
    expect(feedback).toHaveLength(1000)
    expect(feedback.map((row) => row.user_id)).toEqual(Array.from({ length: 1000 }, (_, i) => `user-${i + 1}`))
    expect(feedback.every((row) => row.message_id === message)).toBe(true)
    expect(feedback[0]?.created_at.toISOString()).toBe("2026-01-01T00:00:01.000Z")
  })

  it("answers 404 thread not found for a thread of another project or none, as the messages route does", async () => {
    const errors = await run(
      Effect.gen(function* () {
        const threads = yield* Threads
        const messages = yield* Messages
        const page = { limit: 10, format: undefined, after: undefined }
        return [
          yield* Effect.flip(threads.getDashboard(projectId, ids.elsewhere as string)),
          yield* Effect.flip(threads.getDashboard(projectId, "thread_nope")),
          yield* Effect.flip(messages.listProject(projectId, "thread_nope", page))
        ]
      })
    )
    for (const error of errors) {
      expect(error).toBeInstanceOf(NotFound)
      expect(error).toMatchObject({ message: "thread not found" })
    }
  })
})
