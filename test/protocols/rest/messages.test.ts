import * as Redacted from "effect/Redacted"
import pg from "pg"
import { beforeAll, describe, expect, it } from "vitest"
import {
  asJwtUser,
  asProject,
  expectError,
  expectNoContent,
  getThread,
  ISO_MS,
  listMessages,
  MESSAGE_KEYS,
  newMessage,
  newThread,
  rawRequest
} from "../../support/helpers.js"
import { asUser, createProject, type Gateway, stores, type UserClient, useGateway } from "../../support/layers.js"

const MAX_CONTENT = 65_536
/** A content object whose JSON.stringify is exactly `bytes` UTF-8 bytes, built from `unit` (1, 2 or 4 bytes). */
const contentOf = (bytes: number, unit = "x") => {
  const unitBytes = Buffer.byteLength(unit)
  const envelope = Buffer.byteLength('{"t":""}')
  const count = Math.floor((bytes - envelope) / unitBytes)
  const pad = "y".repeat(bytes - envelope - count * unitBytes)
  const content = { t: unit.repeat(count) + pad }
  expect(Buffer.byteLength(JSON.stringify(content))).toBe(bytes)
  return content
}

describe.each(stores)("messages ($name)", (storeUnderTest) => {
  const handle = useGateway(storeUnderTest)
  let gateway: Gateway
  let project: { project_id: string; api_key: string }
  let apiKey: string
  let alice: UserClient
  let alex: UserClient
  let bob: UserClient

  beforeAll(async () => {
    gateway = handle.current
    project = await createProject(gateway)
    apiKey = project.api_key
    alice = asUser(gateway, project.api_key, "alice", "ws-msg")
    alex = asUser(gateway, project.api_key, "alex", "ws-msg")
    bob = asUser(gateway, project.api_key, "bob", "ws-other")
  })
  describe("create and list", () => {
    it("POST answers 201 { message_id }; the list answers Message objects", async () => {
      const threadId = await newThread(alice)
      const content = { role: "user", parts: [{ type: "text", text: "héllo 👋" }], n: 1.5, ok: true, none: null }
      const created = await alice("POST", `/threads/${threadId}/messages`, {
        body: { parent_id: null, format: "svc/v0", content }
      })
      expect(created.status).toBe(201)
      expect(Object.keys(created.body)).toEqual(["message_id"])
      expect(created.body.message_id).toBeTypeOf("string")
      expect(created.body.message_id.length).toBeLessThanOrEqual(48)

      const list = await alice("GET", `/threads/${threadId}/messages`)
      expect(list.status).toBe(200)
      expect(list.headers.get("content-type")).toMatch(/^application\/json/)
      expect(Object.keys(list.body)).toEqual(["messages"])
      const [message] = list.body.messages
      expect(Object.keys(message).sort()).toEqual(MESSAGE_KEYS)
      expect(message).toMatchObject({
        id: created.body.message_id,
        parent_id: null,
        height: 0,
        format: "svc/v0",
        content
      })
      expect(message.created_at).toMatch(ISO_MS)
      expect(message.updated_at).toMatch(ISO_MS)
    })

    it("height is 0 for a root and parent + 1 otherwise", async () => {
      const threadId = await newThread(alice)
      const root = await newMessage(alice, threadId)
      const child = await newMessage(alice, threadId, { parent: root })
      const grandchild = await newMessage(alice, threadId, { parent: child })
      const sibling = await newMessage(alice, threadId, { parent: root })
      const secondRoot = await newMessage(alice, threadId)
      const byId = new Map((await listMessages(alice, threadId)).map((m) => [m.id, m]))
      expect(byId.get(root)).toMatchObject({ height: 0, parent_id: null })
      expect(byId.get(child)).toMatchObject({ height: 1, parent_id: root })
      expect(byId.get(grandchild)).toMatchObject({ height: 2, parent_id: child })
      expect(byId.get(sibling)).toMatchObject({ height: 1, parent_id: root })
      expect(byId.get(secondRoot)).toMatchObject({ height: 0, parent_id: null })
    })

    it("a parent from another thread, or unknown, is 400; an unknown thread is 404", async () => {
      const threadA = await newThread(alice)
      const threadB = await newThread(alice)
      const inB = await newMessage(alice, threadB)
      const post = (threadId: string, parent: unknown) =>
        alice("POST", `/threads/${threadId}/messages`, { body: { parent_id: parent, format: "svc/v0", content: {} } })
      expectError(await post(threadA, inB), 400, "parent_id")
      expectError(await post(threadA, "msg_01JD0000000000000000000000"), 400, "parent_id")
      expectError(await post(threadA, 42), 400, "parent_id")
      expectError(await post("thread_01JD0000000000000000000000", null), 404)
      expect(await listMessages(alice, threadA)).toEqual([])
    })

    it("creating a message moves last_message_at forward, never backward", async () => {
      const past = await newThread(alice, { last_message_at: "2020-01-01T00:00:00.000Z" })
      await newMessage(alice, past)
      const [message] = await listMessages(alice, past)
      const moved = await getThread(alice, past)
      expect(moved.last_message_at).toBe(message.created_at)
      expect(Date.parse(moved.last_message_at)).toBeGreaterThan(Date.parse("2020-01-01T00:00:00.000Z"))

      const future = "2099-12-31T23:59:59.999Z"
      const ahead = await newThread(alice, { last_message_at: future })
      await newMessage(alice, ahead)
      expect((await getThread(alice, ahead)).last_message_at).toBe(future)
    })

    it("messages list oldest first", async () => {
      const threadId = await newThread(alice)
      const ids: Array<string> = []
      for (let i = 0; i < 5; i++) ids.push(await newMessage(alice, threadId, { content: { i } }))
      const list = await listMessages(alice, threadId)
      expect(list.map((m) => m.id)).toEqual(ids)
      const times = list.map((m) => Date.parse(m.created_at))
      expect([...times].sort((a, b) => a - b)).toEqual(times)
    })

    it("a message id is always above the thread's largest so far (ids grow in commit order within a thread)", async () => {
      const threadId = await newThread(alice)
      const first = await newMessage(alice, threadId)
      // As if an append on another gateway, whose clock runs ahead, had committed a larger id. The id made
      // above one is in its next millisecond (MessagesRepo idAboveSql), so the second is a millisecond after
      // the first, and stays the largest when set.
      const ahead = [`msg_7ZZZZZZZZY${"Z".repeat(16)}`, `msg_7ZZZZZZZZZ${"Z".repeat(16)}`]
      const made: Array<string> = []
      for (const largest of ahead) {
        await gateway.sql("UPDATE threads SET last_message_id = $1 WHERE id = $2", [largest, threadId])
        const id = await newMessage(alice, threadId)
        expect(id > largest, `${id} > ${largest}`).toBe(true)
        expect(id).toMatch(/^msg_[0-9A-HJKMNP-TV-Z]{26}$/)
        made.push(id)
      }
      // The thread remembers its largest: the next one follows it, whatever this process's clock says.
      const next = await newMessage(alice, threadId, { parent: first })
      expect(next > (made[1] ?? "")).toBe(true)
      const ids = (await listMessages(alice, threadId)).map((m) => m.id)
      expect(ids).toEqual([first, ...made, next])
      expect((await listMessages(alice, threadId, `?after=${ids[1]}`)).map((m) => m.id)).toEqual(ids.slice(2))
    })

    it("the id after a thread's largest is not the next id of this process's sequence (no collision across threads)", async () => {
      // The sequence's next id after L is L + 1; an id taken after a thread's largest must not be it, or two
      // threads could be given the same id (the primary key is per project).
      const threadA = await newThread(alice)
      const threadB = await newThread(alice)
      const largest = "msg_7ZZZZZZZZZZZZZZZZZZZZZZZ00"
      await gateway.sql("UPDATE threads SET last_message_id = $1 WHERE id = $2", [largest, threadA])
      const plusOne = "msg_7ZZZZZZZZZZZZZZZZZZZZZZZ01"
      await gateway.sql(
        "INSERT INTO messages (project_id, thread_id, id, user_id, height, format, content) SELECT project_id, id, $1, 'alice', 0, 'svc/v0', '{}' FROM threads WHERE id = $2",
        [plusOne, threadB]
      )
      const id = await newMessage(alice, threadA)
      expect(id > largest).toBe(true)
      expect(id).not.toBe(plusOne)
    })
  })

  describe("external ids (later 0.2 clients)", () => {
    const post = (client: UserClient, threadId: string, body: Record<string, unknown>) =>
      client("POST", `/threads/${threadId}/messages`, { body: { format: "svc/v0", content: {}, ...body } })
    const created = async (client: UserClient, threadId: string, body: Record<string, unknown>) => {
      const reply = await post(client, threadId, body)
      expect(reply.status, reply.text).toBe(201)
      return reply.body.message_id as string
    }
    const usedMessages = async () => {
      const reply = await asProject(gateway, apiKey)("/usage/period")
      expect(reply.status, reply.text).toBe(200)
      return reply.body.messages as number
    }

    it("external_id is stored and answered on every message, null when absent, in both lists", async () => {
      const threadId = await newThread(alice)
      const withId = await created(alice, threadId, { external_id: "client-1" })
      const without = await created(alice, threadId, { parent_id: withId })
      const asNull = await created(alice, threadId, { external_id: null, parent_external_id: null })
      const expected = [
        { id: withId, external_id: "client-1", parent_id: null },
        { id: without, external_id: null, parent_id: withId },
        { id: asNull, external_id: null, parent_id: null }
      ]
      const listed = await listMessages(alice, threadId)
      expect(listed).toMatchObject(expected)
      for (const message of listed) expect(Object.keys(message).sort()).toEqual(MESSAGE_KEYS)
      const viaProject = await asProject(gateway, apiKey)(`/threads/${threadId}/messages`)
      expect(viaProject.body.messages).toMatchObject(expected)
    })

    // A re-post with other content replaces it: messages-order-replace.test.ts (issue 26).
    it("a second create with the thread's external_id and the same content answers 200 and the first message's id, stores and counts nothing", async () => {
      const threadId = await newThread(alice)
      const first = await created(alice, threadId, { external_id: "retry-me", content: { text: "first" } })
      const before = await getThread(alice, threadId)
      const counted = await usedMessages()
      const again = await post(alice, threadId, { external_id: "retry-me", content: { text: "first" } })
      expect(again.status, again.text).toBe(200)
      expect(again.body).toEqual({ message_id: first })
      const listed = await listMessages(alice, threadId)
      expect(listed).toHaveLength(1)
      expect(listed[0]).toMatchObject({ id: first, content: { text: "first" } })
      expect(await getThread(alice, threadId)).toEqual(before)
      expect(await usedMessages()).toBe(counted)
      // Unique per thread: another thread takes the same external_id for a message of its own.
      const otherThread = await newThread(alice)
      const other = await created(alice, otherThread, { external_id: "retry-me" })
      expect(other).not.toBe(first)
      // Once the message is deleted, its external_id makes a new one.
      await alice("DELETE", `/threads/${threadId}/messages`, { body: { message_ids: [first] } })
      const renewed = await created(alice, threadId, { external_id: "retry-me" })
      expect(renewed).not.toBe(first)
    })

    it("concurrent creates with one external_id store one message and all answer its id", async () => {
      const threadId = await newThread(alice)
      const replies = await Promise.all(
        Array.from({ length: 12 }, (_, i) => post(alice, threadId, { external_id: "racing", content: { i } }))
      )
      for (const reply of replies) expect([200, 201], reply.text).toContain(reply.status)
      expect(replies.filter((reply) => reply.status === 201)).toHaveLength(1)
      expect(new Set(replies.map((reply) => reply.body.message_id)).size).toBe(1)
      const listed = await listMessages(alice, threadId)
      expect(listed.map((m) => m.id)).toEqual([replies[0]?.body.message_id])
    })

    // Only PostgreSQL runs statements side by side: the embedded store takes them one at a time.
    it.skipIf(storeUnderTest.name !== "postgres")(
      "an append whose external_id another commits while it waits for the thread answers that message (200)",
      async () => {
        if (handle.store.kind !== "postgres") throw new Error("a PostgreSQL store")
        const threadId = await newThread(alice)
        const rival = "msg_00000000000000000000000001"
        const blocker = new pg.Client({ connectionString: Redacted.value(handle.store.url) })
        await blocker.connect()
        try {
          // As a concurrent append would: the thread's lock, its message with the external_id, the thread's
          // largest id moved to it (below the gateway's next id, so the waiting append goes on to insert).
          await blocker.query("BEGIN")
          await blocker.query("SELECT 1 FROM threads WHERE id = $1 FOR NO KEY UPDATE", [threadId])
          await blocker.query(
            `INSERT INTO messages (project_id, thread_id, id, user_id, height, format, content, external_id)
              VALUES ($1, $2, $3, 'alice', 0, 'svc/v0', '{}', 'raced')`,
            [project.project_id, threadId, rival]
          )
          await blocker.query("UPDATE threads SET last_message_id = $1 WHERE id = $2", [rival, threadId])
          const waiting = post(alice, threadId, { external_id: "raced" })
          // Its statement took its snapshot and now waits for the thread's lock.
          for (let i = 0; i < 100; i++) {
            const { rows } = await blocker.query(
              "SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()"
            )
            if (rows[0].n > 0) break
            await new Promise((resolve) => setTimeout(resolve, 20))
          }
          await blocker.query("COMMIT")
          const reply = await waiting
          expect(reply.status, reply.text).toBe(200)
          expect(reply.body).toEqual({ message_id: rival })
          expect((await listMessages(alice, threadId)).map((m) => m.id)).toEqual([rival])
        } finally {
          await blocker.end()
        }
      }
    )

    it("parent_external_id names the parent by its external_id, in place of parent_id", async () => {
      const threadId = await newThread(alice)
      const root = await created(alice, threadId, { external_id: "root" })
      const child = await created(alice, threadId, { external_id: "child", parent_external_id: "root" })
      const grandchild = await created(alice, threadId, { parent_external_id: "child" })
      // Both given: they must name the same message.
      const agreed = await created(alice, threadId, { parent_id: root, parent_external_id: "root" })
      expect(await listMessages(alice, threadId)).toMatchObject([
        { id: root, parent_id: null, height: 0 },
        { id: child, parent_id: root, height: 1, external_id: "child" },
        { id: grandchild, parent_id: child, height: 2, external_id: null },
        { id: agreed, parent_id: root, height: 1 }
      ])
    })

    it("a parent_external_id of no message of the thread, or one that disagrees with parent_id, is 400", async () => {
      const threadId = await newThread(alice)
      const otherThread = await newThread(alice)
      const root = await created(alice, threadId, { external_id: "root" })
      const other = await created(alice, threadId, { external_id: "other" })
      await created(alice, otherThread, { external_id: "elsewhere" })
      expectError(await post(alice, threadId, { parent_external_id: "nobody" }), 400, "parent_external_id")
      expectError(await post(alice, threadId, { parent_external_id: "elsewhere" }), 400, "parent_external_id")
      expectError(
        await post(alice, threadId, { parent_id: root, parent_external_id: "other" }),
        400,
        "parent_external_id"
      )
      expectError(
        await post(alice, threadId, { parent_id: root, parent_external_id: "nobody" }),
        400,
        "parent_external_id"
      )
      expectError(await post(alice, threadId, { parent_id: "msg_nope", parent_external_id: "root" }), 400, "parent_id")
      expect((await listMessages(alice, threadId)).map((m) => m.id)).toEqual([root, other])
    })

    it("external ids: 1 to 255 characters (400 otherwise); another workspace's thread is 404 even for a known one", async () => {
      const threadId = await newThread(alice)
      const long = await created(alice, threadId, { external_id: "e".repeat(255) })
      expect((await listMessages(alice, threadId))[0]).toMatchObject({ id: long, external_id: "e".repeat(255) })
      expectError(await post(alice, threadId, { external_id: "e".repeat(256) }), 400, "external_id")
      expectError(await post(alice, threadId, { external_id: "" }), 400, "external_id")
      expectError(await post(alice, threadId, { external_id: 7 }), 400, "external_id")
      expectError(await post(alice, threadId, { parent_external_id: "p".repeat(256) }), 400, "parent_external_id")
      expectError(await post(alice, threadId, { parent_external_id: "" }), 400, "parent_external_id")
      // The message exists, but not for bob: no 200 that would tell him so.
      expectError(await post(bob, threadId, { external_id: "e".repeat(255) }), 404)
      expect(await listMessages(alice, threadId)).toHaveLength(1)
    })
  })

  describe("update", () => {
    it("PUT answers 204 and replaces the content", async () => {
      const threadId = await newThread(alice)
      const id = await newMessage(alice, threadId, { content: { text: "draft", extra: 1 } })
      const [before] = await listMessages(alice, threadId)
      expectNoContent(
        await alice("PUT", `/threads/${threadId}/messages/${id}`, { body: { content: { text: "final" } } })
      )
      const [after] = await listMessages(alice, threadId)
      expect(after.content).toEqual({ text: "final" })
      expect(after).toMatchObject({ id, created_at: before.created_at, height: 0, format: "svc/v0" })
      expect(Date.parse(after.updated_at)).toBeGreaterThanOrEqual(Date.parse(before.updated_at))
      expectError(
        await alice("PUT", `/threads/${threadId}/messages/msg_01JD0000000000000000000000`, { body: { content: {} } }),
        404
      )
    })
  })

  describe("content limits", () => {
    it.each([
      ["ASCII", "x"],
      ["2-byte", "é"],
      ["4-byte", "😀"]
    ])("content of 65,536 UTF-8 bytes passes and one byte more is 400 (%s)", async (_label, unit) => {
      const threadId = await newThread(alice)
      const inside = contentOf(MAX_CONTENT, unit)
      const id = await newMessage(alice, threadId, { content: inside })
      expect((await listMessages(alice, threadId))[0].content).toEqual(inside)
      const outside = contentOf(MAX_CONTENT + 1, unit)
      const post = await alice("POST", `/threads/${threadId}/messages`, {
        body: { parent_id: null, format: "svc/v0", content: outside }
      })
      expectError(post, 400, "content")
      expectNoContent(await alice("PUT", `/threads/${threadId}/messages/${id}`, { body: { content: inside } }))
      expectError(
        await alice("PUT", `/threads/${threadId}/messages/${id}`, { body: { content: outside } }),
        400,
        "content"
      )
      expect(await listMessages(alice, threadId)).toHaveLength(1)
    })

    it.each([
      ["an array", [1, 2]],
      ["a string", "text"],
      ["null", null],
      ["a number", 7]
    ])("content that is %s is 400 on create and update", async (_label, content) => {
      const threadId = await newThread(alice)
      const id = await newMessage(alice, threadId)
      const post = await alice("POST", `/threads/${threadId}/messages`, {
        body: { parent_id: null, format: "svc/v0", content }
      })
      expectError(post, 400, "content")
      expectError(await alice("PUT", `/threads/${threadId}/messages/${id}`, { body: { content } }), 400, "content")
    })

    it("format and content are required; an empty format is 400", async () => {
      const threadId = await newThread(alice)
      const post = (body: unknown) => alice("POST", `/threads/${threadId}/messages`, { body })
      expectError(await post({ parent_id: null, content: {} }), 400, "format")
      expectError(await post({ parent_id: null, format: "svc/v0" }), 400, "content")
      expectError(await post({ parent_id: null, format: "", content: {} }), 400, "format")
      const id = await newMessage(alice, threadId)
      expectError(await alice("PUT", `/threads/${threadId}/messages/${id}`, { body: {} }), 400, "content")
    })

    it("a NUL character in content is 400, and nothing is stored", async () => {
      const threadId = await newThread(alice)
      const reply = await alice("POST", `/threads/${threadId}/messages`, {
        body: { parent_id: null, format: "svc/v0", content: { text: "a\u0000b" } }
      })
      expectError(reply, 400, "content")
      expect(await listMessages(alice, threadId)).toEqual([])
    })

    it("content keeps a __proto__ key as data", async () => {
      const threadId = await newThread(alice)
      const raw = '{"parent_id":null,"format":"svc/v0","content":{"__proto__":{"x":1},"a":1}}'
      const reply = await alice("POST", `/threads/${threadId}/messages`, {
        raw,
        headers: { "content-type": "application/json" }
      })
      expect(reply.status, reply.text).toBe(201)
      const listed = await alice("GET", `/threads/${threadId}/messages`)
      expect(listed.text).toContain('"__proto__": {"x": 1}')
    })
  })

  // Two forms of one call: POST .../messages/delete, and DELETE .../messages that later 0.2 clients send.
  describe.each([
    { form: "POST /messages/delete", method: "POST", suffix: "/delete" },
    { form: "DELETE /messages", method: "DELETE", suffix: "" }
  ])("batch delete ($form)", ({ method, suffix }) => {
    const del = (client: UserClient, threadId: string, body: unknown) =>
      client(method, `/threads/${threadId}/messages${suffix}`, { body })

    it("deletes the messages and their descendants and answers { deleted }", async () => {
      const threadId = await newThread(alice)
      const root = await newMessage(alice, threadId)
      const a = await newMessage(alice, threadId, { parent: root })
      const a1 = await newMessage(alice, threadId, { parent: a })
      await newMessage(alice, threadId, { parent: a1 })
      const b = await newMessage(alice, threadId, { parent: root })
      const other = await newMessage(alice, threadId)
      const reply = await del(alice, threadId, { message_ids: [a, a, other] })
      expect(reply.status, reply.text).toBe(200)
      expect(reply.body).toEqual({ deleted: 4 })
      expect((await listMessages(alice, threadId)).map((m) => m.id)).toEqual([root, b])
      const again = await del(alice, threadId, { message_ids: [a, "nope"] })
      expect(again.status, again.text).toBe(200)
      expect(again.body).toEqual({ deleted: 0 })
    })

    it("takes 1 to 200 ids: 0 and 201 are 400, 200 pass", async () => {
      const threadId = await newThread(alice)
      const keep = await newMessage(alice, threadId)
      const gone = await newMessage(alice, threadId)
      const filler = (n: number) => Array.from({ length: n }, (_, i) => `msg_missing_${i}`)
      expectError(await del(alice, threadId, { message_ids: [] }), 400, "message_ids")
      expectError(await del(alice, threadId, { message_ids: [...filler(200), gone] }), 400, "message_ids")
      expectError(await del(alice, threadId, { message_ids: "all" }), 400, "message_ids")
      expectError(await del(alice, threadId, {}), 400, "message_ids")
      expect(await listMessages(alice, threadId)).toHaveLength(2)
      const ok = await del(alice, threadId, { message_ids: [...filler(199), gone] })
      expect(ok.status, ok.text).toBe(200)
      expect(ok.body).toEqual({ deleted: 1 })
      expect((await listMessages(alice, threadId)).map((m) => m.id)).toEqual([keep])
      expectError(await del(alice, "thread_01JD0000000000000000000000", { message_ids: [keep] }), 404)
    })

    it("a thread of another workspace is 404 and keeps its messages", async () => {
      const mine = await newThread(alice)
      const id = await newMessage(alice, mine)
      expectError(await del(bob, mine, { message_ids: [id] }), 404)
      expect((await listMessages(alice, mine)).map((m) => m.id)).toEqual([id])
    })
  })

  describe("batch delete: the DELETE form's body", () => {
    it("without a body, or with one that is not JSON, DELETE is 400 or 415 and deletes nothing", async () => {
      const threadId = await newThread(alice)
      const id = await newMessage(alice, threadId)
      // As for the POST form without a body: the request is refused as a whole.
      expectError(await alice("DELETE", `/threads/${threadId}/messages`), 400)
      expectError(await alice("DELETE", `/threads/${threadId}/messages`, { body: { ids: [id] } }), 400, "message_ids")
      const text = await alice("DELETE", `/threads/${threadId}/messages`, {
        raw: JSON.stringify({ message_ids: [id] }),
        headers: { "content-type": "text/plain" }
      })
      expectError(text, 415)
      expect((await listMessages(alice, threadId)).map((m) => m.id)).toEqual([id])
    })

    it("a chunked body is read; a body over the message routes' 128 KiB cap is 413", async () => {
      const threadId = await newThread(alice)
      const id = await newMessage(alice, threadId)
      const headers = {
        authorization: `Bearer ${apiKey}`,
        "svc-user-id": "alice",
        "svc-workspace-id": "ws-msg",
        "content-type": "application/json"
      }
      const url = `${gateway.baseUrl}/v1/threads/${threadId}/messages`
      const over = JSON.stringify({ message_ids: [id], pad: "x".repeat(128 * 1024) })
      expectError(await rawRequest(url, { method: "DELETE", headers, body: over }), 413)
      expectError(await rawRequest(url, { method: "DELETE", headers, body: over, chunked: true }), 413)
      const chunked = await rawRequest(url, {
        method: "DELETE",
        headers,
        body: JSON.stringify({ message_ids: [id] }),
        chunked: true
      })
      expect(chunked.status, chunked.text).toBe(200)
      expect(chunked.body).toEqual({ deleted: 1 })
    })

    it("a JWT caller on the frontend URL deletes with it too", async () => {
      const threadId = await newThread(alice)
      const id = await newMessage(alice, threadId)
      const jwt = await asJwtUser(gateway, project, "alice", "ws-msg")
      const reply = await jwt("DELETE", `/threads/${threadId}/messages`, { body: { message_ids: [id] } })
      expect(reply.status, reply.text).toBe(200)
      expect(reply.body).toEqual({ deleted: 1 })
      expect(await listMessages(alice, threadId)).toEqual([])
    })
  })

  describe("feedback", () => {
    it("answers { feedback_id, type, comment }; a second one by the same user replaces the first", async () => {
      const threadId = await newThread(alice)
      const id = await newMessage(alice, threadId)
      const path = `/threads/${threadId}/messages/${id}/feedback`
      const first = await alice("POST", path, { body: { type: "positive" } })
      expect(first.status, first.text).toBeLessThan(300)
      expect(Object.keys(first.body).sort()).toEqual(["comment", "feedback_id", "type"])
      expect(first.body).toMatchObject({ type: "positive", comment: null })
      expect(first.body.feedback_id).toBeTypeOf("string")
      const second = await alice("POST", path, { body: { type: "negative", comment: "wrong" } })
      expect(second.body).toEqual({ feedback_id: first.body.feedback_id, type: "negative", comment: "wrong" })
      const byAlex = await alex("POST", path, { body: { type: "positive" } })
      expect(byAlex.body.type).toBe("positive")
      expect(byAlex.body.feedback_id).not.toBe(first.body.feedback_id)
    })

    it("comment: 2,000 characters pass, 2,001 are 400; a type other than positive/negative is 400", async () => {
      const threadId = await newThread(alice)
      const id = await newMessage(alice, threadId)
      const post = (body: unknown) => alice("POST", `/threads/${threadId}/messages/${id}/feedback`, { body })
      const ok = await post({ type: "negative", comment: "c".repeat(2000) })
      expect(ok.status, ok.text).toBeLessThan(300)
      expect(ok.body.comment).toBe("c".repeat(2000))
      expectError(await post({ type: "negative", comment: "c".repeat(2001) }), 400, "comment")
      for (const type of ["neutral", "Positive", "", null, 1]) expectError(await post({ type }), 400, "type")
      expectError(await post({}), 400, "type")
    })

    it("feedback on an unknown message or thread is 404", async () => {
      const threadId = await newThread(alice)
      const body = { body: { type: "positive" } }
      expectError(
        await alice("POST", `/threads/${threadId}/messages/msg_01JD0000000000000000000000/feedback`, body),
        404
      )
      const id = await newMessage(alice, threadId)
      expectError(await alice("POST", `/threads/thread_01JD0000000000000000000000/messages/${id}/feedback`, body), 404)
    })
  })
})
