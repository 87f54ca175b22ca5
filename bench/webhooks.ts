/**
 * The cost of the webhook outbox on the hot path (`npx tsx bench/webhooks.ts`):
 * message appends in a project without a subscription beside the same
 * appends in a project subscribed to message.created (each append then
 * writes its delivery in its own transaction). Deliveries are not sent
 * during the run (JOBS_POLL_SECONDS=0): this measures the write side only.
 * Embedded store by default; PostgreSQL with BENCH_DATABASE_URL (a server
 * URL: a fresh database is made and dropped). APPENDS (default 2000) per
 * project and round, CONCURRENCY (default 8), ROUNDS (default 3), alternated.
 */
import { ADMIN_TOKEN, benchStore, startGateway } from "./lib/gateway.js"
import { quantile } from "./lib/stats.js"

const APPENDS = Number(process.env.APPENDS ?? 2000)
const CONCURRENCY = Number(process.env.CONCURRENCY ?? 8)
const ROUNDS = Number(process.env.ROUNDS ?? 3)

const post = async (url: string, headers: Record<string, string>, body: unknown) => {
  const response = await fetch(url, {
    method: "POST",
    headers: { ...headers, "content-type": "application/json" },
    body: JSON.stringify(body)
  })
  const text = await response.text()
  if (response.status >= 300) throw new Error(`${url}: ${response.status} ${text}`)
  return JSON.parse(text) as Record<string, string>
}

const main = async () => {
  const { store, drop } = await benchStore("webhooks")
  const gateway = await startGateway(store, { JOBS_POLL_SECONDS: "0", WEBHOOK_ALLOW_PRIVATE: "true" })
  try {
    const adminHeaders = { authorization: `Bearer ${ADMIN_TOKEN}` }
    const project = async (name: string) => {
      const created = await post(`${gateway.baseUrl}/v1/admin/projects`, adminHeaders, { name })
      const headers = { authorization: `Bearer ${created.api_key}`, "svc-user-id": "u1", "svc-workspace-id": "w1" }
      return { id: created.project_id ?? "", headers }
    }
    const plain = await project("no-subscription")
    const subscribed = await project("subscribed")
    await post(`${gateway.baseUrl}/v1/admin/projects/${subscribed.id}/webhooks`, adminHeaders, {
      url: "http://127.0.0.1:9/unused",
      events: ["message.created"]
    })
    /** APPENDS appends over CONCURRENCY threads of the project: each append's latency, and the wall time. */
    const appends = async (target: { id: string; headers: Record<string, string> }) => {
      const threads = await Promise.all(
        Array.from({ length: CONCURRENCY }, () =>
          post(`${gateway.baseUrl}/v1/threads`, target.headers, { last_message_at: new Date().toISOString() })
        )
      )
      const latencies: Array<number> = []
      const started = performance.now()
      await Promise.all(
        threads.map(async (thread) => {
          for (let i = 0; i < APPENDS / CONCURRENCY; i++) {
            const t0 = performance.now()
            await post(`${gateway.baseUrl}/v1/threads/${thread.thread_id}/messages`, target.headers, {
              format: "svc/v0",
              content: { role: "user", content: [{ type: "text", text: `message ${i}` }] }
            })
            latencies.push(performance.now() - t0)
          }
        })
      )
      return { latencies, seconds: (performance.now() - started) / 1000 }
    }
    await appends(plain) // warm-up
    await appends(subscribed)
    const without: Array<number> = []
    const withSub: Array<number> = []
    let secondsWithout = 0
    let secondsWith = 0
    for (let round = 0; round < ROUNDS; round++) {
      const a = await appends(plain)
      const b = await appends(subscribed)
      without.push(...a.latencies)
      withSub.push(...b.latencies)
      secondsWithout += a.seconds
      secondsWith += b.seconds
    }
    const line = (name: string, values: Array<number>, seconds: number) =>
      `${name}: ${(values.length / seconds).toFixed(0)} appends/s, p50 ${quantile(values, 0.5).toFixed(2)} ms, p99 ${quantile(values, 0.99).toFixed(2)} ms`
    console.log(`store: ${store.kind}; ${ROUNDS} rounds of ${APPENDS} appends, ${CONCURRENCY} at once`)
    console.log(line("without a subscription", without, secondsWithout))
    console.log(line("with a subscription   ", withSub, secondsWith))
    console.log(
      `ratio (with / without): throughput ${(withSub.length / secondsWith / (without.length / secondsWithout)).toFixed(2)}, p50 ${(quantile(withSub, 0.5) / quantile(without, 0.5)).toFixed(2)}, p99 ${(quantile(withSub, 0.99) / quantile(without, 0.99)).toFixed(2)}`
    )
  } finally {
    await gateway.close()
    await drop()
  }
}

await main()
