/**
 * Appends racing on one thread (`npm run bench:contended-appends`): WRITERS clients (default 64), each
 * sending its next append (~1 KB content) to the same thread as soon as the last is answered, for
 * BENCH_DURATION seconds (default 15) after 2 s of warm-up, against the gateway in a process of its own
 * (`node --import tsx app/main.ts`, LOG_LEVEL=Warn, DATABASE_POOL_MAX=BENCH_POOL_MAX, default 10) on a fresh
 * database on BENCH_PG_URL. ROUNDS (default 1) runs, each with a fresh gateway and database. Prints one JSON
 * line per round: appends answered per second, how many were not 201, p50 and p99 in ms.
 * (docs/decisions.md "Wire": message order under concurrent appends.)
 */
import { startProcessGateway } from "./lib/gateway-process.js"
import { messageContent } from "./lib/payload.js"
import { killAllNow } from "./lib/proc.js"
import { quantile } from "./lib/stats.js"

const WRITERS = Number(process.env.WRITERS ?? 64)
const DURATION_S = Number(process.env.BENCH_DURATION ?? 15)
const POOL = process.env.BENCH_POOL_MAX ?? "10"
const ROUNDS = Number(process.env.ROUNDS ?? 1)
const PG_URL = process.env.BENCH_PG_URL ?? "postgres://postgres@127.0.0.1:5432/postgres"

const call = async (url: string, headers: Record<string, string>, body: unknown) => {
  const response = await fetch(url, {
    method: "POST",
    headers: { ...headers, "content-type": "application/json" },
    body: JSON.stringify(body)
  })
  return { status: response.status, text: await response.text() }
}

const created = async (url: string, headers: Record<string, string>, body: unknown) => {
  const reply = await call(url, headers, body)
  if (reply.status !== 201) throw new Error(`${url}: ${reply.status} ${reply.text}`)
  return JSON.parse(reply.text) as Record<string, string>
}

/** Every writer appends to `threadId` until `until`; answers each append's latency and status. */
const race = async (baseUrl: string, headers: Record<string, string>, threadId: string, until: number) => {
  const latencies: Array<number> = []
  const refused: Array<string> = []
  const content = messageContent()
  await Promise.all(
    Array.from({ length: WRITERS }, async () => {
      while (Date.now() < until) {
        const start = performance.now()
        const reply = await call(`${baseUrl}/v1/threads/${threadId}/messages`, headers, {
          parent_id: null,
          format: "svc/v0",
          content
        })
        latencies.push(performance.now() - start)
        if (reply.status !== 201) refused.push(`${reply.status} ${reply.text.slice(0, 100)}`)
      }
    })
  )
  return { latencies, refused }
}

const round = async () => {
  const gateway = await startProcessGateway({
    label: "contended",
    serverUrl: PG_URL,
    env: { DATABASE_POOL_MAX: POOL, LOG_LEVEL: "Warn" }
  })
  try {
    const { baseUrl } = gateway
    const headers = { authorization: `Bearer ${gateway.apiKey}`, "svc-user-id": "u1", "svc-workspace-id": "w1" }
    const thread = await created(`${baseUrl}/v1/threads`, headers, { last_message_at: new Date().toISOString() })
    const threadId = thread.thread_id ?? ""
    await race(baseUrl, headers, threadId, Date.now() + 2_000)
    const start = performance.now()
    const { latencies, refused } = await race(baseUrl, headers, threadId, Date.now() + DURATION_S * 1000)
    const seconds = (performance.now() - start) / 1000
    return {
      writers: WRITERS,
      pool: Number(POOL),
      appends: latencies.length,
      notCreated: refused.length,
      appendsPerSecond: Math.round((latencies.length / seconds) * 10) / 10,
      p50Ms: Math.round(quantile(latencies, 0.5)),
      p99Ms: Math.round(quantile(latencies, 0.99)),
      sample: refused.slice(0, 2)
    }
  } finally {
    await gateway.stop()
  }
}

const main = async () => {
  for (let n = 0; n < ROUNDS; n++) console.log(JSON.stringify(await round()))
}

main().catch((error: unknown) => {
  killAllNow()
  console.error(error)
  process.exit(1)
})
