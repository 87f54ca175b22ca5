/**
 * The soak's traffic: one project with a webhook subscription (to a local
 * receiver), users in workspaces of their own, threads, and a mix of the
 * gateway's operations. Every write carries an id of the client's (message
 * external_id, run Idempotency-Key, event id, trace and span ids) so that a
 * retry cannot store it twice; scores have none, so a score whose outcome is
 * unknown is not sent again. Every acknowledged write is remembered for the
 * checks.
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import type { Client, Outcome } from "./client.js"

const WORDS = (
  "lisbon paris weather invoice refund password shipping order delivery account billing kafka postgres " +
  "garden recipe holiday flight hotel museum river mountain coffee jazz violin tennis marathon"
).split(" ")
const pick = <A>(values: ReadonlyArray<A>): A => values[Math.floor(Math.random() * values.length)] as A
/** The rest of the text: 4,000 made-up words, drawn log-uniformly (a few common, most rare), as words in chats are. */
const FILLER = Array.from({ length: 4000 }, (_, i) => `w${i.toString(36)}x`)
/**
 * A message's words: one in 30 is a searched word (WORDS), so that a search
 * word is in about 1 % of the messages, as in real chats. The first soak
 * made every message of the 30 searched words alone: each was in a third of
 * the messages, every search ranked MESSAGES_RANKED of them (22-35 ms of
 * PostgreSQL at 50,000 messages), and the ramp, on an empty database, did
 * not see that cost coming (docs/operations.md "Sizing a deployment").
 */
const word = () =>
  Math.random() < 1 / 30 ? pick(WORDS) : (FILLER[Math.floor(FILLER.length ** Math.random()) - 1] ?? "w")
const sentence = (n: number) => Array.from({ length: n }, word).join(" ")

export interface Acknowledged {
  /** external_id -> the message's thread and id, as answered. */
  readonly messages: Map<string, { readonly threadId: string; readonly id: string }>
  /** Idempotency-Key -> run id. */
  readonly runs: Map<string, string>
  /** The score's comment (unique) -> its id. */
  readonly scores: Map<string, string>
  /** Event ids of batches answered with every event accepted. */
  readonly events: Set<string>
  /** Trace ids of exports answered without rejected spans (SPANS_PER_TRACE spans, CHAT_SPANS of them model calls). */
  readonly traces: Set<string>
}

export const SPANS_PER_TRACE = 4
export const CHAT_SPANS = 2

export interface OpStats {
  ok: number
  unknown: number
  unexpected: number
}

export interface Receiver {
  readonly url: string
  /** event type -> ids of the created objects delivered, with how many deliveries each. */
  readonly delivered: Map<string, Map<string, number>>
  readonly badSignatures: () => number
  readonly close: () => Promise<void>
}

