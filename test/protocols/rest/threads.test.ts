import { beforeAll, describe, expect, it } from "vitest"
import {
  asProject,
  expectError,
  expectNoContent,
  getThread,
  ISO_MS,
  listMessages,
  newMessage,
  newThread,
  THREAD_KEYS
} from "../../support/helpers.js"
import { asUser, createProject, type Gateway, NOW, stores, type UserClient, useGateway } from "../../support/layers.js"

describe.each(stores)("threads ($name)", (storeUnderTest) => {
  const handle = useGateway(storeUnderTest)
  let gateway: Gateway
  let projectId: string
  let apiKey: string
  let alice: UserClient
  let bob: UserClient

  beforeAll(async () => {
    gateway = handle.current
    const project = await createProject(gateway)
    projectId = project.project_id
    apiKey = project.api_key
    alice = asUser(gateway, project.api_key, "alice", "ws-threads")
    bob = asUser(gateway, project.api_key, "bob", "ws-other")
  })
  describe("create and read", () => {
    it("POST /threads answers 201 { thread_id } and GET answers the Thread object", async () => {
      const created = await alice("POST", "/threads", {
        body: { last_message_at: NOW, title: "Hello", external_id: "ext-1", metadata: { a: 1, b: "two" } }
      })
      expect(created.status).toBe(201)
      expect(Object.keys(created.body)).toEqual(["thread_id"])
      const id = created.body.thread_id
      expect(id).toBeTypeOf("string")
      expect(id.length).toBeGreaterThan(0)
      expect(id.length).toBeLessThanOrEqual(48)

      const got = await alice("GET", `/threads/${id}`)
      expect(got.status).toBe(200)
      expect(got.headers.get("content-type")).toMatch(/^application\/json/)
      const thread = got.body
      expect(Object.keys(thread).sort()).toEqual(THREAD_KEYS)
      expect(thread).toMatchObject({
        id,
        project_id: projectId,
        workspace_id: "ws-threads",
        title: "Hello",
        external_id: "ext-1",
        last_message_at: NOW,
        is_archived: false,
        metadata: { a: 1, b: "two" }
      })
      for (const key of ["created_at", "updated_at", "last_message_at"]) expect(thread[key]).toMatch(ISO_MS)
    })

    it("optional fields may be left out", async () => {
      const id = await newThread(alice)
      const thread = await getThread(alice, id)
      expect(thread.last_message_at).toBe(NOW)
      expect(thread.is_archived).toBe(false)
      expect(thread.title ?? "").toBe("")
      expect(thread.external_id).toBeNull()
    })

    it("last_message_at is required and must be a timestamp", async () => {
      expectError(await alice("POST", "/threads", { body: { title: "x" } }), 400, "last_message_at")
      expectError(await alice("POST", "/threads", { body: { last_message_at: "yesterday" } }), 400, "last_message_at")
    })

    it("last_message_at keeps its milliseconds", async () => {
      const id = await newThread(alice, { last_message_at: "2025-01-02T03:04:05.678Z" })
      expect((await getThread(alice, id)).last_message_at).toBe("2025-01-02T03:04:05.678Z")
    })

    it("GET of an unknown thread is 404 not_found", async () => {
      expectError(await alice("GET", "/threads/thread_01JD0000000000000000000000"), 404)
      expectError(await alice("GET", `/threads/${"x".repeat(200)}`), 404)
    })
  })

  describe("upsert (later 0.2 clients)", () => {
    const upsert = (client: UserClient, body: Record<string, unknown>) =>
      client("POST", "/threads", { body: { last_message_at: NOW, upsert: true, ...body } })
    const withExternalId = async (client: UserClient, externalId: string) => {
      const reply = await client("GET", "/threads?limit=100")
      expect(reply.status, reply.text).toBe(200)
      return (reply.body.threads as Array<{ id: string; external_id: string | null }>)
        .filter((thread) => thread.external_id === externalId)
        .map((thread) => thread.id)
    }
    const usedThreads = async () => {
      const reply = await asProject(gateway, apiKey)("/usage/period")
      expect(reply.status, reply.text).toBe(200)
      return reply.body.threads as number
    }

    it("creates the thread (201), then answers it (200) as it is, writing and counting nothing", async () => {
      const first = await upsert(alice, { external_id: "up-1", title: "First", metadata: { n: 1 } })
      expect(first.status, first.text).toBe(201)
      expect(Object.keys(first.body)).toEqual(["thread_id"])
      const before = await getThread(alice, first.body.thread_id)
      expect(before).toMatchObject({ title: "First", external_id: "up-1", metadata: { n: 1 }, last_message_at: NOW })
      const counted = await usedThreads()
      const again = await upsert(alice, {
        external_id: "up-1",
        title: "Second",
        metadata: { n: 2 },
        last_message_at: "2030-01-01T00:00:00.000Z"
      })
      expect(again.status, again.text).toBe(200)
      expect(again.body).toEqual({ thread_id: first.body.thread_id })
      expect(await getThread(alice, first.body.thread_id)).toEqual(before)
      expect(await withExternalId(alice, "up-1")).toEqual([first.body.thread_id])
      expect(await usedThreads()).toBe(counted)
    })

    it("without upsert (or with false), a create behaves as before: a new thread each time", async () => {
      const first = await newThread(alice, { external_id: "plain-1" })
      const second = await newThread(alice, { external_id: "plain-1", upsert: false })
      expect(second).not.toBe(first)
      expect((await withExternalId(alice, "plain-1")).sort()).toEqual([first, second].sort())
      // An upsert then answers the oldest of them.
      const reply = await upsert(alice, { external_id: "plain-1" })
      expect(reply.status, reply.text).toBe(200)
      expect(reply.body.thread_id).toBe([first, second].sort()[0])
    })

    it("looks in the caller's workspace only: another workspace gets a thread of its own", async () => {
      const mine = await upsert(alice, { external_id: "shared-ext" })
      expect(mine.status, mine.text).toBe(201)
      const theirs = await upsert(bob, { external_id: "shared-ext" })
      expect(theirs.status, theirs.text).toBe(201)
      expect(theirs.body.thread_id).not.toBe(mine.body.thread_id)
      expect((await getThread(bob, theirs.body.thread_id)).workspace_id).toBe("ws-other")
      expectError(await bob("GET", `/threads/${mine.body.thread_id}`), 404)
    })

    it("concurrent upserts of one external_id make one thread and all answer its id", async () => {
      const replies = await Promise.all(Array.from({ length: 12 }, () => upsert(alice, { external_id: "racing" })))
      for (const reply of replies) expect([200, 201], reply.text).toContain(reply.status)
      expect(replies.filter((reply) => reply.status === 201)).toHaveLength(1)
      expect(new Set(replies.map((reply) => reply.body.thread_id)).size).toBe(1)
      expect(await withExternalId(alice, "racing")).toEqual([replies[0]?.body.thread_id])
    })

    it("upsert needs a non-empty external_id, and is a boolean: 400 otherwise, nothing created", async () => {
      const counted = await usedThreads()
      expectError(await upsert(alice, {}), 400, "external_id")
      expectError(await upsert(alice, { external_id: "" }), 400, "external_id")
      expectError(await upsert(alice, { external_id: "e".repeat(256) }), 400, "external_id")
      expectError(await upsert(alice, { external_id: "x", upsert: "yes" }), 400, "upsert")
      expectError(await upsert(alice, { external_id: "x", last_message_at: "soon" }), 400, "last_message_at")
      expect(await usedThreads()).toBe(counted)
      // A thread deleted is not found again: the upsert makes a new one.
      const made = await upsert(alice, { external_id: "e".repeat(255) })
      expect(made.status, made.text).toBe(201)
      expectNoContent(await alice("DELETE", `/threads/${made.body.thread_id}`))
      const remade = await upsert(alice, { external_id: "e".repeat(255) })
      expect(remade.status, remade.text).toBe(201)
      expect(remade.body.thread_id).not.toBe(made.body.thread_id)
    })
  })

  describe("update", () => {
    it("PUT answers 204 with an empty body and changes each given field only", async () => {
      const id = await newThread(alice, { title: "before", metadata: { keep: true }, external_id: "e" })
      const before = await getThread(alice, id)
      expectNoContent(await alice("PUT", `/threads/${id}`, { body: { title: "after" } }))
      const mid = await getThread(alice, id)
      expect(mid).toMatchObject({ title: "after", metadata: { keep: true }, external_id: "e", last_message_at: NOW })
      expect(Date.parse(mid.updated_at)).toBeGreaterThanOrEqual(Date.parse(before.updated_at))
      expect(mid.created_at).toBe(before.created_at)

      const later = "2027-03-04T05:06:07.890Z"
      expectNoContent(
        await alice("PUT", `/threads/${id}`, {
          body: { last_message_at: later, metadata: { replaced: 1 }, is_archived: true }
        })
      )
      expect(await getThread(alice, id)).toMatchObject({
        title: "after",
        last_message_at: later,
        metadata: { replaced: 1 },
        is_archived: true
      })
      expectNoContent(await alice("PUT", `/threads/${id}`, { body: { is_archived: false } }))
      expect((await getThread(alice, id)).is_archived).toBe(false)
    })

    it("PUT of an unknown thread is 404, with invalid fields 400", async () => {
      expectError(await alice("PUT", "/threads/thread_01JD0000000000000000000000", { body: { title: "x" } }), 404)
      const id = await newThread(alice)
      expectError(await alice("PUT", `/threads/${id}`, { body: { is_archived: "yes" } }), 400, "is_archived")
      expectError(await alice("PUT", `/threads/${id}`, { body: { last_message_at: "soon" } }), 400, "last_message_at")
    })
  })

  describe("delete", () => {
    it("DELETE answers 204, then the thread and its messages are gone", async () => {
      const id = await newThread(alice)
      await newMessage(alice, id, { content: { text: "bye" } })
      expect(await listMessages(alice, id)).toHaveLength(1)
      expectNoContent(await alice("DELETE", `/threads/${id}`))
      expectError(await alice("GET", `/threads/${id}`), 404)
      expectError(await alice("GET", `/threads/${id}/messages`), 404)
      expectError(await alice("DELETE", `/threads/${id}`), 404)
      const list = await alice("GET", "/threads?limit=100")
      expect(list.body.threads.map((t: { id: string }) => t.id)).not.toContain(id)
    })
  })

  // The limits: docs/api-and-auth.md "REST API" (its rules).
  describe("limits", () => {
    it("title: 255 characters pass, 256 are 400 on create and update", async () => {
      const id = await newThread(alice, { title: "t".repeat(255) })
      expect((await getThread(alice, id)).title).toBe("t".repeat(255))
      expectError(
        await alice("POST", "/threads", { body: { last_message_at: NOW, title: "t".repeat(256) } }),
        400,
        "title"
      )
      expectNoContent(await alice("PUT", `/threads/${id}`, { body: { title: "u".repeat(255) } }))
      expectError(await alice("PUT", `/threads/${id}`, { body: { title: "u".repeat(256) } }), 400, "title")
      expect((await getThread(alice, id)).title).toBe("u".repeat(255))
    })

    it("title counts characters, not bytes", async () => {
      const id = await newThread(alice, { title: "é".repeat(255) })
      expect((await getThread(alice, id)).title).toBe("é".repeat(255))
    })

    it("external_id: 255 characters pass, 256 are 400", async () => {
      const id = await newThread(alice, { external_id: "e".repeat(255) })
      expect((await getThread(alice, id)).external_id).toBe("e".repeat(255))
      expectError(
        await alice("POST", "/threads", { body: { last_message_at: NOW, external_id: "e".repeat(256) } }),
        400,
        "external_id"
      )
    })

    const keys = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, i]))

    it("metadata: 16 keys pass, 17 are 400 on create and update", async () => {
      const id = await newThread(alice, { metadata: keys(16) })
      expect((await getThread(alice, id)).metadata).toEqual(keys(16))
      expectError(
        await alice("POST", "/threads", { body: { last_message_at: NOW, metadata: keys(17) } }),
        400,
        "metadata"
      )
      expectError(await alice("PUT", `/threads/${id}`, { body: { metadata: keys(17) } }), 400, "metadata")
      expect((await getThread(alice, id)).metadata).toEqual(keys(16))
    })

    it("metadata: a key of 64 characters passes, 65 is 400", async () => {
      const id = await newThread(alice, { metadata: { ["k".repeat(64)]: 1 } })
      expect((await getThread(alice, id)).metadata).toEqual({ ["k".repeat(64)]: 1 })
      const over = { ["k".repeat(65)]: 1 }
      expectError(await alice("POST", "/threads", { body: { last_message_at: NOW, metadata: over } }), 400, "metadata")
      expectError(await alice("PUT", `/threads/${id}`, { body: { metadata: over } }), 400, "metadata")
    })

    it("metadata: a value of 512 characters serialized passes, 513 is 400", async () => {
      // JSON.stringify of a string adds two quotes.
      const inside = { v: "v".repeat(510) }
      const outside = { v: "v".repeat(511) }
      const nested = { v: { list: ["x".repeat(499)] } } // {"list":["..."]} = 13 + 499
      expect(JSON.stringify(nested.v)).toHaveLength(512)
      const id = await newThread(alice, { metadata: inside })
      expect((await getThread(alice, id)).metadata).toEqual(inside)
      await newThread(alice, { metadata: nested })
      expectError(
        await alice("POST", "/threads", { body: { last_message_at: NOW, metadata: outside } }),
        400,
        "metadata"
      )
      const nestedOver = { v: { list: ["x".repeat(500)] } }
      expectError(
        await alice("POST", "/threads", { body: { last_message_at: NOW, metadata: nestedOver } }),
        400,
        "metadata"
      )
      expectError(await alice("PUT", `/threads/${id}`, { body: { metadata: outside } }), 400, "metadata")
    })

    it.each([
      ["an array", [1, "two", { three: 3 }]],
      ["a string", "just text"],
      ["a number", 42],
      ["a boolean", true],
      ["an array of more than 16 items", Array.from({ length: 40 }, (_, i) => i)]
    ])("metadata may be %s, and reads back as sent", async (_label, metadata) => {
      const id = await newThread(alice, { metadata })
      expect((await getThread(alice, id)).metadata).toEqual(metadata)
      expectNoContent(await alice("PUT", `/threads/${id}`, { body: { metadata } }))
      expect((await getThread(alice, id)).metadata).toEqual(metadata)
    })

    it("metadata null reads back as null on create as on update", async () => {
      const viaPut = await newThread(alice, { metadata: { a: 1 } })
      expectNoContent(await alice("PUT", `/threads/${viaPut}`, { body: { metadata: null } }))
      expect((await getThread(alice, viaPut)).metadata).toBeNull()
      const viaPost = await newThread(alice, { metadata: null })
      expect((await getThread(alice, viaPost)).metadata).toBeNull()
    })

    it("deleting a thread deletes its messages and their feedback", async () => {
      const id = await newThread(alice)
      const reply = await alice("POST", `/threads/${id}/messages`, {
        body: { parent_id: null, format: "svc/v0", content: { t: 1 } }
      })
      const messageId = reply.body.message_id
      expect(
        (await alice("POST", `/threads/${id}/messages/${messageId}/feedback`, { body: { type: "positive" } })).status
      ).toBe(200)
      expectNoContent(await alice("DELETE", `/threads/${id}`))
      const [left] = await gateway.sql<{ messages: number; feedback: number }>(
        `SELECT (SELECT count(*)::int FROM messages WHERE thread_id = $1) AS messages,
                (SELECT count(*)::int FROM message_feedback WHERE thread_id = $1) AS feedback`,
        [id]
      )
      expect(left).toEqual({ messages: 0, feedback: 0 })
    })

    it.each([
      ["a bare date", "2026-11-22"],
      ["a local time", "2026-11-22T10:15:30.123"],
      ["a day that does not exist", "2026-02-31T00:00:00.000Z"],
      ["year 0", "0000-01-01T00:00:00.000Z"],
      ["a five-digit year", "+010000-01-01T00:00:00.000Z"],
      ["a negative year", "-000001-01-01T00:00:00.000Z"],
      ["a date in words", "Nov 22 2026"]
    ])("last_message_at as %s is 400 on create and update", async (_label, value) => {
      expectError(await alice("POST", "/threads", { body: { last_message_at: value } }), 400, "last_message_at")
      const id = await newThread(alice)
      expectError(await alice("PUT", `/threads/${id}`, { body: { last_message_at: value } }), 400, "last_message_at")
    })

    it("last_message_at with an offset or microseconds is read as the instant it names", async () => {
      const id = await newThread(alice, { last_message_at: "2026-11-22T12:15:30.123456+02:00" })
      expect((await getThread(alice, id)).last_message_at).toBe("2026-11-22T10:15:30.123Z")
      const leap = await newThread(alice, { last_message_at: "2028-02-29T00:00:00Z" })
      expect((await getThread(alice, leap)).last_message_at).toBe("2028-02-29T00:00:00.000Z")
    })

    it("metadata that is not an object: 512 characters serialized pass, 513 are 400", async () => {
      const id = await newThread(alice, { metadata: "v".repeat(510) })
      expect((await getThread(alice, id)).metadata).toBe("v".repeat(510))
      expectError(
        await alice("POST", "/threads", { body: { last_message_at: NOW, metadata: "v".repeat(511) } }),
        400,
        "metadata"
      )
    })

    it("metadata nested 64 levels passes, 65 is 400", async () => {
      // Arrays inside the object: 16 keys and the value size stay within limits.
      const nest = (levels: number): unknown => (levels === 0 ? 1 : [nest(levels - 1)])
      const inside = { v: nest(63) }
      const id = await newThread(alice, { metadata: inside })
      expect((await getThread(alice, id)).metadata).toEqual(inside)
      const outside = { v: nest(64) }
      expectError(
        await alice("POST", "/threads", { body: { last_message_at: NOW, metadata: outside } }),
        400,
        "metadata"
      )
    })

    it("text a database cannot store (NUL, an unpaired surrogate) is 400 naming the field", async () => {
      expectError(await alice("POST", "/threads", { body: { last_message_at: NOW, title: "a\u0000b" } }), 400, "title")
      expectError(
        await alice("POST", "/threads", { body: { last_message_at: NOW, metadata: { k: "\ud800" } } }),
        400,
        "metadata"
      )
    })

    it("a NUL character in a title is never a 500", async () => {
      const reply = await alice("POST", "/threads", { body: { last_message_at: NOW, title: "a\u0000b" } })
      expect([201, 400], reply.text).toContain(reply.status)
      if (reply.status === 400) expectError(reply, 400)
    })
  })
})
