/**
 * `npx tsx bench/mcp-memory.ts`: what reading one big thread many times over
 * MCP costs the gateway in memory. A fresh gateway process (`node --import tsx
 * app/main.ts`, LOG_LEVEL=Warn, its stdout to a file) gets a thread of 200
 * messages of ~59 KB of text each (a chain: each message's parent is the one
 * before), then a warm-up (one batch of two `get_thread` calls of limit 1 and
 * one single such call), then its peak resident memory (VmHWM) is reset
 * (/proc/<pid>/clear_refs) and it is sent, on POST /v1/mcp:
 *   - by default, one JSON-RPC batch of 100 `tools/call` `get_thread`
 *     (limit 200) of that thread;
 *   - with BENCH_MCP_SINGLES=N, N single requests of that call, all at once.
 * Printed: one JSON line, then a table: the peak above the warmed-up resident
 * set (VmRSS just before the reset), the peak itself, the highest VmRSS seen
 * by a 10 ms sampler, the wall time, the request and response sizes (for
 * singles: the sum of the bodies), the HTTP statuses and a summary of the
 * JSON-RPC answers; for context, VmRSS once /healthz first answered.
 *
 * Env: BENCH_DATABASE_URL (a PostgreSQL server URL: a fresh database, dropped
 * at the end; unset: the embedded store in a temporary directory),
 * BENCH_MCP_SINGLES (0: the batch; N: N concurrent single requests),
 * BENCH_MCP_FORMAT (the messages' storage format, svc/v0),
 * BENCH_MCP_WARMUP (1; 0: no warm-up, the first MCP request is the measured
 * one, as the ad-hoc measurement this replaces did).
 * Linux only (/proc).
 */
import { loadavg } from "node:os"
import { memoryMb, resetPeak, startProcessGateway } from "./lib/gateway-process.js"
import { killAllNow } from "./lib/proc.js"
import { intEnv } from "./lib/settings.js"

const MESSAGES = 200
const BATCH = 100
/** ~59 KB of text a message. */
const TEXT = "lorem ipsum dolor sit amet ".repeat(2_200)
const MCP_HEADERS = {
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
  "mcp-protocol-version": "2025-06-18"
}

const SINGLES = intEnv("BENCH_MCP_SINGLES", 0)
const WARMUP = intEnv("BENCH_MCP_WARMUP", 1) !== 0
const FORMAT = process.env.BENCH_MCP_FORMAT ?? "svc/v0"
const SERVER_URL = process.env.BENCH_DATABASE_URL === "" ? undefined : process.env.BENCH_DATABASE_URL

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** The string field of a JSON object answer, or a thrown error naming the call. */
const stringField = (value: unknown, field: string, what: string): string => {
  const inner = isRecord(value) ? value[field] : undefined
  if (typeof inner !== "string") throw new Error(`${what}: no ${field} in ${JSON.stringify(value).slice(0, 300)}`)
  return inner
}

const getThreadCall = (id: number, threadId: string, limit: number) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name: "get_thread", arguments: { thread_id: threadId, limit } }
})

/** What the JSON-RPC answers say: how many results, tool errors and JSON-RPC errors, the first error. */
const summarize = (answers: ReadonlyArray<unknown>) => {
  let results = 0
  let toolErrors = 0
  let errors = 0
  let firstError: string | undefined
  let messagesInFirst: number | undefined
  for (const answer of answers) {
    if (!isRecord(answer)) continue
    if (isRecord(answer.result)) {
      results++
      if (answer.result.isError === true) {
        toolErrors++
        firstError ??= JSON.stringify(answer.result.content).slice(0, 200)
      }
      const structured = answer.result.structuredContent
      if (messagesInFirst === undefined && isRecord(structured) && Array.isArray(structured.messages)) {
        messagesInFirst = structured.messages.length
      }
    } else if (answer.error !== undefined) {
      errors++
      firstError ??= JSON.stringify(answer.error).slice(0, 200)
    }
  }
  return {
    text: `${answers.length} answers: ${results} results (${toolErrors} tool errors, ${messagesInFirst ?? 0} messages in the first), ${errors} JSON-RPC errors${firstError === undefined ? "" : ` (first error: ${firstError})`}`,
    results,
    errors: errors + toolErrors
  }
}

/** The answers in a body: a batch's array, one answer, or none (not JSON). */
const answersIn = (body: string): ReadonlyArray<unknown> => {
  try {
    const parsed: unknown = JSON.parse(body)
    return Array.isArray(parsed) ? parsed : [parsed]
  } catch {
    return []
  }
}

