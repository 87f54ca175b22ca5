/**
 * The model-backed title generator against a local server that speaks the
 * OpenAI Responses streaming protocol (what @effect/ai-openai 0.41 calls:
 * `POST {base}/responses` with `stream: true`, answered with SSE events
 * `response.created`, `response.output_text.delta`..., `response.completed`).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { getThread, newThread } from "../../support/helpers.js"
import {
  asUser,
  createProject,
  type Gateway,
  type StoreUnderTest,
  stores,
  type UserClient,
  useGateway
} from "../../support/layers.js"
import { responseObject } from "./openai-response.js"

const MODEL = "title-test-model"
const API_KEY = "sk-fake-title-key"

type Mode =
  | "ok"
  | "long"
  | "quoted-one-word"
  | "http-error"
  | "cut-after-first-delta"
  | "cut-before-first-delta"
  | "endless-event"
  | "endless-punctuation"

interface Received {
  readonly path: string
  readonly authorization: string | undefined
  readonly body: { model?: string; stream?: boolean; input?: unknown }
}

const DELTAS: Record<Mode, ReadonlyArray<string>> = {
  ok: ['"Resetting', " a", " forgotten", " password", '."'],
  long: "One two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen"
    .split(" ")
    .map((word, index) => (index === 0 ? word : ` ${word}`)),
  "quoted-one-word": ['"Password"'],
  "http-error": [],
  "cut-after-first-delta": ["Resetting", " a"],
  "cut-before-first-delta": [],
  "endless-event": [],
  "endless-punctuation": []
}

const response = (status: "in_progress" | "completed", text: string) => responseObject(MODEL, status, text)

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * A fake OpenAI: records what it was asked, answers per `mode`, 30 ms between
 * deltas. Two modes never end on their own, until the gateway closes the
 * connection: one delta event whose text never ends (64 KiB pieces, each
 * written once the last has drained), and deltas of punctuation only, every
 * 50 ms. `sent` counts the bytes written in those.
 */
const fakeOpenAi = () => {
  const state: {
    mode: Mode
    received: Array<Received>
    sent: number
    /**
     * When set, the model stops after its second delta until this settles (the client has read text), at most
     * 10 s; `heldUntilRead` tells which came first. So a stream's chunks do not depend on when a busy machine
     * lets the client read: what it reads before the rest is even sent proves the gateway streamed it.
     */
    hold?: Promise<void> | undefined
    heldUntilRead?: boolean | undefined
  } = { mode: "ok", received: [], sent: 0 }
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Array<Buffer> = []
    req.on("data", (chunk: Buffer) => chunks.push(chunk))
    req.on("end", async () => {
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}")
      state.received.push({ path: req.url ?? "", authorization: req.headers.authorization, body })
      const mode = state.mode
      if (req.method !== "POST" || req.url !== "/v1/responses" || mode === "http-error") {
        res.writeHead(mode === "http-error" ? 500 : 404, { "content-type": "application/json" })
        res.end(JSON.stringify({ error: { message: "internal model secret details", type: "server_error" } }))
        return
      }
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" })
      let sequence = 0
      const send = (event: Record<string, unknown>) =>
        res.write(`event: ${event.type}\ndata: ${JSON.stringify({ ...event, sequence_number: sequence++ })}\n\n`)
      send({ type: "response.created", response: response("in_progress", "") })
      send({
        type: "response.output_item.added",
        output_index: 0,
        item: { id: "msg_test", type: "message", status: "in_progress", role: "assistant", content: [] }
      })
      if (mode === "endless-event" || mode === "endless-punctuation") {
        state.sent = 0
        let open = true
        res.on("close", () => {
          open = false
        })
        if (mode === "endless-event")
          res.write(`event: response.output_text.delta\ndata: {"type":"response.output_text.delta","delta":"`)
        const piece = mode === "endless-event" ? "word ".repeat(13_108) : ""
        // At most 64 MiB, so that a gateway that never stops reading still ends the test.
        while (open && state.sent < 64 * 1024 * 1024) {
          if (mode === "endless-event") {
            state.sent += piece.length
            if (!res.write(piece)) await new Promise((resolve) => res.once("drain", resolve).once("close", resolve))
          } else {
            await sleep(50)
            if (open)
              send({
                type: "response.output_text.delta",
                item_id: "msg_test",
                output_index: 0,
                content_index: 0,
                delta: " .",
                logprobs: []
              })
          }
        }
        res.end()
        return
      }
      for (const [index, delta] of DELTAS[mode].entries()) {
        await sleep(30)
        send({
          type: "response.output_text.delta",
          item_id: "msg_test",
          output_index: 0,
          content_index: 0,
          delta,
          logprobs: []
        })
        if (index === 1 && state.hold !== undefined)
          state.heldUntilRead = await Promise.race([state.hold.then(() => true), sleep(10_000).then(() => false)])
      }
      if (mode === "cut-after-first-delta" || mode === "cut-before-first-delta") {
        await sleep(30)
        res.destroy()
        return
      }
      send({ type: "response.completed", response: response("completed", DELTAS[mode].join("")) })
      res.end()
    })
  })
  return { state, server }
}

