/**
 * Issue 26 through real HTTP on every store: the message list's `order` (asc, the default, and desc,
 * keyset pages in both; the workspace, project and dashboard lists share the query), and a re-post of
 * a message by its `external_id` (docs/decisions.md "assistant-ui as the cloud client (issue 26)"):
 * 201 for a create, 200 with the content replaced (search text, `updated_at`) when it differs, 200
 * and nothing written when it is the same; neither counts a message nor sends message.created.
 */
import { beforeAll, describe, expect, it } from "vitest"
import { asProject, expectError, listMessages, newMessage, newThread } from "../../support/helpers.js"
import { asUser, createProject, type Gateway, stores, type UserClient, useGateway } from "../../support/layers.js"

const svc = (text: string) => ({ role: "assistant", content: [{ type: "text", text }] })

describe.each(stores)("message list order and re-posts by external_id ($name)", (storeUnderTest) => {
  const handle = useGateway(storeUnderTest)
  let gateway: Gateway
  let apiKey: string
  let alice: UserClient

  beforeAll(async () => {
    gateway = handle.current
    const project = await createProject(gateway, "issue-26")
    apiKey = project.api_key
    alice = asUser(gateway, apiKey, "alice", "ws-26")
  })

  /** Every id of the list walked by `after` with pages of `limit`, in the order given. */
  const walk = async (read: (query: string) => Promise<Array<{ id: string }>>, order: string, limit: number) => {
    const ids: Array<string> = []
    for (let page = 0; page < 20; page++) {
      const after = ids.at(-1)
      const rows = await read(`?limit=${limit}${order}${after === undefined ? "" : `&after=${after}`}`)
      ids.push(...rows.map((row) => row.id))
      if (rows.length < limit) return ids
    }
    throw new Error("the walk did not end")
  }

  describe("order", () => {
    it("asc (the default) gives oldest first, desc newest first; `after` pages on in either order", async () => {
      const threadId = await newThread(alice)
      const made: Array<string> = []
      for (let i = 0; i < 7; i++)
        made.push(await newMessage(alice, threadId, { parent: made.at(-1) ?? null, content: { i } }))
      const workspace = (query: string) => listMessages(alice, threadId, query)
      const project = async (query: string) => {
        const reply = await asProject(gateway, apiKey)(`/threads/${threadId}/messages${query}`)
        expect(reply.status, reply.text).toBe(200)
        return reply.body.messages as Array<{ id: string }>
      }
      const newestFirst = [...made].reverse()
      for (const read of [workspace, project]) {
        expect((await read("")).map((row) => row.id)).toEqual(made)
        expect((await read("?order=asc")).map((row) => row.id)).toEqual(made)
        expect((await read("?order=desc")).map((row) => row.id)).toEqual(newestFirst)
        expect(await walk(read, "&order=desc", 3)).toEqual(newestFirst)
        expect(await walk(read, "&order=asc", 3)).toEqual(made)
        expect(await walk(read, "", 2)).toEqual(made)
      }
      // `after` in desc order: the messages older than it.
      expect((await workspace(`?order=desc&after=${made[3]}`)).map((row) => row.id)).toEqual(made.slice(0, 3).reverse())
      // With a format filter too.
      const other = await newMessage(alice, threadId, { format: "ai-sdk/v6", content: { role: "user", parts: [] } })
      expect((await workspace("?order=desc&format=svc%2Fv0&limit=2")).map((row) => row.id)).toEqual(
        newestFirst.slice(0, 2)
      )
      expect((await workspace("?order=desc&limit=1")).map((row) => row.id)).toEqual([other])
    })

    it("another order is 400 naming order", async () => {
      const threadId = await newThread(alice)
      for (const order of ["DESC", "newest"])
        expectError(await alice("GET", `/threads/${threadId}/messages?order=${order}`), 400, "order")
    })
  })

  describe("re-post by external_id", () => {
    const post = (threadId: string, body: Record<string, unknown>) =>
      alice("POST", `/threads/${threadId}/messages`, { body: { parent_id: null, format: "svc/v0", ...body } })
    const usedMessages = async () => {
      const reply = await asProject(gateway, apiKey)("/usage/period")
      expect(reply.status, reply.text).toBe(200)
      return reply.body.messages as number
    }
    const searched = async (word: string) => {
      const reply = await alice("GET", `/threads/search?q=${word}`)
      expect(reply.status, reply.text).toBe(200)
      return (reply.body.results as Array<{ message_id: string | null }>).map((hit) => hit.message_id)
    }

    it("create 201; a re-post with other content 200, the content replaced and searchable; an identical one 200, nothing written", async () => {
      const threadId = await newThread(alice)
      const question = await newMessage(alice, threadId, { content: svc("what is a wombat") })
      const counted = await usedMessages()
      // While it streams: stored empty.
      const streaming = await post(threadId, { parent_id: question, external_id: "local-a1", content: svc("") })
      expect(streaming.status, streaming.text).toBe(201)
      const id = streaming.body.message_id as string
      const [first] = (await listMessages(alice, threadId)).filter((row) => row.id === id)
      expect(await usedMessages()).toBe(counted + 1)

      // The finished message, posted again: same id, its content now.
      await new Promise((resolve) => setTimeout(resolve, 5))
      const finished = await post(threadId, {
        parent_id: question,
        external_id: "local-a1",
        content: svc("a marsupial called quokkaesque")
      })
      expect(finished.status, finished.text).toBe(200)
      expect(finished.body).toEqual({ message_id: id })
      const listed = await listMessages(alice, threadId)
      expect(listed.map((row) => row.id)).toEqual([question, id])
      const replaced = listed[1]
      expect(replaced).toMatchObject({
        id,
        parent_id: question,
        external_id: "local-a1",
        height: 1,
        format: "svc/v0",
        created_at: first.created_at,
        content: svc("a marsupial called quokkaesque")
      })
      expect(replaced.updated_at > first.updated_at).toBe(true)
      // Search reads the new text; the project read API answers it too.
      expect(await searched("quokkaesque")).toEqual([id])
      const viaProject = await asProject(gateway, apiKey)(`/threads/${threadId}/messages?order=desc&limit=1`)
      expect(viaProject.body.messages[0]).toMatchObject({ id, content: svc("a marsupial called quokkaesque") })
      // Not a new message.
      expect(await usedMessages()).toBe(counted + 1)

      // The same again (a retry; key order does not count): 200, nothing written.
      const retry = await alice("POST", `/threads/${threadId}/messages`, {
        body: {
          content: { content: [{ text: "a marsupial called quokkaesque", type: "text" }], role: "assistant" },
          format: "svc/v0",
          external_id: "local-a1",
          parent_id: question
        }
      })
      expect(retry.status, retry.text).toBe(200)
      expect(retry.body).toEqual({ message_id: id })
      expect((await listMessages(alice, threadId))[1]).toEqual(replaced)
      expect(await usedMessages()).toBe(counted + 1)

      // Another format replaces the format too: the search text follows it.
      const asAiSdk = await post(threadId, {
        external_id: "local-a1",
        format: "ai-sdk/v6",
        content: { role: "assistant", parts: [{ type: "text", text: "now platypusish" }] }
      })
      expect(asAiSdk.status, asAiSdk.text).toBe(200)
      expect((await listMessages(alice, threadId))[1]).toMatchObject({ id, format: "ai-sdk/v6", parent_id: question })
      expect(await searched("platypusish")).toEqual([id])
      expect(await searched("quokkaesque")).toEqual([])
    })

    it("concurrent re-posts with other contents all answer the message's id and leave one of their contents", async () => {
      const threadId = await newThread(alice)
      const created = await post(threadId, { external_id: "racing", content: { n: -1 } })
      expect(created.status).toBe(201)
      const replies = await Promise.all(
        Array.from({ length: 8 }, (_, n) => post(threadId, { external_id: "racing", content: { n } }))
      )
      for (const reply of replies) {
        expect(reply.status, reply.text).toBe(200)
        expect(reply.body).toEqual({ message_id: created.body.message_id })
      }
      const listed = await listMessages(alice, threadId)
      expect(listed).toHaveLength(1)
      expect([0, 1, 2, 3, 4, 5, 6, 7]).toContain(listed[0].content.n)
    })

    it("a re-post of a deleted message's external_id creates a new message (201)", async () => {
      const threadId = await newThread(alice)
      const first = await post(threadId, { external_id: "gone", content: { v: 1 } })
      await alice("DELETE", `/threads/${threadId}/messages`, { body: { message_ids: [first.body.message_id] } })
      const again = await post(threadId, { external_id: "gone", content: { v: 2 } })
      expect(again.status, again.text).toBe(201)
      expect(again.body.message_id).not.toBe(first.body.message_id)
    })
  })
})
