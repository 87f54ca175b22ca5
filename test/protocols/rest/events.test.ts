/**
 * POST /v1/events (docs/api-and-auth.md "Run reports, scores and events"; docs/decisions.md
 * "Engagement events"): batches of 1 to 50, partial acceptance by index, event limits, ids stored
 * once per user, the 600-a-minute per-user limit, and tenancy. What was stored is read back
 * through the usage figures (events counts stored events).
 */
import { beforeAll, describe, expect, it } from "vitest"
import {
  asAnonymous,
  asJwtUser,
  asProject,
  expectError,
  inBatches,
  newMessage,
  newThread
} from "../../support/helpers.js"
import { asUser, call, createProject, type Reply, stores, type UserClient, useGateway } from "../../support/layers.js"

const x = (n: number) => "x".repeat(n)

/** A props object of exactly `bytes` bytes serialized, with no string over 256 characters. */
const propsOfBytes = (bytes: number): Record<string, string> => {
  const props: Record<string, string> = {}
  for (let i = 0; JSON.stringify(props).length + 260 < bytes; i++) props[`k${i}`] = x(200)
  props.z = ""
  props.z = x(bytes - JSON.stringify(props).length)
  return props
}

const expectAccepted = (reply: Reply, accepted: number, rejected: ReadonlyArray<number> = []) => {
  expect(reply.status, reply.text).toBe(202)
  expect(Object.keys(reply.body).sort()).toEqual(["accepted", "rejected"])
  expect(reply.body.accepted, reply.text).toBe(accepted)
  expect(
    reply.body.rejected.map((r: { index: number }) => r.index),
    reply.text
  ).toEqual(rejected)
  for (const rejection of reply.body.rejected) {
    expect(Object.keys(rejection).sort()).toEqual(["error", "index"])
    expect(rejection.error).toBeTypeOf("string")
    expect(rejection.error.length).toBeGreaterThan(0)
  }
}