const userText = (text: string) => ({ role: "user", content: [{ type: "text", text }] })

const thisMonth = () => `${new Date().toISOString().slice(0, 7)}-01`

/** The response body as the client receives it: chunk by chunk. */
const readChunks = async (
  baseUrl: string,
  apiKey: string,
  threadId: string,
  messages: ReadonlyArray<unknown>,
  onText?: () => void
): Promise<{ status: number; contentType: string | null; chunks: Array<string>; error?: unknown }> => {
  const reply = await fetch(`${baseUrl}/v1/runs/stream`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${apiKey}`,
      "svc-user-id": "alice",
      "svc-workspace-id": "ws-model",
      "content-type": "application/json",
      accept: "text/plain"
    },
    body: JSON.stringify({ thread_id: threadId, assistant_id: "system/thread_title", messages })
  })
  const chunks: Array<string> = []
  const decoder = new TextDecoder()
  const reader = reply.body?.getReader()
  if (reader === undefined) return { status: reply.status, contentType: reply.headers.get("content-type"), chunks }
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      chunks.push(decoder.decode(value, { stream: true }))
      if (chunks.join("").trim() !== "") onText?.()
    }
  } catch (error) {
    return { status: reply.status, contentType: reply.headers.get("content-type"), chunks, error }
  }
  return { status: reply.status, contentType: reply.headers.get("content-type"), chunks }
}

/** A fake OpenAI listening, and a gateway (on `storeUnderTest`) whose title model it is, with `env` on top. */
const useModelGateway = (storeUnderTest: StoreUnderTest, env: Record<string, string> = {}) => {
  const fake = fakeOpenAi()
  beforeAll(() => new Promise<void>((resolve) => fake.server.listen(0, "127.0.0.1", resolve)))
  afterAll(() => new Promise((resolve) => fake.server.close(resolve)))
  const handle = useGateway(storeUnderTest, () => ({
    TITLE_MODEL_BASE_URL: `http://127.0.0.1:${(fake.server.address() as AddressInfo).port}/v1/`,
    TITLE_MODEL_API_KEY: API_KEY,
    TITLE_MODEL: MODEL,
    ...env
  }))
  return { fake, handle }
}

