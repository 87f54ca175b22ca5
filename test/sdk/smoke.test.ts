import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import { AssistantCloud, CloudAPIError } from "svc-client"
import { SvcClient } from "svc-client/effect"
import { describe, expect, it } from "vitest"
import { createProject, pglite, useGateway } from "../layers.js"

describe("sdk smoke", () => {
  const gateway = useGateway(pglite)
  it("works in the three modes", async () => {
    const project = await createProject(gateway.current)
    const cloud = new AssistantCloud({
      apiKey: project.api_key,
      userId: "u1",
      workspaceId: "w1",
      baseUrl: gateway.current.baseUrl
    })
    const { thread_id } = await cloud.threads.create({ last_message_at: new Date(), title: "Hello" })
    const thread = await cloud.threads.get(thread_id)
    expect(thread.title).toBe("Hello")
    expect(thread.created_at).toBeInstanceOf(Date)
    const { message_id } = await cloud.threads.messages.create(thread_id, {
      parent_id: null,
      format: "svc/v0",
      content: { role: "user", content: [{ type: "text", text: "hi" }] }
    })
    const { messages } = await cloud.threads.messages.list(thread_id)
    expect(messages.map((m) => m.id)).toEqual([message_id])
    await expect(cloud.threads.get("nope")).rejects.toBeInstanceOf(CloudAPIError)
    const { token } = await cloud.auth.tokens.create()
    const frontend = `${gateway.current.baseUrl}/p/${project.project_id}/`
    const jwt = new AssistantCloud({ baseUrl: frontend, authToken: async () => token })
    expect((await jwt.threads.list()).threads.map((t) => t.id)).toEqual([thread_id])
    const anon = new AssistantCloud({ baseUrl: frontend, anonymous: true })
    expect((await anon.threads.list()).threads).toEqual([])
    const stream = await cloud.runs.stream({
      thread_id,
      assistant_id: "system/thread_title",
      messages: []
    })
    const reader = stream.getReader()
    const first = await reader.read()
    expect(first.value).toEqual({ type: "text-delta", textDelta: "Hello" })

    const threads = await Effect.runPromise(
      Effect.gen(function* () {
        const client = yield* SvcClient
        const list = yield* client.threads.list({ urlParams: { is_archived: false } })
        const missing = yield* Effect.flip(client.threads.get({ path: { thread_id: "nope" } }))
        const title = yield* Stream.mkString(
          client.runs.stream({ thread_id, assistant_id: "system/thread_title", messages: [] })
        )
        const all = yield* client.threads.list()
        expect(all.threads).toHaveLength(1)
        return { list, missing, title }
      }).pipe(
        Effect.scoped,
        Effect.provide(
          SvcClient.layer({
            apiKey: project.api_key,
            userId: "u1",
            workspaceId: "w1",
            baseUrl: gateway.current.baseUrl
          })
        )
      )
    )
    expect(threads.list.threads.map((t) => t.id)).toEqual([thread_id])
    expect(threads.missing).toBeInstanceOf(CloudAPIError)
    expect(threads.title).toBe("Hello")
  })
})