describe.each(stores)("engagement events ($name)", (storeUnderTest) => {
  const handle = useGateway(storeUnderTest)
  let project: { project_id: string; api_key: string }
  let other: { project_id: string; api_key: string }
  let alice: UserClient
  let bob: UserClient
  let thread: string
  let message: string
  let bobThread: string
  let run: string
  let read: ReturnType<typeof asProject>

  const send = (client: UserClient, events: ReadonlyArray<unknown>) => client("POST", "/events", { body: { events } })
  const copied = (extra: Record<string, unknown> = {}) => ({ kind: "message_copied", thread_id: thread, ...extra })

  /** Events stored in the project today, from the usage figures. */
  const storedEvents = async (): Promise<number> => {
    const reply = await read("/usage/period")
    expect(reply.status, reply.text).toBe(200)
    return reply.body.events
  }

  beforeAll(async () => {
    project = await createProject(handle.current, "events")
    other = await createProject(handle.current, "other")
    alice = asUser(handle.current, project.api_key, "alice", "ws-1")
    bob = asUser(handle.current, project.api_key, "bob", "ws-2")
    read = asProject(handle.current, project.api_key)
    thread = await newThread(alice)
    message = await newMessage(alice, thread)
    bobThread = await newThread(bob)
    const reported = await alice("POST", "/runs", { body: { thread_id: thread, status: "completed" } })
    expect(reported.status, reported.text).toBe(201)
    run = reported.body.run_id
  })

  it("API key: a valid batch answers 202 { accepted, rejected: [] } and is stored", async () => {
    const before = await storedEvents()
    const reply = await send(alice, [
      copied({ message_id: message, id: "evt-a-1", props: { source: "button", n: 1, ok: true } }),
      { kind: "message_sent", thread_id: thread, value: 3 },
      { kind: "thread_switched" },
      { kind: "error_shown", run_id: run, props: { nested: { deep: ["a"] } } }
    ])
    expectAccepted(reply, 4)
    expect(await storedEvents()).toBe(before + 4)
  })

  it("a message or run id must be the caller's workspace's, and of the event's thread; the event is filed under it", async () => {
    const otherAlice = asUser(handle.current, other.api_key, "alice", "ws-1")
    const otherThread = await newThread(otherAlice)
    const otherMessage = await newMessage(otherAlice, otherThread)
    const bobMessage = await newMessage(bob, bobThread)
    const bobRun = (await bob("POST", "/runs", { body: { thread_id: bobThread, status: "completed" } })).body.run_id
    const reply = await send(alice, [
      { kind: "message_copied", message_id: bobMessage },
      { kind: "message_copied", message_id: otherMessage },
      { kind: "run_stopped", run_id: bobRun },
      { kind: "run_stopped", run_id: "run_01M80000000000000000000000" },
      { kind: "message_copied", thread_id: bobThread, message_id: message },
      { kind: "message_copied", message_id: message, id: "filed-1" },
      { kind: "run_stopped", run_id: run, message_id: message, id: "filed-2" }
    ])
    expect(reply.status, reply.text).toBe(202)
    expect(reply.body).toEqual({
      accepted: 2,
      rejected: [
        { index: 0, error: "message not found" },
        { index: 1, error: "message not found" },
        { index: 2, error: "run not found" },
        { index: 3, error: "run not found" },
        { index: 4, error: "thread not found" }
      ]
    })
    const filed = await handle.current.sql<{ thread_id: string }>(
      "SELECT thread_id FROM events WHERE client_id IN ('filed-1', 'filed-2')"
    )
    expect(filed.map((row) => row.thread_id)).toEqual([thread, thread])
    const otherThreadOfAlice = await newThread(alice)
    const mismatch = await send(alice, [{ kind: "message_copied", thread_id: otherThreadOfAlice, message_id: message }])
    expect(mismatch.body.rejected).toEqual([{ index: 0, error: "message is not in the event's thread" }])
  })

  // The kinds: docs/api-and-auth.md "Run reports, scores and events".
  it("every documented kind is accepted, another is not", async () => {
    const kinds = [
      "message_sent",
      "message_edited",
      "run_stopped",
      "message_regenerated",
      "message_copied",
      "branch_switched",
      "suggestions_shown",
      "suggestion_clicked",
      "attachment_added",
      "attachment_failed",
      "thread_switched",
      "tool_approved",
      "tool_rejected",
      "speech_started",
      "voice_started",
      "error_shown"
    ]
    expectAccepted(await send(alice, [...kinds.map((kind) => ({ kind })), { kind: "page_viewed" }]), 16, [16])
  })

  it("partial acceptance: valid events are kept, the others are reported by index", async () => {
    const before = await storedEvents()
    const reply = await send(alice, [
      copied(),
      { kind: "nope" },
      copied({ props: { a: 1 } }),
      copied({ props: propsOfBytes(1025) }),
      copied({ extra: true }),
      { kind: "message_copied", thread_id: bobThread },
      "not an object",
      copied({ value: -1 }),
      copied({ props: ["array"] }),
      copied()
    ])
    expectAccepted(reply, 3, [1, 3, 4, 5, 6, 7, 8])
    expect(await storedEvents()).toBe(before + 3)
  })

  it("a batch holds 1 to 50 events: 51, none, or no events array is 400 and stores nothing", async () => {
    const before = await storedEvents()
    expectAccepted(
      await send(
        alice,
        Array.from({ length: 50 }, () => copied())
      ),
      50
    )
    expectError(
      await send(
        alice,
        Array.from({ length: 51 }, () => copied())
      ),
      400,
      "events"
    )
    expectError(await send(alice, []), 400, "events")
    expectError(await alice("POST", "/events", { body: {} }), 400, "events")
    expectError(await alice("POST", "/events", { body: { events: [copied()], extra: 1 } }), 400)
    expectError(await alice("POST", "/events", { body: [copied()] }), 400)
    expect(await storedEvents()).toBe(before + 50)
  })

  it("event limits: props 1 KB, prop keys 64, prop strings 256, id 48 — just inside kept, just outside rejected", async () => {
    const inside = [
      copied({ props: propsOfBytes(1024) }),
      copied({ props: { [x(64)]: 1 } }),
      copied({ props: { nested: { [x(64)]: [{ [x(64)]: "a" }] } } }),
      copied({ props: { s: x(256) } }),
      copied({ props: { deep: { list: [x(256)] } } }),
      copied({ id: x(48) })
    ]
    const outside = [
      copied({ props: propsOfBytes(1025) }),
      copied({ props: { [x(65)]: 1 } }),
      copied({ props: { nested: { [x(65)]: 1 } } }),
      copied({ props: { nested: [{ [x(65)]: "a" }] } }),
      copied({ props: { s: x(257) } }),
      copied({ props: { deep: { list: [x(257)] } } }),
      copied({ id: x(49) }),
      copied({ id: "" })
    ]
    expect(JSON.stringify(propsOfBytes(1024)).length).toBe(1024)
    expect(Math.max(...Object.values(propsOfBytes(1025)).map((v) => v.length))).toBeLessThanOrEqual(256)
    const before = await storedEvents()
    const reply = await send(alice, [...inside, ...outside])
    expectAccepted(
      reply,
      inside.length,
      outside.map((_, i) => inside.length + i)
    )
    expect(await storedEvents()).toBe(before + inside.length)
  })

  it("an event id sent again by the same user is stored once; another user's same id is their own", async () => {
    const before = await storedEvents()
    expectAccepted(await send(alice, [copied({ id: "dup-1" }), copied({ id: "dup-1" })]), 2)
    expectAccepted(await send(alice, [copied({ id: "dup-1" }), copied({ id: "dup-2" })]), 2)
    expectAccepted(await send(bob, [{ kind: "message_copied", thread_id: bobThread, id: "dup-1" }]), 1)
    expect(await storedEvents()).toBe(before + 3)
  })

  it("a thread of another workspace or project is rejected in the batch, by index", async () => {
    const before = await storedEvents()
    expectAccepted(
      await send(bob, [
        { kind: "message_copied", thread_id: thread },
        { kind: "message_sent", thread_id: bobThread }
      ]),
      1,
      [0]
    )
    const stranger = asUser(handle.current, other.api_key, "alice", "ws-1")
    expectAccepted(await send(stranger, [copied(), { kind: "thread_switched" }, copied()]), 1, [0, 2])
    expectAccepted(await send(alice, [copied({ thread_id: "thread_nope" }), copied()]), 1, [0])
    expect(await storedEvents()).toBe(before + 2)
  })

  it("JWT and anonymous callers send events; their threads are their workspace's", async () => {
    const jwt = await asJwtUser(handle.current, project, "alice", "ws-1")
    expectAccepted(await send(jwt, [copied(), { kind: "message_copied", thread_id: bobThread }]), 1, [1])
    const anonymous = await asAnonymous(handle.current, project.project_id)
    const own = await newThread(anonymous.client)
    expectAccepted(
      await send(anonymous.client, [{ kind: "message_sent", thread_id: own }, copied(), { kind: "speech_started" }]),
      2,
      [1]
    )
    expectError(await call(handle.current.baseUrl, "POST", "/v1/events", { body: { events: [copied()] } }), 401)
  })

  it("600 events a minute per user: the 601st is 429 rate_limited with Retry-After; others are unaffected", async () => {
    const batch = Array.from({ length: 50 }, (_, i) => ({ kind: "suggestions_shown", value: i }))
    // The start of a fixed minute window, so the bursts never straddle two.
    handle.current.clock.toNextWindow(60_000)
    const user = "flood"
    const flood = asUser(handle.current, project.api_key, user, "ws-flood")
    const replies = await inBatches(12, () => send(flood, batch), 4)
    const refused = await send(flood, [{ kind: "suggestions_shown" }])
    // Counted per user: the same user in another workspace is limited too.
    const elsewhere = await send(asUser(handle.current, project.api_key, user, "ws-other"), [{ kind: "run_stopped" }])
    // A batch that would pass the limit is refused whole (docs/decisions.md): 590 taken, 20 more is 429.
    const edge = asUser(handle.current, project.api_key, "edge", "ws-flood")
    const edgeReplies = await inBatches(12, (i) => send(edge, i < 11 ? batch : batch.slice(0, 40)), 4)
    const storedBefore = await storedEvents()
    const over = await send(edge, batch.slice(0, 20))
    const storedAfter = await storedEvents()
    // A refused batch takes nothing from the minute: the 10 left still fit, then nothing does.
    const fits = await send(edge, batch.slice(0, 10))
    const full = await send(edge, batch.slice(0, 1))
    // Other users are not limited, nor the same user id in another project.
    const calm = await send(asUser(handle.current, project.api_key, "calm", "ws-flood"), batch)
    const otherProject = await send(asUser(handle.current, other.api_key, user, "ws-flood"), batch)
    for (const reply of replies) expectAccepted(reply, 50)
    expectError(refused, 429)
    expectError(elsewhere, 429)
    expect(edgeReplies.map((reply) => reply.body.accepted)).toEqual([...Array.from({ length: 11 }, () => 50), 40])
    expectError(over, 429)
    expect(storedAfter).toBe(storedBefore)
    expectAccepted(fits, 10)
    expectError(full, 429)
    expectAccepted(calm, 50)
    expectAccepted(otherProject, 50)
    // The next minute gives the user a fresh window.
    handle.current.clock.toNextWindow(60_000)
    expectAccepted(await send(flood, batch), 50)
    const retryAfter = Number(refused.headers.get("retry-after"))
    expect(Number.isInteger(retryAfter)).toBe(true)
    expect(retryAfter).toBeGreaterThanOrEqual(1)
    expect(retryAfter).toBeLessThanOrEqual(60)
  })
})
