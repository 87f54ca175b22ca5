/**
 * The dashboard bench's data, made through the public API as an app makes it
 * (API key and identity headers; OTLP/JSON for the trace):
 *
 * - `threads` threads in one project, over 10 workspaces and 100 users, each
 *   with a title and its own `last_message_at`;
 * - in the first of them a linear chain of `messages` svc/v0 messages, user
 *   and assistant in turn (about 150 and 700 characters of text). The API
 *   has no batch append and each message names the one before as its parent,
 *   so they are appended one after another;
 * - one trace of `spans` spans in one OTLP/JSON export (lib/dashboard-trace.ts).
 */
import { randomBytes } from "node:crypto"
import { sendTrace } from "./dashboard-trace.js"
import { prose } from "./payload.js"

export interface SeedPlan {
  readonly baseUrl: string
  readonly apiKey: string
  readonly threads: number
  readonly messages: number
  readonly spans: number
}

export interface Seeded {
  readonly threadIds: ReadonlyArray<string>
  /** The thread holding the chain, and its last message. */
  readonly chatThreadId: string
  readonly lastMessageId: string
  readonly traceId: string
  /** Seconds each part took. */
  readonly seconds: { readonly threads: number; readonly messages: number; readonly trace: number }
}

/** Deterministic prose of about `length` characters, as the other benchmarks' payloads are made, ending a sentence. */
const sentence = (seed: number, length: number): string => `${prose(seed, length)}.`

const identity = (i: number) => ({ user: `user-${i % 100}`, workspace: `ws-${i % 10}` })

const post = async (plan: SeedPlan, path: string, body: unknown, who: { user: string; workspace: string }) => {
  const response = await fetch(`${plan.baseUrl}${path}`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${plan.apiKey}`,
      "svc-user-id": who.user,
      "svc-workspace-id": who.workspace,
      "content-type": "application/json"
    },
    body: JSON.stringify(body)
  })
  const text = await response.text()
  if (response.status !== 201) throw new Error(`POST ${path}: ${response.status} ${text}`)
  return JSON.parse(text) as Record<string, unknown>
}

const idOf = (answer: Record<string, unknown>, key: string): string => {
  const id = answer[key]
  if (typeof id !== "string") throw new Error(`no ${key} in ${JSON.stringify(answer)}`)
  return id
}

/** Runs `task(i)` for i in [0, count) with at most `width` at once; the results in order. */
const pool = async <A>(count: number, width: number, task: (i: number) => Promise<A>): Promise<Array<A>> => {
  const results = new Array<A>(count)
  let next = 0
  const worker = async () => {
    for (let i = next++; i < count; i = next++) results[i] = await task(i)
  }
  await Promise.all(Array.from({ length: width }, worker))
  return results
}

const seconds = (since: number) => Number(((performance.now() - since) / 1000).toFixed(1))

export const seed = async (plan: SeedPlan): Promise<Seeded> => {
  let since = performance.now()
  const now = Date.now()
  const threadIds = await pool(plan.threads, 8, async (i) =>
    idOf(
      await post(
        plan,
        "/v1/threads",
        { title: sentence(i + 1, 24 + (i % 30)), last_message_at: new Date(now - i * 60_000).toISOString() },
        identity(i)
      ),
      "thread_id"
    )
  )
  const threadsSeconds = seconds(since)

  since = performance.now()
  const chatThreadId = threadIds[0]
  if (chatThreadId === undefined) throw new Error("no thread to hold the messages")
  let parent: string | null = null
  for (let i = 0; i < plan.messages; i++) {
    const role = i % 2 === 0 ? "user" : "assistant"
    const text = sentence(10_000 + i, role === "user" ? 80 + (i % 140) : 400 + ((i * 37) % 600))
    const content = { role, content: [{ type: "text", text }] }
    const answer = await post(
      plan,
      `/v1/threads/${chatThreadId}/messages`,
      { parent_id: parent, format: "svc/v0", content },
      identity(0)
    )
    parent = idOf(answer, "message_id")
  }
  if (parent === null) throw new Error("no messages appended")
  const messagesSeconds = seconds(since)

  since = performance.now()
  const traceId = randomBytes(16).toString("hex")
  await sendTrace(plan.baseUrl, plan.apiKey, plan.spans, traceId)
  return {
    threadIds,
    chatThreadId,
    lastMessageId: parent,
    traceId,
    seconds: { threads: threadsSeconds, messages: messagesSeconds, trace: seconds(since) }
  }
}