const run = async () => {
  const load = loadavg()
    .map((value) => value.toFixed(2))
    .join(" ")
  const gateway = await startProcessGateway({
    label: "mcp-memory",
    serverUrl: SERVER_URL,
    env: { LOG_LEVEL: "Warn" }
  })
  try {
    const { baseUrl: base, apiKey } = gateway
    const pid = gateway.child.pid
    const started = memoryMb(pid, "VmRSS")
    const rest = async (path: string, token: string, body: unknown): Promise<unknown> => {
      const response = await fetch(`${base}${path}`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${token}`,
          "content-type": "application/json",
          "svc-user-id": "u1",
          "svc-workspace-id": "w1"
        },
        body: JSON.stringify(body)
      })
      const text = await response.text()
      if (response.status >= 300) throw new Error(`POST ${path}: ${response.status} ${text.slice(0, 300)}`)
      return JSON.parse(text)
    }
    const threadId = stringField(
      await rest("/v1/threads", apiKey, { last_message_at: new Date().toISOString() }),
      "thread_id",
      "create thread"
    )
    const seeding = performance.now()
    let parent: string | null = null
    for (let i = 0; i < MESSAGES; i++) {
      const created = await rest(`/v1/threads/${threadId}/messages`, apiKey, {
        parent_id: parent,
        format: FORMAT,
        content: { role: "user", content: [{ type: "text", text: `${i} ${TEXT}` }] }
      })
      parent = stringField(created, "message_id", "append message")
    }
    console.error(
      `seeded ${MESSAGES} messages of ${TEXT.length + 4} bytes in ${Math.round(performance.now() - seeding)} ms`
    )

    const post = async (body: string) => {
      const response = await fetch(`${base}/v1/mcp`, {
        method: "POST",
        headers: { authorization: `Bearer ${apiKey}`, ...MCP_HEADERS },
        body
      })
      const text = await response.text()
      return { status: response.status, text, bytes: Buffer.byteLength(text, "utf8") }
    }
    if (WARMUP) {
      const warm = [
        await post(JSON.stringify([getThreadCall(1, threadId, 1), getThreadCall(2, threadId, 1)])),
        await post(JSON.stringify(getThreadCall(3, threadId, 1)))
      ]
      const failed = warm.find((answer) => answer.status !== 200 || summarize(answersIn(answer.text)).errors > 0)
      if (failed !== undefined) throw new Error(`warm-up: ${failed.status} ${failed.text.slice(0, 300)}`)
    }

    const calls = Array.from({ length: SINGLES > 0 ? SINGLES : BATCH }, (_, id) =>
      getThreadCall(id, threadId, MESSAGES)
    )
    const bodies = SINGLES > 0 ? calls.map((call) => JSON.stringify(call)) : [JSON.stringify(calls)]
    await new Promise((resolve) => setTimeout(resolve, 1000))
    const before = memoryMb(pid, "VmRSS")
    resetPeak(pid)
    let sampled = 0
    const sampler = setInterval(() => {
      sampled = Math.max(sampled, memoryMb(pid, "VmRSS"))
    }, 10)
    const sending = performance.now()
    let replies: Array<{ status: number; text: string; bytes: number }>
    try {
      replies = await Promise.all(bodies.map(post))
    } finally {
      clearInterval(sampler)
    }
    const elapsed = performance.now() - sending
    const peak = memoryMb(pid, "VmHWM")
    const summary = summarize(replies.flatMap((reply) => answersIn(reply.text)))
    const statuses = [...new Set(replies.map((reply) => reply.status))].join(",")
    return {
      store: SERVER_URL === undefined ? "embedded" : "postgres",
      mode: SINGLES > 0 ? `${SINGLES} concurrent single requests` : `one batch of ${BATCH}`,
      format: FORMAT,
      warmup: WARMUP,
      load_average: load,
      request_bytes: bodies.reduce((sum, body) => sum + Buffer.byteLength(body, "utf8"), 0),
      statuses,
      response_bytes: replies.reduce((sum, reply) => sum + reply.bytes, 0),
      seconds: Number((elapsed / 1000).toFixed(2)),
      rss_started_mb: started,
      rss_before_mb: before,
      peak_mb: peak,
      peak_above_mb: peak - before,
      sampled_peak_mb: sampled,
      rss_after_mb: memoryMb(pid, "VmRSS"),
      answers: summary.text
    }
  } finally {
    await gateway.stop()
  }
}

let result: Awaited<ReturnType<typeof run>>
try {
  result = await run()
} finally {
  killAllNow()
}
console.log(JSON.stringify(result))
console.log(
  "\nstore     mode                                 request KB  response KB  seconds  before MB  peak MB  peak above MB  statuses"
)
console.log(
  `${result.store.padEnd(9)} ${result.mode.padEnd(36)} ${String(Math.round(result.request_bytes / 1024)).padStart(10)}  ${String(Math.round(result.response_bytes / 1024)).padStart(11)}  ${result.seconds.toFixed(2).padStart(7)}  ${String(result.rss_before_mb).padStart(9)}  ${String(result.peak_mb).padStart(7)}  ${String(result.peak_above_mb).padStart(13)}  ${result.statuses}`
)
console.log(result.answers)
