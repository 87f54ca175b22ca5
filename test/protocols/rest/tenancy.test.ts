import { beforeAll, describe, expect, it } from "vitest"
import { expectError, expectNoContent, getThread, listMessages, newMessage, newThread } from "../../support/helpers.js"
import { asUser, createProject, type Gateway, stores, type UserClient, useGateway } from "../../support/layers.js"

/** Callers who must not see Alice's thread (project a, user alice, workspace ws-1). */
const STRANGERS = [
  { who: "another workspace", project: "a", user: "bob", workspace: "ws-2" },
  { who: "the same user in another workspace", project: "a", user: "alice", workspace: "ws-2" },
  { who: "another project with the same user and workspace ids", project: "b", user: "alice", workspace: "ws-1" }
] as const

describe.each(stores)("tenancy ($name)", (storeUnderTest) => {
  const handle = useGateway(storeUnderTest)
  let gateway: Gateway
  let alice: UserClient
  /** Same project and workspace, another user: sees the workspace's threads. */
  let colleague: UserClient
  const strangers: Record<string, UserClient> = {}
  let thread: string
  let root: string
  let child: string
  let otherThread: string
  let otherMessage: string

  beforeAll(async () => {
    gateway = handle.current
    const projectA = await createProject(gateway, "a")
    const projectB = await createProject(gateway, "b")
    alice = asUser(gateway, projectA.api_key, "alice", "ws-1")
    colleague = asUser(gateway, projectA.api_key, "carol", "ws-1")
    for (const { who, project, user, workspace } of STRANGERS) {
      strangers[who] = asUser(gateway, (project === "a" ? projectA : projectB).api_key, user, workspace)
    }
    thread = await newThread(alice, { title: "private", metadata: { secret: true } })
    root = await newMessage(alice, thread, { content: { text: "root" } })
    child = await newMessage(alice, thread, { parent: root, content: { text: "child" } })
    otherThread = await newThread(alice, { title: "other" })
    otherMessage = await newMessage(alice, otherThread, { content: { text: "elsewhere" } })
  })
  /** Alice's thread and messages are exactly as created. */
  const expectUntouched = async () => {
    const got = await getThread(alice, thread)
    expect(got).toMatchObject({
      title: "private",
      metadata: { secret: true },
      is_archived: false,
      workspace_id: "ws-1"
    })
    const messages = await listMessages(alice, thread)
    expect(messages.map((m) => [m.id, m.content])).toEqual([
      [root, { text: "root" }],
      [child, { text: "child" }]
    ])
    expect((await listMessages(alice, otherThread)).map((m) => m.id)).toEqual([otherMessage])
  }

  it("a colleague in the same workspace sees the thread (control)", async () => {
    expect((await getThread(colleague, thread)).id).toBe(thread)
    expect(await listMessages(colleague, thread)).toHaveLength(2)
  })

  describe.each(STRANGERS)("a caller from $who", ({ who }) => {
    const stranger = () => strangers[who] as UserClient

    it("gets 404 not_found on every thread and message route", async () => {
      const s = stranger()
      expectError(await s("GET", `/threads/${thread}`), 404)
      expectError(await s("PUT", `/threads/${thread}`, { body: { title: "pwned", is_archived: true } }), 404)
      expectError(await s("GET", `/threads/${thread}/messages`), 404)
      expectError(await s("GET", `/threads/${thread}/messages?after=${root}&limit=5`), 404)
      const post = { body: { parent_id: null, format: "svc/v0", content: { text: "intruder" } } }
      expectError(await s("POST", `/threads/${thread}/messages`, post), 404)
      const reply = { body: { parent_id: root, format: "svc/v0", content: { text: "intruder" } } }
      expectError(await s("POST", `/threads/${thread}/messages`, reply), 404)
      expectError(await s("PUT", `/threads/${thread}/messages/${root}`, { body: { content: { text: "pwned" } } }), 404)
      expectError(await s("POST", `/threads/${thread}/messages/delete`, { body: { message_ids: [root, child] } }), 404)
      expectError(await s("POST", `/threads/${thread}/messages/${child}/feedback`, { body: { type: "negative" } }), 404)
      expectError(await s("DELETE", `/threads/${thread}`), 404)
      await expectUntouched()
    })

    it("does not see the thread in its list", async () => {
      const s = stranger()
      const own = await newThread(s)
      const reply = await s("GET", "/threads?limit=100")
      expect(reply.status).toBe(200)
      const listed = reply.body.threads.map((t: { id: string }) => t.id)
      expect(listed).toContain(own)
      expect(listed).not.toContain(thread)
      expect(listed).not.toContain(otherThread)
      for (const filter of ["true", "false"]) {
        const filtered = await s("GET", `/threads?is_archived=${filter}&limit=100`)
        expect(filtered.body.threads.map((t: { id: string }) => t.id)).not.toContain(thread)
      }
      // Nor does Alice see the stranger's thread.
      expectError(await alice("GET", `/threads/${own}`), 404)
      expect((await alice("GET", "/threads?limit=100")).body.threads.map((t: { id: string }) => t.id)).not.toContain(
        own
      )
    })

    it("cannot reach the messages through a thread of its own", async () => {
      const s = stranger()
      const own = await newThread(s)
      const ownMessage = await newMessage(s, own)
      const asParent = await s("POST", `/threads/${own}/messages`, {
        body: { parent_id: root, format: "svc/v0", content: {} }
      })
      expectError(asParent, 400, "parent_id")
      expectError(await s("PUT", `/threads/${own}/messages/${root}`, { body: { content: { text: "pwned" } } }), 404)
      expectError(await s("POST", `/threads/${own}/messages/${root}/feedback`, { body: { type: "negative" } }), 404)
      const del = await s("POST", `/threads/${own}/messages/delete`, {
        body: { message_ids: [root, child, ownMessage] }
      })
      expect(del.status, del.text).toBe(200)
      expect(del.body).toEqual({ deleted: 1 })
      await expectUntouched()
    })
  })

  describe("message ids of another thread of the same workspace", () => {
    it("cannot be updated, deleted, given feedback or used as a parent through this thread", async () => {
      expectError(
        await alice("PUT", `/threads/${thread}/messages/${otherMessage}`, { body: { content: { text: "moved" } } }),
        404
      )
      const del = await alice("POST", `/threads/${thread}/messages/delete`, { body: { message_ids: [otherMessage] } })
      expect(del.status, del.text).toBe(200)
      expect(del.body).toEqual({ deleted: 0 })
      expectError(
        await alice("POST", `/threads/${thread}/messages/${otherMessage}/feedback`, { body: { type: "positive" } }),
        404
      )
      const asParent = await alice("POST", `/threads/${thread}/messages`, {
        body: { parent_id: otherMessage, format: "svc/v0", content: {} }
      })
      expectError(asParent, 400, "parent_id")
      const [stillThere] = await listMessages(alice, otherThread)
      expect(stillThere).toMatchObject({ id: otherMessage, content: { text: "elsewhere" } })
      await expectUntouched()
    })

    it("deleting one thread leaves the other thread's messages", async () => {
      const doomed = await newThread(alice)
      await newMessage(alice, doomed)
      expectNoContent(await alice("DELETE", `/threads/${doomed}`))
      await expectUntouched()
    })
  })
})