describe.each(stores)("thread titles from a model ($name)", (storeUnderTest) => {
  const { fake, handle } = useModelGateway(storeUnderTest)
  let gateway: Gateway
  let project: { project_id: string; api_key: string }
  let alice: UserClient

  const used = async (): Promise<number> => {
    const rows = await gateway.sql<{ used: number }>(
      "SELECT used FROM title_quota WHERE project_id = $1 AND month = $2::date",
      [project.project_id, thisMonth()]
    )
    return rows[0]?.used ?? 0
  }

  beforeAll(async () => {
    gateway = handle.current
    project = await createProject(gateway, "model-titles")
    alice = asUser(gateway, project.api_key, "alice", "ws-model")
  })

  it("streams the model's title in several chunks, cleaned, and stores it", async () => {
    fake.state.mode = "ok"
    fake.state.received = []
    let read = () => {}
    fake.state.hold = new Promise<void>((resolve) => {
      read = resolve
    })
    fake.state.heldUntilRead = undefined
    const thread = await newThread(alice)
    const result = await readChunks(
      gateway.baseUrl,
      project.api_key,
      thread,
      [
        userText("I forgot my password and the reset email never arrives"),
        { role: "assistant", content: "Check your spam folder first." }
      ],
      () => read()
    ).finally(() => {
      fake.state.hold = undefined
    })
    expect(result.status).toBe(200)
    expect(result.contentType).toBe("text/plain; charset=utf-8")
    expect(result.error).toBeUndefined()
    // The client read the title's first words while the model had not sent the rest: streamed, not buffered.
    expect(fake.state.heldUntilRead).toBe(true)
    expect(result.chunks.length, JSON.stringify(result.chunks)).toBeGreaterThan(1)
    const title = result.chunks.join("").trim()
    expect(title).toBe("Resetting a forgotten password")
    expect((await getThread(alice, thread)).title).toBe(title)
    expect(await used()).toBe(1)

    expect(fake.state.received).toHaveLength(1)
    const request = fake.state.received[0]
    expect(request?.path).toBe("/v1/responses")
    expect(request?.authorization).toBe(`Bearer ${API_KEY}`)
    expect(request?.body.model).toBe(MODEL)
    expect(request?.body.stream).toBe(true)
    const prompt = JSON.stringify(request?.body.input)
    expect(prompt).toContain("I forgot my password and the reset email never arrives")
    expect(prompt).toContain("Check your spam folder first.")
  })

  it("cuts a long answer after 12 words", async () => {
    fake.state.mode = "long"
    const thread = await newThread(alice)
    const result = await readChunks(gateway.baseUrl, project.api_key, thread, [userText("Count for me")])
    expect(result.status).toBe(200)
    expect(result.chunks.join("").trim()).toBe("One two three four five six seven eight nine ten eleven twelve")
  })

  it("replaces a one-word answer with the extractive title", async () => {
    fake.state.mode = "quoted-one-word"
    const thread = await newThread(alice)
    const result = await readChunks(gateway.baseUrl, project.api_key, thread, [userText("Password reset is broken")])
    expect(result.status).toBe(200)
    expect(result.chunks.join("").trim()).toBe("Password reset is broken")
  })

  it.each<Mode>(["http-error", "cut-before-first-delta"])(
    "answers 502 bad_gateway with no model details when the model fails (%s), and gives the quota back",
    async (mode) => {
      fake.state.mode = mode
      const before = await used()
      const thread = await newThread(alice)
      const reply = await alice("POST", "/runs/stream", {
        body: { thread_id: thread, assistant_id: "system/thread_title", messages: [userText("Anything at all")] }
      })
      expect(reply.status, reply.text).toBe(502)
      expect(reply.headers.get("content-type") ?? "").toMatch(/^application\/json/)
      expect(reply.body.error).toBe("bad_gateway")
      expect(reply.text).not.toContain("secret")
      expect(reply.text).not.toContain("_tag")
      expect(await used()).toBe(before)
      expect((await getThread(alice, thread)).title).toBeNull()
    }
  )

  it("breaks the response (rather than end it normally) when the model fails mid-stream, and gives the quota back", async () => {
    fake.state.mode = "cut-after-first-delta"
    const before = await used()
    const thread = await newThread(alice)
    const result = await readChunks(gateway.baseUrl, project.api_key, thread, [userText("Anything at all")])
    expect(result.status).toBe(200)
    expect(result.error, JSON.stringify(result.chunks)).toBeDefined()
    expect(await used()).toBe(before)
    expect((await getThread(alice, thread)).title).toBeNull()
  })

  it("reads at most 256 KiB of the model's answer: one endless event fails the title and closes the connection", async () => {
    fake.state.mode = "endless-event"
    const before = await used()
    const thread = await newThread(alice)
    const started = Date.now()
    const reply = await alice("POST", "/runs/stream", {
      body: { thread_id: thread, assistant_id: "system/thread_title", messages: [userText("Anything at all")] }
    })
    expect(reply.status, reply.text).toBe(502)
    expect(Date.now() - started).toBeLessThan(10_000)
    // The cap plus what the sockets buffer: far from the 64 MiB the fake would send to a reader that never stops.
    await new Promise((resolve) => setTimeout(resolve, 200))
    expect(fake.state.sent, `${fake.state.sent} bytes sent`).toBeLessThan(8 * 1024 * 1024)
    expect(await used()).toBe(before)
  })
})

describe.each(stores.slice(0, 1))("a title model that never ends ($name)", (storeUnderTest) => {
  const { fake, handle } = useModelGateway(storeUnderTest, { TITLE_MODEL_TIMEOUT_MS: "1500" })

  it("ends a stream of deltas that add no word at TITLE_MODEL_TIMEOUT_MS, with the extractive title", async () => {
    fake.state.mode = "endless-punctuation"
    const gateway = handle.current
    const project = await createProject(gateway, "endless")
    const alice = asUser(gateway, project.api_key, "alice", "ws-model")
    const thread = await newThread(alice)
    const started = Date.now()
    const result = await readChunks(gateway.baseUrl, project.api_key, thread, [userText("Password reset is broken")])
    const took = Date.now() - started
    expect(result.status).toBe(200)
    expect(result.chunks.join("").trim()).toBe("Password reset is broken")
    // Deltas came every 50 ms (never 1.5 s apart): only the whole answer's bound ended it.
    expect(took, `${took} ms`).toBeGreaterThanOrEqual(1_400)
    expect(took, `${took} ms`).toBeLessThan(6_000)
    expect(fake.state.received.at(-1)?.body).toMatchObject({ max_output_tokens: 64 })
  })
})