export const startReceiver = async (secret: () => string | undefined): Promise<Receiver> => {
  const delivered = new Map<string, Map<string, number>>()
  let badSignatures = 0
  const server = http.createServer((request, response) => {
    const chunks: Array<Buffer> = []
    request.on("data", (c: Buffer) => chunks.push(c))
    request.on("end", () => {
      const body = Buffer.concat(chunks).toString()
      const key = secret()
      const id = String(request.headers["webhook-id"] ?? "")
      const timestamp = String(request.headers["webhook-timestamp"] ?? "")
      const signatures = String(request.headers["webhook-signature"] ?? "")
      if (key !== undefined) {
        const expected = Buffer.from(
          createHmac("sha256", Buffer.from(key.slice("whsec_".length), "base64"))
            .update(`${id}.${timestamp}.${body}`)
            .digest("base64")
        )
        const ok = signatures.split(" ").some((entry) => {
          const given = Buffer.from(entry.slice(3))
          return entry.startsWith("v1,") && given.length === expected.length && timingSafeEqual(given, expected)
        })
        if (!ok) badSignatures++
      }
      try {
        const parsed = JSON.parse(body) as { type?: string; data?: Record<string, unknown> }
        const type = parsed.type ?? "?"
        const data = parsed.data ?? {}
        const objectId = String(data.id ?? data.message_id ?? data.run_id ?? data.score_id ?? id)
        const byType = delivered.get(type) ?? new Map<string, number>()
        byType.set(objectId, (byType.get(objectId) ?? 0) + 1)
        delivered.set(type, byType)
      } catch {
        badSignatures++
      }
      response.writeHead(204).end()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/hook`,
    delivered,
    badSignatures: () => badSignatures,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
}

interface Thread {
  readonly id: string
  readonly headers: Record<string, string>
}

const hex = (bytes: number) => randomBytes(bytes).toString("hex")

export class Workload {
  readonly ack: Acknowledged = {
    messages: new Map(),
    runs: new Map(),
    scores: new Map(),
    events: new Set(),
    traces: new Set()
  }
  readonly stats = new Map<string, OpStats>()
  /** Unexpected answers, a few of each kind, for the report. */
  readonly samples: Array<string> = []
  private counter = 0
  private threads: Array<Thread> = []
  projectId = ""
  private apiKey = ""
  webhookSecret: string | undefined

  constructor(
    readonly client: Client,
    readonly adminToken: string
  ) {}

  private next = () => `${Date.now().toString(36)}-${(this.counter++).toString(36)}`

  private tally(op: string, outcome: Outcome, expected: ReadonlyArray<number>): Record<string, unknown> | undefined {
    const stats = this.stats.get(op) ?? { ok: 0, unknown: 0, unexpected: 0 }
    this.stats.set(op, stats)
    if (outcome.kind === "unknown") {
      stats.unknown++
      return undefined
    }
    if (expected.includes(outcome.answer.status)) {
      stats.ok++
      try {
        return outcome.answer.json()
      } catch {
        return {}
      }
    }
    stats.unexpected++
    if (this.samples.length < 40)
      this.samples.push(`${op}: ${outcome.answer.status} ${outcome.answer.body.slice(0, 300)}`)
    return undefined
  }

  private async must(op: string, path: string, headers: Record<string, string>, body: unknown) {
    const outcome = await this.client.call(op, "POST", path, headers, body, true)
    if (outcome.kind !== "answered" || outcome.answer.status >= 300)
      throw new Error(
        `setup ${op}: ${outcome.kind === "answered" ? `${outcome.answer.status} ${outcome.answer.body}` : outcome.reason}`
      )
    return outcome.answer.json()
  }

  /** The project, its webhook subscription, USERS users with THREADS threads each. */
  async setup(receiverUrl: string, users: number, threadsPerUser: number) {
    const admin = { authorization: `Bearer ${this.adminToken}` }
    const project = await this.must("setup", "/v1/admin/projects", admin, { name: `soak-${Date.now()}` })
    this.projectId = String(project.project_id)
    this.apiKey = String(project.api_key)
    const hook = await this.must("setup", `/v1/admin/projects/${this.projectId}/webhooks`, admin, {
      url: receiverUrl,
      events: ["message.created", "run.created", "score.created"]
    })
    this.webhookSecret = String(hook.secret)
    for (let u = 0; u < users; u++) {
      const headers = {
        authorization: `Bearer ${this.apiKey}`,
        "svc-user-id": `user-${u}`,
        "svc-workspace-id": `ws-${u}`
      }
      for (let t = 0; t < threadsPerUser; t++) {
        const created = await this.must("setup", "/v1/threads", headers, {
          last_message_at: new Date().toISOString(),
          title: sentence(3),
          external_id: `thread-${u}-${t}`,
          upsert: true
        })
        this.threads.push({ id: String(created.thread_id), headers })
      }
    }
  }

  private async append(thread: Thread, prefix = "/v1", op = "append") {
    const externalId = `m-${this.next()}`
    const outcome = await this.client.call(
      op,
      "POST",
      `${prefix}/threads/${thread.id}/messages`,
      thread.headers,
      {
        external_id: externalId,
        format: "svc/v0",
        content: { role: "user", content: [{ type: "text", text: sentence(12) }] }
      },
      true
    )
    const body = this.tally(op, outcome, [200, 201])
    if (body !== undefined) this.ack.messages.set(externalId, { threadId: thread.id, id: String(body.message_id) })
  }

  /** A weighted mix; each call is one operation (which may be several attempts). */
  async one(): Promise<void> {
    const thread = pick(this.threads)
    const r = Math.random() * 100
    if (r < 36) return this.append(thread)
    if (r < 46) {
      const outcome = await this.client.call(
        "read",
        "GET",
        `/v1/threads/${thread.id}/messages?limit=50&order=desc`,
        thread.headers,
        undefined,
        true
      )
      this.tally("read", outcome, [200])
      return
    }
    if (r < 51) {
      const outcome = await this.client.call("list", "GET", "/v1/threads?limit=20", thread.headers, undefined, true)
      this.tally("list", outcome, [200])
      return
    }
    if (r < 61) {
      const key = `run-${this.next()}`
      const outcome = await this.client.call(
        "run",
        "POST",
        "/v1/runs",
        { ...thread.headers, "idempotency-key": key },
        {
          thread_id: thread.id,
          status: "completed",
          model_id: "gpt-4.1",
          provider: "openai",
          input_tokens: 800,
          output_tokens: 160,
          duration_ms: 2300,
          tool_calls: [
            { tool_name: "search", tool_call_id: "call_1", tool_args: { q: "weather" }, tool_result: "sunny" }
          ],
          output_text: sentence(20)
        },
        true
      )
      const body = this.tally("run", outcome, [201])
      if (body !== undefined) this.ack.runs.set(key, String(body.run_id))
      return
    }
    if (r < 66) {
      const comment = `s-${this.next()}`
      const outcome = await this.client.call(
        "score",
        "POST",
        "/v1/scores",
        thread.headers,
        { name: "helpful", data_type: "boolean", value: Math.random() < 0.5, thread_id: thread.id, comment },
        false
      )
      const body = this.tally("score", outcome, [201])
      if (body !== undefined) this.ack.scores.set(comment, String(body.score_id))
      return
    }
    if (r < 74) {
      const ids = Array.from({ length: 5 }, () => `e-${this.next()}`)
      const outcome = await this.client.call(
        "events",
        "POST",
        "/v1/events",
        thread.headers,
        { events: ids.map((id) => ({ kind: "message_sent", id, thread_id: thread.id, value: 1 })) },
        true
      )
      const body = this.tally("events", outcome, [202])
      if (body !== undefined) {
        if (body.accepted === ids.length) for (const id of ids) this.ack.events.add(id)
        else if (this.samples.length < 40) this.samples.push(`events: ${JSON.stringify(body).slice(0, 300)}`)
      }
      return
    }
    if (r < 81) {
      const traceId = hex(16)
      const root = hex(8)
      const now = BigInt(Date.now()) * 1_000_000n
      const kv = (key: string, value: string | number) => ({
        key,
        value: typeof value === "number" ? { intValue: String(value) } : { stringValue: value }
      })
      const span = (i: number) => {
        const role = i === 0 ? "agent" : i === SPANS_PER_TRACE - 1 ? "tool" : "chat"
        const start = now + BigInt(i) * 50_000_000n
        return {
          traceId,
          spanId: i === 0 ? root : hex(8),
          ...(i === 0 ? {} : { parentSpanId: root }),
          name:
            role === "agent" ? "invoke_agent planner" : role === "tool" ? "execute_tool weather" : "chat gpt-4o-mini",
          kind: role === "chat" ? 3 : 1,
          startTimeUnixNano: start.toString(),
          endTimeUnixNano: (start + 40_000_000n).toString(),
          attributes:
            role === "agent"
              ? [kv("gen_ai.operation.name", "invoke_agent"), kv("gen_ai.agent.name", "planner")]
              : role === "tool"
                ? [kv("gen_ai.operation.name", "execute_tool"), kv("gen_ai.tool.name", "weather")]
                : [
                    kv("gen_ai.operation.name", "chat"),
                    kv("gen_ai.provider.name", "openai"),
                    kv("gen_ai.request.model", "gpt-4o-mini"),
                    kv("gen_ai.usage.input_tokens", 812),
                    kv("gen_ai.usage.output_tokens", 164)
                  ],
          status: { code: 1 }
        }
      }
      const outcome = await this.client.call(
        "otlp",
        "POST",
        "/v1/traces",
        { authorization: `Bearer ${this.apiKey}` },
        {
          resourceSpans: [
            {
              resource: { attributes: [kv("service.name", "soak-agent")] },
              scopeSpans: [
                {
                  scope: { name: "soak", version: "1.0.0" },
                  spans: Array.from({ length: SPANS_PER_TRACE }, (_, i) => span(i))
                }
              ]
            }
          ]
        },
        true
      )
      const body = this.tally("otlp", outcome, [200])
      if (body !== undefined) {
        if (body.partialSuccess === undefined) this.ack.traces.add(traceId)
        else if (this.samples.length < 40) this.samples.push(`otlp: ${JSON.stringify(body).slice(0, 300)}`)
      }
      return
    }
    if (r < 88) {
      const outcome = await this.client.call(
        "search",
        "GET",
        `/v1/projects/search?q=${encodeURIComponent(`${pick(WORDS)} ${pick(WORDS)}`)}&limit=10`,
        { authorization: `Bearer ${this.apiKey}` },
        undefined,
        true
      )
      this.tally("search", outcome, [200])
      return
    }
    const tool =
      Math.random() < 0.5
        ? { name: "list_threads", arguments: { limit: 20 } }
        : { name: "search_threads", arguments: { q: pick(WORDS), limit: 10 } }
    const outcome = await this.client.call(
      "mcp",
      "POST",
      "/v1/mcp",
      { authorization: `Bearer ${this.apiKey}`, accept: "application/json, text/event-stream" },
      { jsonrpc: "2.0", id: 1, method: "tools/call", params: tool },
      true
    )
    const body = this.tally("mcp", outcome, [200])
    if (body !== undefined && body.error !== undefined) {
      this.client.note("mcp", JSON.stringify(body.error).slice(0, 200))
      if (this.samples.length < 40) this.samples.push(`mcp: ${JSON.stringify(body).slice(0, 300)}`)
    }
  }

  /** An anonymous session on the frontend URL: a thread of its own and a message in it. */
  async anonymous(): Promise<void> {
    const prefix = `/p/${this.projectId}/v1`
    const session = this.tally(
      "anonymous",
      await this.client.call("anonymous", "POST", `${prefix}/auth/tokens/anonymous`, {}, undefined, true),
      [200, 201]
    )
    if (session === undefined) return
    const headers = { authorization: `Bearer ${String(session.access_token)}` }
    const created = this.tally(
      "anonymous",
      await this.client.call(
        "anonymous",
        "POST",
        `${prefix}/threads`,
        headers,
        { last_message_at: new Date().toISOString(), external_id: `anon-${this.next()}`, upsert: true },
        true
      ),
      [200, 201]
    )
    if (created === undefined) return
    await this.append({ id: String(created.thread_id), headers }, prefix, "anonymous")
  }
}
