/**
 * docs/client-library.md "Building blocks" and docs/decisions.md "Client building blocks
 * (svc-client, issue 14)" (CloudMessagePersistence and createFormattedPersistence), one test
 * per rule, over an AssistantCloud whose fetch is scripted. Where order
 * matters, the fake's answers are held back and released by the test.
 */
import {
  type AssistantCloud,
  CloudAPIError,
  CloudMessagePersistence,
  createFormattedPersistence,
  type MessageFormatAdapter,
  type MessagePersistenceLike
} from "svc-client"
import { afterEach, describe, expect, it, vi } from "vitest"
import { type Answer, apiKeyClient, FakeFetch, json, messageWire, type Sent, settle } from "./fakes.js"

afterEach(() => {
  vi.restoreAllMocks()
})

const MESSAGES = "/v1/threads/t1/messages"

/** An answer the test releases when it wants. */
const held = () => {
  let release: (response: Response) => void = () => {}
  const promise = new Promise<Response>((resolve) => {
    release = resolve
  })
  const answer: Answer = () => promise
  return { answer, release }
}

const created = (id: string) => json({ message_id: id }, { status: 201 })

/** The creates sent, as their JSON bodies. */
const creates = (fake: FakeFetch) =>
  fake.sent.filter((sent) => sent.method === "POST" && sent.path === MESSAGES).map((sent) => FakeFetch.json(sent))

const queryOf = (sent: Sent | undefined) => new URL(sent?.url ?? "http://x/").searchParams

/** `count` message rows m001, m002, ... (oldest first, as the gateway lists them). */
const rows = (count: number, format = "svc/v0") =>
  Array.from({ length: count }, (_, index) =>
    messageWire({ id: `m${String(index + 1).padStart(3, "0")}`, format, content: { n: index + 1 } })
  )

/**
 * A message list serving `all` by keyset in the order asked (`order=desc`: newest first): the rows
 * after `after` in that order, 200 (or `limit`) at most.
 */
const pagedList =
  (all: ReadonlyArray<Record<string, unknown>>, replay: (after: string) => boolean = () => false) =>
  (sent: Sent) => {
    const query = queryOf(sent)
    const after = query.get("after")
    const limit = Number(query.get("limit") ?? "200")
    const ordered = query.get("order") === "desc" ? [...all].reverse() : all
    const start = after === null || replay(after) ? 0 : ordered.findIndex((row) => row.id === after) + 1
    return json({ messages: ordered.slice(start, start + limit) })
  }

/** `answer`, until `max` requests: then a 500, so that a walk that does not stop fails instead of hanging. */
const capped = (answer: (sent: Sent) => Response | Promise<Response>, max = 10): Answer => {
  let count = 0
  return (sent) =>
    ++count > max ? json({ error: "internal", message: "too many pages" }, { status: 500 }) : answer(sent)
}

const setup = (fallback?: Answer) => {
  const fake = new FakeFetch(fallback)
  const cloud = apiKeyClient(fake)
  return { fake, cloud, persistence: new CloudMessagePersistence(cloud) }
}

