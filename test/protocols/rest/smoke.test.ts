import * as Schema from "effect/Schema"
import { beforeAll, describe, expect, it } from "vitest"
import { MessageList } from "../../../schema/Message.js"
import { asUser, call, createProject, NOW, stores, type UserClient, useGateway } from "../../support/layers.js"

describe.each(stores)("smoke ($name)", (storeUnderTest) => {
  const gateway = useGateway(storeUnderTest)
  let alice: UserClient

  beforeAll(async () => {
    const project = await createProject(gateway.current)
    alice = asUser(gateway.current, project.api_key, "alice", "ws-1")
  })

  it("creates a thread and a message and reads them back", async () => {
    const created = await alice("POST", "/threads", { body: { last_message_at: NOW, title: "Hello" } })
    expect(created.status).toBe(201)
    const threadId = created.body.thread_id as string
    const message = await alice("POST", `/threads/${threadId}/messages`, {
      body: { parent_id: null, format: "svc/v0", content: { text: "hi" } }
    })
    expect(message.status).toBe(201)
    const list = await alice("GET", `/threads/${threadId}/messages`)
    expect(list.status).toBe(200)
    expect(list.body.messages).toHaveLength(1)
    expect(list.body.messages[0].content).toEqual({ text: "hi" })
    // The page is written by hand for speed: it must still be the contract's shape.
    const decoded = Schema.decodeUnknownSync(MessageList)(list.body)
    expect(decoded.messages[0]?.created_at.toISOString()).toBe(list.body.messages[0].created_at)
    expect(list.headers.get("content-length")).toBe(String(Buffer.byteLength(list.text)))
    expect(list.headers.get("content-type")).toMatch(/^application\/json/)
  })

  it("answers liveness and readiness", async () => {
    const live = await call(gateway.current.baseUrl, "GET", "/healthz")
    expect([live.status, live.body]).toEqual([200, { status: "ok" }])
    const ready = await call(gateway.current.baseUrl, "GET", "/readyz")
    expect([ready.status, ready.body]).toEqual([200, { status: "ready" }])
  })
})
