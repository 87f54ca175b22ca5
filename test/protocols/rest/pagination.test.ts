import { beforeAll, describe, expect, it } from "vitest"
import { expectError, expectNoContent, inBatches, listMessages, newMessage, newThread } from "../../support/helpers.js"
import { asUser, createProject, type Gateway, NOW, stores, type UserClient, useGateway } from "../../support/layers.js"

interface ThreadRow {
  readonly id: string
  readonly last_message_at: string
  readonly is_archived: boolean
}

const ids = (rows: ReadonlyArray<{ id: string }>) => rows.map((row) => row.id)

/** The order of docs/decisions.md "Wire": last_message_at descending, then id descending. */
const expectedOrder = (rows: ReadonlyArray<ThreadRow>) =>
  ids(
    [...rows].sort((a, b) => {
      const byTime = Date.parse(b.last_message_at) - Date.parse(a.last_message_at)
      return byTime !== 0 ? byTime : a.id < b.id ? 1 : a.id > b.id ? -1 : 0
    })
  )

/** A time in 2026 chosen so that creation order and list order differ. */
const timeFor = (i: number) => new Date(Date.UTC(2026, 0, 1) + ((i * 7919) % 23) * 3_600_000).toISOString()

describe.each(stores)("pagination ($name)", (storeUnderTest) => {
  const handle = useGateway(storeUnderTest)
  let gateway: Gateway
  let apiKey: string
  /** A client in a workspace of its own, so each test sees only its own threads. */
  const inWorkspace = (workspace: string) => asUser(gateway, apiKey, "pat", workspace)

  const listThreads = async (client: UserClient, query: string): Promise<Array<ThreadRow>> => {
    const reply = await client("GET", `/threads${query}`)
    expect(reply.status, reply.text).toBe(200)
    expect(Object.keys(reply.body)).toEqual(["threads"])
    return reply.body.threads
  }

  /** Every page of `limit`, each page's `after` the id of the previous page's last thread. */
  const walkThreads = async (client: UserClient, limit: number, extra = "") => {
    const seen: Array<ThreadRow> = []
    for (let page = 0; page < 50; page++) {
      const after = seen.length === 0 ? "" : `&after=${seen[seen.length - 1]?.id}`
      const rows = await listThreads(client, `?limit=${limit}${after}${extra}`)
      expect(rows.length).toBeLessThanOrEqual(limit)
      seen.push(...rows)
      if (rows.length < limit) return seen
    }
    throw new Error("pagination did not end")
  }

  beforeAll(async () => {
    gateway = handle.current
    apiKey = (await createProject(gateway)).api_key
  })
  describe("GET /threads", () => {
    it("threads of one millisecond, apart by microseconds (an append's commit time), are each listed once", async () => {
      const client = inWorkspace("ws-micro")
      const made = [await newThread(client), await newThread(client), await newThread(client)]
      // An append moves last_message_at to its commit time, to the microsecond: the cursor must keep them.
      for (const [index, id] of made.entries()) {
        await gateway.sql("UPDATE threads SET last_message_at = $1::timestamptz WHERE id = $2", [
          `2026-11-20T10:00:00.123${index + 1}00Z`,
          id
        ])
      }
      const walked = await walkThreads(client, 1)
      expect(ids(walked)).toEqual([...made].reverse())
    })

    it("pages default to 20, limit=100 gives 100, limit=500 is clamped to 100", async () => {
      const client = inWorkspace("ws-many")
      await inBatches(105, () => newThread(client))
      expect(await listThreads(client, "")).toHaveLength(20)
      expect(await listThreads(client, "?limit=1")).toHaveLength(1)
      expect(await listThreads(client, "?limit=100")).toHaveLength(100)
      expect(await listThreads(client, "?limit=500")).toHaveLength(100)
      // However large: clamped, not refused (past 2^53 too), and leading zeros are plain decimal.
      expect(await listThreads(client, "?limit=99999999999999999999")).toHaveLength(100)
      expect(await listThreads(client, `?limit=${"9".repeat(400)}`)).toHaveLength(100)
      expect(await listThreads(client, "?limit=007")).toHaveLength(7)
      expect(await walkThreads(client, 100)).toHaveLength(105)
    })

    it.each(["0", "000", "-1", "1.5", "1.0", "abc", "1e400", "1e3", "0x10", "+5", "%205", "", "Infinity"])(
      "limit=%s is 400 invalid_request",
      async (limit) => {
        expectError(await inWorkspace("ws-bad")("GET", `/threads?limit=${limit}`), 400, "limit")
      }
    )

    it("orders by last_message_at descending, then id descending", async () => {
      const client = inWorkspace("ws-order")
      // Seven distinct times for 30 threads: many ties broken by id.
      await inBatches(30, (i) => newThread(client, { last_message_at: timeFor(i % 7) }))
      const all = await listThreads(client, "?limit=100")
      expect(all).toHaveLength(30)
      expect(ids(all)).toEqual(expectedOrder(all))
    })

    it("after = the id of the last thread walks every page with no duplicates or gaps", async () => {
      const client = inWorkspace("ws-walk")
      await inBatches(23, (i) => newThread(client, { last_message_at: timeFor(i % 5) }))
      const all = ids(await listThreads(client, "?limit=100"))
      for (const size of [1, 4, 7, 23]) {
        const walked = ids(await walkThreads(client, size))
        expect(walked).toEqual(all)
        expect(new Set(walked).size).toBe(23)
      }
    })

    it("after naming a deleted thread still continues where it was", async () => {
      const client = inWorkspace("ws-deleted-cursor")
      await inBatches(12, (i) => newThread(client, { last_message_at: timeFor(i) }))
      const all = ids(await listThreads(client, "?limit=100"))
      const firstPage = ids(await listThreads(client, "?limit=4"))
      expect(firstPage).toEqual(all.slice(0, 4))
      const cursor = firstPage[3] as string
      expectNoContent(await client("DELETE", `/threads/${cursor}`))
      const rest = ids(await listThreads(client, `?limit=100&after=${cursor}`))
      expect(rest).toEqual(all.slice(4))
    })

    it("after naming a deleted thread continues even when all threads share the same last_message_at", async () => {
      const client = inWorkspace("ws-deleted-cursor-ties")
      await inBatches(6, () => newThread(client, { last_message_at: NOW }))
      const all = ids(await listThreads(client, "?limit=100"))
      const cursor = all[2] as string
      expectNoContent(await client("DELETE", `/threads/${cursor}`))
      expect(ids(await listThreads(client, `?limit=100&after=${cursor}`))).toEqual(all.slice(3))
    })

    it("is_archived=true/false filters, absent returns all, anything else is 400", async () => {
      const client = inWorkspace("ws-archive")
      const created = await inBatches(7, (i) => newThread(client, { last_message_at: timeFor(i) }))
      const archived = created.slice(0, 3)
      for (const id of archived) {
        expectNoContent(await client("PUT", `/threads/${id}`, { body: { is_archived: true } }))
      }
      const yes = await listThreads(client, "?is_archived=true")
      expect(ids(yes).sort()).toEqual([...archived].sort())
      expect(yes.every((t) => t.is_archived === true)).toBe(true)
      const no = await listThreads(client, "?is_archived=false")
      expect(ids(no).sort()).toEqual(created.slice(3).sort())
      expect(no.every((t) => t.is_archived === false)).toBe(true)
      const every = await listThreads(client, "")
      expect(ids(every).sort()).toEqual([...created].sort())
      expect(ids(every)).toEqual(expectedOrder(every))
      // Paging within a filter.
      expect(ids(await walkThreads(client, 2, "&is_archived=true"))).toEqual(ids(yes))
      for (const value of ["maybe", "1", "yes"]) {
        expectError(await client("GET", `/threads?is_archived=${value}`), 400, "is_archived")
      }
    })

    it("an after that names no thread of this workspace is 400", async () => {
      const elsewhere = await inWorkspace("ws-other-cursor")("POST", "/threads", { body: { last_message_at: NOW } })
      expectError(await inWorkspace("ws-bad")("GET", `/threads?after=${elsewhere.body.thread_id}`), 400, "after")
      expectError(await inWorkspace("ws-bad")("GET", "/threads?after=thread_01M80KEP26YA9DZXRJENQJN9YP"), 400, "after")
    })

    it("a malformed after is 400 naming it", async () => {
      for (const after of ["garbage", "%00", "thread_", "x".repeat(300)]) {
        expectError(await inWorkspace("ws-bad")("GET", `/threads?after=${after}`), 400, "after")
      }
    })

    it("after a thread that moved (a new message) continues from where it is now", async () => {
      const client = inWorkspace("ws-moved")
      const ids: Array<string> = []
      for (let i = 0; i < 4; i++) {
        ids.push(await newThread(client, { last_message_at: `2026-01-0${i + 1}T00:00:00.000Z` }))
      }
      // Newest first: ids[3], ids[2], ids[1], ids[0]. Page 1 ends at ids[2].
      const first = await listThreads(client, "?limit=2")
      expect(first.map((thread) => thread.id)).toEqual([ids[3], ids[2]])
      await newMessage(client, ids[2] ?? "")
      // ids[2] is now the newest, so everything older than it follows: the documented keyset behaviour.
      const next = await listThreads(client, `?limit=10&after=${ids[2]}`)
      expect(next.map((thread) => thread.id)).toEqual([ids[3], ids[1], ids[0]])
    })
  })

  describe("GET /threads/{id}/messages", () => {
    let threadId: string
    let alice: UserClient
    /** Content `{ i }` of each seeded message, in seeding batches of 20. */
    const COUNT = 205

    beforeAll(async () => {
      alice = inWorkspace("ws-messages")
      threadId = await newThread(alice)
      await inBatches(COUNT, (i) => newMessage(alice, threadId, { content: { i } }))
    })

    it("pages default to 200 and are capped at 200 (limit=500 is clamped)", async () => {
      expect(await listMessages(alice, threadId)).toHaveLength(200)
      expect(await listMessages(alice, threadId, "?limit=200")).toHaveLength(200)
      expect(await listMessages(alice, threadId, "?limit=500")).toHaveLength(200)
      expect(await listMessages(alice, threadId, "?limit=3")).toHaveLength(3)
    })

    it("lists oldest first and after walks every page with no duplicates or gaps", async () => {
      const first = await listMessages(alice, threadId)
      const rest = await listMessages(alice, threadId, `?after=${first[199].id}`)
      expect(rest).toHaveLength(COUNT - 200)
      const all = [...first, ...rest]
      expect(new Set(ids(all)).size).toBe(COUNT)
      // Batches were sent one after another: a later batch never lists before an earlier one.
      const batches = all.map((m) => Math.floor(m.content.i / 20))
      expect(batches).toEqual([...batches].sort((a, b) => a - b))
      const walked: Array<string> = []
      for (let page = 0; page < 10; page++) {
        const after = walked.length === 0 ? "" : `&after=${walked[walked.length - 1]}`
        const rows = await listMessages(alice, threadId, `?limit=60${after}`)
        walked.push(...ids(rows))
        if (rows.length < 60) break
      }
      expect(walked).toEqual(ids(all))
    })

    it.each(["0", "-1", "1.5", "abc"])("limit=%s is 400 invalid_request", async (limit) => {
      expectError(await alice("GET", `/threads/${threadId}/messages?limit=${limit}`), 400, "limit")
    })

    it("format filters to one format, and pages within it", async () => {
      const mixed = await newThread(alice)
      const made: Array<{ id: string; format: string }> = []
      for (let i = 0; i < 8; i++) {
        const format = i % 2 === 0 ? "svc/v0" : "ai-sdk/v6"
        made.push({ id: await newMessage(alice, mixed, { format, content: { i } }), format })
      }
      const v6 = made.filter((m) => m.format === "ai-sdk/v6").map((m) => m.id)
      const listed = await listMessages(alice, mixed, "?format=ai-sdk%2Fv6")
      expect(ids(listed)).toEqual(v6)
      expect(listed.every((m) => m.format === "ai-sdk/v6")).toBe(true)
      expect(ids(await listMessages(alice, mixed, `?format=ai-sdk%2Fv6&limit=2&after=${v6[1]}`))).toEqual(v6.slice(2))
      expect(await listMessages(alice, mixed, "?format=other%2Fv1")).toEqual([])
      expect(await listMessages(alice, mixed)).toHaveLength(8)
    })

    it("after naming a deleted message still continues where it was", async () => {
      const small = await newThread(alice)
      const made: Array<string> = []
      for (let i = 0; i < 5; i++) made.push(await newMessage(alice, small))
      const del = await alice("POST", `/threads/${small}/messages/delete`, { body: { message_ids: [made[1]] } })
      expect(del.body).toEqual({ deleted: 1 })
      expect(ids(await listMessages(alice, small, `?after=${made[1]}`))).toEqual(made.slice(2))
    })
  })
})