describe("CloudMessagePersistence", () => {
  it("CloudMessagePersistence(cloud | () => cloud): the client, or a function giving the client at each call", async () => {
    const first = new FakeFetch().answer(created("r-parent"))
    const second = new FakeFetch().answer(created("r-child"))
    let current: AssistantCloud = apiKeyClient(first)
    const persistence = new CloudMessagePersistence(() => current)
    await persistence.append("t1", "parent", null, "svc/v0", { text: "a" })
    current = apiKeyClient(second)
    await persistence.append("t1", "child", "parent", "svc/v0", { text: "b" })
    // The second client sent the child, under the parent's remote id from the map kept across clients.
    expect(creates(first)).toEqual([
      { parent_id: null, format: "svc/v0", content: { text: "a" }, external_id: "parent" }
    ])
    expect(creates(second)).toEqual([
      { parent_id: "r-parent", format: "svc/v0", content: { text: "b" }, external_id: "child" }
    ])

    const direct = setup()
    direct.fake.answer(created("r-1"))
    await direct.persistence.append("t1", "local-1", null, "svc/v0", {})
    expect(direct.persistence.getResolvedRemoteId("local-1")).toBe("r-1")
  })

  it("append(threadId, id, parentId, format, content) waits for a pending parent's remote id", async () => {
    const { fake, persistence } = setup()
    const parent = held()
    fake.answer(parent.answer, created("r-child"), created("r-grandchild"))
    const appends = [
      persistence.append("t1", "parent", null, "svc/v0", { text: "parent" }),
      persistence.append("t1", "child", "parent", "svc/v0", { text: "child" }),
      persistence.append("t1", "grandchild", "child", "svc/v0", { text: "grandchild" })
    ]
    await settle()
    // Only the parent is on the wire: the child waits for its id, the grandchild for the child's.
    expect(creates(fake)).toEqual([
      { parent_id: null, format: "svc/v0", content: { text: "parent" }, external_id: "parent" }
    ])
    expect(persistence.isPersisted("child")).toBe(true)
    expect(persistence.getResolvedRemoteId("child")).toBeUndefined()

    parent.release(created("r-parent"))
    await Promise.all(appends)
    expect(creates(fake).slice(1)).toEqual([
      { parent_id: "r-parent", format: "svc/v0", content: { text: "child" }, external_id: "child" },
      { parent_id: "r-child", format: "svc/v0", content: { text: "grandchild" }, external_id: "grandchild" }
    ])
    expect(fake.sent.map((sent) => `${sent.method} ${sent.path}`)).toEqual(Array(3).fill(`POST ${MESSAGES}`))
  })

  it("append: a parent whose create fails fails its waiting child (nothing of the child is sent)", async () => {
    const { fake, persistence } = setup()
    const parent = held()
    fake.answer(parent.answer)
    const parentAppend = persistence.append("t1", "parent", null, "svc/v0", {})
    const childAppend = persistence.append("t1", "child", "parent", "svc/v0", {})
    parent.release(json({ error: "internal", message: "boom" }, { status: 500 }))
    await expect(parentAppend).rejects.toBeInstanceOf(CloudAPIError)
    await expect(childAppend).rejects.toMatchObject({ status: 500 })
    expect(fake.sent).toHaveLength(1)
    expect([persistence.isPersisted("parent"), persistence.isPersisted("child")]).toEqual([false, false])
  })

  it("append: an unknown parent id passes through", async () => {
    const { fake, persistence } = setup()
    fake.answer(created("r-2"))
    await persistence.append("t1", "local-2", "msg_already_remote", "svc/v0", { text: "x" })
    expect(creates(fake)).toEqual([
      { parent_id: "msg_already_remote", format: "svc/v0", content: { text: "x" }, external_id: "local-2" }
    ])
    // A mapped parent is replaced by its remote id; a root (null) stays null.
    fake.answer(created("r-3"), created("r-4"))
    await persistence.append("t1", "local-3", "local-2", "svc/v0", {})
    await persistence.append("t1", "local-4", null, "svc/v0", {})
    expect(creates(fake).map((body) => (body as { parent_id: unknown }).parent_id)).toEqual([
      "msg_already_remote",
      "r-2",
      null
    ])
  })

  it("append: a second append of a pending id waits for the first, then sends its own content if it differs", async () => {
    const { fake, persistence } = setup()
    const first = held()
    fake.answer(first.answer)
    const one = persistence.append("t1", "local-1", null, "svc/v0", { v: 1 })
    const same = persistence.append("t1", "local-1", null, "svc/v0", { v: 1 })
    let sameDone = false
    void same.then(() => {
      sameDone = true
    })
    await settle()
    expect(sameDone).toBe(false)
    first.release(created("r-1"))
    await Promise.all([one, same])
    expect(sameDone).toBe(true)
    // One create for the two appends of one content; the map holds its id.
    expect(creates(fake)).toEqual([{ parent_id: null, format: "svc/v0", content: { v: 1 }, external_id: "local-1" }])
    expect(persistence.getResolvedRemoteId("local-1")).toBe("r-1")

    // Appends of other contents while a create is under way (a message stored as it starts streaming, then
    // finished): once it is done, the latest of them is sent again under the same external_id (the gateway
    // replaces the content and answers the same id); the one it superseded sends nothing.
    const slow = held()
    fake.answer(slow.answer, created("r-2"))
    const streaming = persistence.append("t1", "local-2", null, "svc/v0", { text: "" })
    const partial = persistence.append("t1", "local-2", null, "svc/v0", { text: "Lisbon" })
    const finished = persistence.append("t1", "local-2", null, "svc/v0", { text: "Lisbon in May." })
    await settle()
    expect(creates(fake)).toHaveLength(2)
    slow.release(created("r-2"))
    await Promise.all([streaming, partial, finished])
    expect(creates(fake).slice(1)).toEqual([
      { parent_id: null, format: "svc/v0", content: { text: "" }, external_id: "local-2" },
      { parent_id: null, format: "svc/v0", content: { text: "Lisbon in May." }, external_id: "local-2" }
    ])
    expect(persistence.getResolvedRemoteId("local-2")).toBe("r-2")

    // Once settled, another append sends the message again under the same external_id; the map takes the id
    // answered.
    fake.answer(created("r-again"))
    await persistence.append("t1", "local-1", null, "svc/v0", { v: 3 })
    expect(creates(fake)).toHaveLength(4)
    expect(creates(fake)[3]).toEqual({ parent_id: null, format: "svc/v0", content: { v: 3 }, external_id: "local-1" })
    expect(persistence.getResolvedRemoteId("local-1")).toBe("r-again")

    // The waiting append shares the first one's failure.
    const failing = held()
    fake.answer(failing.answer)
    const three = persistence.append("t1", "local-3", null, "svc/v0", {})
    const four = persistence.append("t1", "local-3", null, "svc/v0", {})
    failing.release(json({ error: "invalid_request", message: "no" }, { status: 400 }))
    await expect(three).rejects.toMatchObject({ status: 400 })
    await expect(four).rejects.toMatchObject({ status: 400 })
    expect(creates(fake)).toHaveLength(5)
  })

  it("append: a failed create drops the mapping and rethrows", async () => {
    const { fake, persistence } = setup()
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {})
    const answer = held()
    fake.answer(answer.answer)
    const append = persistence.append("t1", "local-1", null, "svc/v0", {})
    await settle()
    expect(persistence.isPersisted("local-1")).toBe(true)
    const remote = persistence.getRemoteId("local-1")
    answer.release(json({ error: "internal", message: "down" }, { status: 503 }))
    const error = await append.then(
      () => expect.fail("append should fail"),
      (failure: unknown) => failure
    )
    expect(error).toBeInstanceOf(CloudAPIError)
    expect(error).toMatchObject({ status: 503 })
    expect(persistence.isPersisted("local-1")).toBe(false)
    // A getRemoteId waiting on the failed create gets no id, and an update then sends nothing.
    expect(await remote).toBeUndefined()
    await persistence.update("t1", "local-1", "svc/v0", { v: 2 })
    expect(warn).toHaveBeenCalledOnce()
    expect(fake.sent).toHaveLength(1)

    // The id can be appended again.
    fake.answer(created("r-1"))
    await persistence.append("t1", "local-1", null, "svc/v0", {})
    expect(persistence.getResolvedRemoteId("local-1")).toBe("r-1")
  })

  it("what assistant-ui calls of the original's: run phases taken (no lease: the gateway has none), rename, record, delete", async () => {
    const { fake, persistence } = setup()
    // The original's options (staleAfter concerns run leases).
    expect(new CloudMessagePersistence(apiKeyClient(new FakeFetch()), { staleAfter: 5_000 }).hasOpenRun("x")).toBe(
      false
    )
    fake.answer(created("r-a"))
    await persistence.append("t1", "a", null, "svc/v0", { text: "" }, "running")
    // Nothing of the phase is sent (no open_run), and no lease is held.
    expect(creates(fake)).toEqual([{ parent_id: null, format: "svc/v0", content: { text: "" }, external_id: "a" }])
    expect(persistence.hasOpenRun("a")).toBe(false)
    expect(persistence.runStateOf(undefined)).toBeUndefined()
    await persistence.update("t1", "a", "svc/v0", { text: "done" }, "done")
    const put = fake.sent.filter((sent) => sent.method === "PUT")
    expect(put.map((sent) => [sent.path, FakeFetch.json(sent)])).toEqual([
      [`${MESSAGES}/r-a`, { content: { text: "done" } }]
    ])

    // rename moves a mapping to a new local id; onto an id already mapped it does nothing.
    await persistence.rename("a", "b")
    expect(persistence.isPersisted("a")).toBe(false)
    expect(persistence.getResolvedRemoteId("b")).toBe("r-a")
    persistence.record("c", "r-c")
    await persistence.rename("b", "c")
    expect([persistence.getResolvedRemoteId("b"), persistence.getResolvedRemoteId("c")]).toEqual(["r-a", "r-c"])

    // delete: the mapped ids' messages in one request (an unmapped id is skipped), then forgotten.
    fake.answer(json({ deleted: 2 }))
    await persistence.delete("t1", ["b", "c", "unknown"])
    const deletes = () => fake.sent.filter((sent) => sent.method === "DELETE")
    expect(deletes().map((sent) => [sent.path, FakeFetch.json(sent)])).toEqual([
      [MESSAGES, { message_ids: ["r-a", "r-c"] }]
    ])
    expect([persistence.isPersisted("b"), persistence.isPersisted("c")]).toEqual([false, false])
    // A thread already gone (404) is no error; nothing mapped sends nothing.
    persistence.record("d", "r-d")
    fake.answer(json({ error: "not_found", message: "thread not found" }, { status: 404 }))
    await persistence.delete("t1", ["d"])
    await persistence.delete("t1", ["nothing"])
    expect(deletes()).toHaveLength(2)
    // Another failure is the caller's.
    persistence.record("e", "r-e")
    fake.answer(json({ error: "internal", message: "boom" }, { status: 500 }))
    await expect(persistence.delete("t1", ["e"])).rejects.toBeInstanceOf(CloudAPIError)
  })

  it("update(threadId, id, format, content) with no mapping warns and sends nothing", async () => {
    const { fake, persistence } = setup()
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {})
    expect(await persistence.update("t1", "never-stored", "svc/v0", { text: "x" })).toBeUndefined()
    expect(fake.sent).toHaveLength(0)
    expect(warn).toHaveBeenCalledWith("Skipping update for message never-stored: no remote id is mapped.")

    // With a mapping: PUT to the remote id, after a create under way.
    const create = held()
    fake.answer(create.answer)
    const append = persistence.append("t1", "local-1", null, "svc/v0", { text: "draft" })
    const update = persistence.update("t1", "local-1", "svc/v0", { text: "final" })
    await settle()
    expect(fake.sent).toHaveLength(1)
    create.release(created("r-1"))
    await Promise.all([append, update])
    const put = fake.sent[1]
    expect([put?.method, put?.path]).toEqual(["PUT", `${MESSAGES}/r-1`])
    expect(FakeFetch.json(put)).toEqual({ content: { text: "final" } })
    expect(warn).toHaveBeenCalledOnce()
  })

  it("load(threadId, format?) pages with limit=200&after=<last id>&order=desc until a short page: newest first", async () => {
    const all = rows(430)
    const { fake, persistence } = setup(pagedList(all))
    const loaded = await persistence.load("t1", "svc/v0")
    expect(loaded.map((message) => message.id)).toEqual(all.map((row) => row.id).reverse())
    expect(loaded[0]?.created_at).toBeInstanceOf(Date)
    expect(fake.sent.map((sent) => `${sent.method} ${sent.path}`)).toEqual([
      `GET ${MESSAGES}?format=svc%2Fv0&limit=200&order=desc`,
      `GET ${MESSAGES}?format=svc%2Fv0&limit=200&after=m231&order=desc`,
      `GET ${MESSAGES}?format=svc%2Fv0&limit=200&after=m031&order=desc`
    ])

    // Exactly 200: one more (empty) page ends it; without a format none is sent.
    const even = setup(pagedList(rows(200)))
    expect(await even.persistence.load("t1")).toHaveLength(200)
    expect(even.fake.sent.map((sent) => sent.path)).toEqual([
      `${MESSAGES}?limit=200&order=desc`,
      `${MESSAGES}?limit=200&after=m001&order=desc`
    ])

    // 199 rows are a short page: one request.
    const short = setup(pagedList(rows(199)))
    expect(await short.persistence.load("t1")).toHaveLength(199)
    expect(short.fake.sent).toHaveLength(1)
  })

  it("load stops when a page repeats seen ids", async () => {
    // A server that cannot resolve the second cursor replays the first page: 400 distinct rows, 3 requests.
    const all = rows(450)
    const replaying = setup(capped(pagedList(all, (after) => after === "m051")))
    const loaded = await replaying.persistence.load("t1")
    expect(loaded.map((message) => message.id)).toEqual(
      all
        .map((row) => row.id)
        .reverse()
        .slice(0, 400)
    )
    expect(replaying.fake.sent).toHaveLength(3)

    // A server ignoring `after` altogether: one page read twice, no duplicates.
    const ignoring = setup(capped(() => json({ messages: rows(200) })))
    expect(await ignoring.persistence.load("t1")).toHaveLength(200)
    expect(ignoring.fake.sent).toHaveLength(2)

    // A page that repeats some seen rows besides new ones: the repeats are dropped and the walk goes on.
    const inclusive = (sent: Sent) => {
      const after = queryOf(sent).get("after")
      const start = after === null ? 0 : all.findIndex((row) => row.id === after)
      return json({ messages: all.slice(start, start + 200) })
    }
    const overlapping = setup(capped(inclusive))
    const walked = await overlapping.persistence.load("t1")
    expect(walked.map((message) => message.id)).toEqual(all.map((row) => row.id))
    expect(overlapping.fake.sent).toHaveLength(3)
  })

  it("load: loaded ids map to themselves", async () => {
    const { fake, persistence } = setup(pagedList(rows(2)))
    fake.answer(created("r-local"))
    await persistence.append("t1", "m002", null, "svc/v0", {})
    const loaded = await persistence.load("t1")
    expect(loaded.map((message) => message.id)).toEqual(["m002", "m001"])
    expect(persistence.isPersisted("m001")).toBe(true)
    expect(persistence.getResolvedRemoteId("m001")).toBe("m001")
    expect(await persistence.getRemoteId("m001")).toBe("m001")
    // An id the map already has keeps its remote id.
    expect(persistence.getResolvedRemoteId("m002")).toBe("r-local")
    // A child of a loaded message goes under it; an update of one goes to it.
    fake.answer(created("r-child"), new Response(null, { status: 204 }))
    await persistence.append("t1", "child", "m001", "svc/v0", {})
    await persistence.update("t1", "m001", "svc/v0", { edited: true })
    expect(creates(fake).at(-1)).toMatchObject({ parent_id: "m001" })
    expect(fake.sent.at(-1)?.path).toBe(`${MESSAGES}/m001`)
  })

  it("isPersisted, getRemoteId, getResolvedRemoteId", async () => {
    const { fake, persistence } = setup()
    const create = held()
    fake.answer(create.answer)
    expect(persistence.isPersisted("local-1")).toBe(false)
    expect(await persistence.getRemoteId("local-1")).toBeUndefined()
    const append = persistence.append("t1", "local-1", null, "svc/v0", {})
    // Under way: persisted, no resolved id yet, getRemoteId waits for it.
    expect(persistence.isPersisted("local-1")).toBe(true)
    expect(persistence.getResolvedRemoteId("local-1")).toBeUndefined()
    const remote = persistence.getRemoteId("local-1")
    create.release(created("r-1"))
    expect(await remote).toBe("r-1")
    await append
    expect(persistence.getResolvedRemoteId("local-1")).toBe("r-1")
    // Prototype names are ordinary ids.
    expect(persistence.isPersisted("__proto__")).toBe(false)
    expect(persistence.getResolvedRemoteId("constructor")).toBeUndefined()
  })

  it("reset(): calls in flight no longer fill the new map", async () => {
    const { fake, persistence } = setup()
    fake.answer(created("r-0"))
    await persistence.append("t1", "old", null, "svc/v0", {})
    persistence.reset()
    expect(persistence.isPersisted("old")).toBe(false)

    // An append answered after the reset: it resolves, and the new map stays empty.
    const create = held()
    fake.answer(create.answer)
    const append = persistence.append("t1", "local-1", null, "svc/v0", {})
    persistence.reset()
    create.release(created("r-1"))
    await expect(append).resolves.toBeUndefined()
    expect(persistence.isPersisted("local-1")).toBe(false)

    // A load whose last page arrives after the reset: it returns every row and maps none of them.
    const all = rows(201)
    const lastPage = held()
    fake.answer(json({ messages: all.slice(0, 200) }), lastPage.answer)
    const load = persistence.load("old-thread")
    await vi.waitFor(() => expect(fake.sent.filter((sent) => sent.method === "GET")).toHaveLength(2))
    persistence.reset()
    // Meanwhile the new thread appends m001 under its own remote id.
    fake.answer(created("r-new"))
    await persistence.append("t1", "m001", null, "svc/v0", {})
    lastPage.release(json({ messages: all.slice(200) }))
    expect((await load).map((message) => message.id)).toEqual(all.map((row) => row.id))
    expect(all.filter((row) => persistence.isPersisted(String(row.id))).map((row) => row.id)).toEqual(["m001"])
    expect(persistence.getResolvedRemoteId("m001")).toBe("r-new")

    // A failing call from before the reset fails its caller only.
    const failing = held()
    fake.answer(failing.answer)
    const failed = persistence.load("old-thread")
    persistence.reset()
    fake.answer(created("r-after"))
    await persistence.append("t1", "after", null, "svc/v0", {})
    failing.release(json({ error: "internal", message: "x" }, { status: 500 }))
    await expect(failed).rejects.toBeInstanceOf(CloudAPIError)
    expect(persistence.getResolvedRemoteId("after")).toBe("r-after")
  })
})

/** A note app's message, stored as { text, author } in the format "notes/v1". */
interface Note {
  readonly id: string
  readonly text: string
}
type StoredNote = { readonly text: string; readonly author: string }

const notes: MessageFormatAdapter<Note, StoredNote> = {
  format: "notes/v1",
  encode: ({ message }) => ({ text: message.text, author: "me" }),
  decode: ({ id, parent_id, content }) => ({ parentId: parent_id, message: { id, text: content.text } }),
  getId: (message) => message.id
}

describe("createFormattedPersistence", () => {
  it("createFormattedPersistence(persistence, adapter): append(threadId, { parentId, message })", async () => {
    const { fake, persistence } = setup()
    const formatted = createFormattedPersistence(persistence, notes)
    const root = held()
    fake.answer(root.answer, created("r-b"))
    const appends = [
      formatted.append("t1", { parentId: null, message: { id: "a", text: "hello" } }),
      formatted.append("t1", { parentId: "a", message: { id: "b", text: "world" } })
    ]
    root.release(created("r-a"))
    expect(await Promise.all(appends)).toEqual([undefined, undefined])
    // Stored under the adapter's id (sent as external_id), in its format, with its encoding (the content has no id).
    expect(creates(fake)).toEqual([
      { parent_id: null, format: "notes/v1", content: { text: "hello", author: "me" }, external_id: "a" },
      { parent_id: "r-a", format: "notes/v1", content: { text: "world", author: "me" }, external_id: "b" }
    ])
    expect([formatted.isPersisted("a"), formatted.isPersisted("b"), formatted.isPersisted("c")]).toEqual([
      true,
      true,
      false
    ])
    expect(persistence.getResolvedRemoteId("b")).toBe("r-b")
  })

  it("createFormattedPersistence: update only when the wrapped one has it", async () => {
    const { fake, persistence } = setup()
    const formatted = createFormattedPersistence(persistence, notes)
    fake.answer(created("r-a"))
    await formatted.append("t1", { parentId: null, message: { id: "a", text: "draft" } })
    expect(formatted.update).toBeTypeOf("function")
    // The local id (the adapter's by default, or the one given) goes through the wrapped map.
    await formatted.update?.("t1", { parentId: null, message: { id: "a", text: "final" } })
    await formatted.update?.("t1", { parentId: null, message: { id: "ignored", text: "again" } }, "a")
    const puts = fake.sent.filter((sent) => sent.method === "PUT")
    expect(puts.map((sent) => sent.path)).toEqual([`${MESSAGES}/r-a`, `${MESSAGES}/r-a`])
    expect(puts.map((sent) => FakeFetch.json(sent))).toEqual([
      { content: { text: "final", author: "me" } },
      { content: { text: "again", author: "me" } }
    ])

    const withoutUpdate: MessagePersistenceLike = {
      append: (...args) => persistence.append(...args),
      load: (threadId, format) => persistence.load(threadId, format),
      isPersisted: (messageId) => persistence.isPersisted(messageId)
    }
    expect(createFormattedPersistence(withoutUpdate, notes).update).toBeUndefined()
  })

  it("createFormattedPersistence: delete only when the wrapped one has it; run phases go through", async () => {
    const calls: Array<ReadonlyArray<unknown>> = []
    const recording: MessagePersistenceLike = {
      append: async (...args) => {
        calls.push(["append", ...args])
      },
      update: async (...args) => {
        calls.push(["update", ...args])
      },
      delete: async (...args) => {
        calls.push(["delete", ...args])
      },
      load: async () => [],
      isPersisted: () => true
    }
    const formatted = createFormattedPersistence(recording, notes)
    await formatted.append("t1", { parentId: null, message: { id: "a", text: "…" } }, "running")
    await formatted.update?.("t1", { parentId: null, message: { id: "a", text: "done" } }, "a", "done")
    await formatted.delete?.("t1", [
      { parentId: null, message: { id: "a", text: "done" } },
      { parentId: "a", message: { id: "b", text: "more" } }
    ])
    expect(calls).toEqual([
      ["append", "t1", "a", null, "notes/v1", { text: "…", author: "me" }, "running"],
      ["update", "t1", "a", "notes/v1", { text: "done", author: "me" }, "done"],
      ["delete", "t1", ["a", "b"]]
    ])
    // Over CloudMessagePersistence: the messages of the items' local ids, deleted by their remote ids.
    const { fake, persistence } = setup()
    fake.answer(created("r-a"), json({ deleted: 1 }))
    const cloudFormatted = createFormattedPersistence(persistence, notes)
    await cloudFormatted.append("t1", { parentId: null, message: { id: "a", text: "x" } })
    await cloudFormatted.delete?.("t1", [{ parentId: null, message: { id: "a", text: "x" } }])
    const deletes = fake.sent.filter((sent) => sent.method === "DELETE")
    expect(deletes.map((sent) => FakeFetch.json(sent))).toEqual([{ message_ids: ["r-a"] }])
    expect(
      createFormattedPersistence({ append: recording.append, load: recording.load, isPersisted: () => false }, notes)
        .delete
    ).toBeUndefined()
  })

  it("createFormattedPersistence: load(threadId) filters by the adapter's format, decodes, and reverses", async () => {
    const listed = [
      messageWire({ id: "m1", parent_id: null, format: "notes/v1", content: { text: "first", author: "me" } }),
      messageWire({ id: "m2", parent_id: "m1", format: "svc/v0", content: { role: "user" } }),
      messageWire({ id: "m3", parent_id: "m1", format: "notes/v1", content: { text: "second", author: "me" } })
    ]
    // Newest first, as the persistence asks (order=desc).
    const { fake, persistence } = setup(() => json({ messages: [...listed].reverse() }))
    const loaded = await createFormattedPersistence(persistence, notes).load("t1")
    // The format is asked of the server, and filtered again here (a server may ignore it).
    expect(fake.sent.map((sent) => sent.path)).toEqual([`${MESSAGES}?format=notes%2Fv1&limit=200&order=desc`])
    expect(loaded).toEqual({
      messages: [
        { parentId: null, message: { id: "m1", text: "first" } },
        { parentId: "m1", message: { id: "m3", text: "second" } }
      ]
    })
    expect(persistence.isPersisted("m3")).toBe(true)
  })
})
