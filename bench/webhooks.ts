/**
 * The cost of the webhook outbox on the hot path (`npx tsx bench/webhooks.ts`):
 * message appends in a project without a subscription beside the same
 * appends in a project subscribed to message.created (each append then
 * writes its delivery in its own transaction). Deliveries are not sent
 * on the runner's timer (JOBS_POLL_SECONDS=0): the write side is measured
 * alone.
 * Embedded store by default; PostgreSQL with BENCH_DATABASE_URL (a server
 * URL: a fresh database is made and dropped). APPENDS (default 2000) per
 * project and round, CONCURRENCY (default 8), ROUNDS (default 3), alternated.
 *
 * Then the send side: DELIVERIES (default 3000) message.created deliveries
 * waiting in the outbox for a local receiver, sent by the `webhooks` job
 * (passes run through the admin API until none is pending: each sent, its
 * attempt recorded), beside the baseline of the same number of signed POSTs
 * of the same bodies sent by a bare loop, 32 at once, one connection each
 * (as the job sends), to the same receiver: the HTTP floor.
 */
import { createServer, request } from "node:http"
import type { AddressInfo } from "node:net"
import { sign } from "../src/webhooks/WebhookSender.js"
import { ADMIN_TOKEN, benchStore, startGateway } from "./lib/gateway.js"
import { quantile } from "./lib/stats.js"

const APPENDS = Number(process.env.APPENDS ?? 2000)
const CONCURRENCY = Number(process.env.CONCURRENCY ?? 8)
const ROUNDS = Number(process.env.ROUNDS ?? 3)
const DELIVERIES = Number(process.env.DELIVERIES ?? 3000)
/** The baseline's requests at once (the job's CONCURRENCY). */
const BASELINE_CONCURRENCY = 32

/** A receiver that answers 204 to every POST, counting them. */
const startReceiver = async () => {
  const state = { received: 0 }
  const server = createServer((req, res) => {
    req.resume()
    req.on("end", () => {
      state.received++
      res.writeHead(204).end()
    })
  })
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    state,
    close: () => new Promise<void>((done) => server.close(() => done()))
  }
}

/** One signed POST of `body` on a connection of its own, as the job sends one. */
const signedPost = (url: string, secret: string, id: string, body: string) =>
  new Promise<void>((resolve, reject) => {
    const timestamp = Math.floor(Date.now() / 1000)
    const req = request(
      url,
      {
        method: "POST",
        agent: false,
        headers: {
          "content-type": "application/json",
          "content-length": Buffer.byteLength(body),
          "webhook-id": id,
          "webhook-timestamp": String(timestamp),
          "webhook-signature": sign(secret, id, timestamp, body)
        }
      },
      (res) => {
        res.resume()
        res.on("end", () => (res.statusCode === 204 ? resolve() : reject(new Error(`answered ${res.statusCode}`))))
      }
    )
    req.on("error", reject)
    req.end(body)
  })

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

    // The send side. The write side's deliveries (to a closed port) go with their subscription.
    const hooks = await fetch(`${gateway.baseUrl}/v1/admin/projects/${subscribed.id}/webhooks`, {
      headers: adminHeaders
    })
    for (const hook of ((await hooks.json()) as { webhooks: Array<{ id: string }> }).webhooks)
      await fetch(`${gateway.baseUrl}/v1/admin/projects/${subscribed.id}/webhooks/${hook.id}`, {
        method: "DELETE",
        headers: adminHeaders
      })
    const receiver = await startReceiver()
    try {
      const sending = await project("sending")
      const hook = await post(`${gateway.baseUrl}/v1/admin/projects/${sending.id}/webhooks`, adminHeaders, {
        url: receiver.url,
        events: ["message.created"]
      })
      const thread = await post(`${gateway.baseUrl}/v1/threads`, sending.headers, {
        last_message_at: new Date().toISOString()
      })
      await Promise.all(
        Array.from({ length: CONCURRENCY }, async (_, lane) => {
          for (let i = lane; i < DELIVERIES; i += CONCURRENCY)
            await post(`${gateway.baseUrl}/v1/threads/${thread.thread_id}/messages`, sending.headers, {
              format: "svc/v0",
              content: { role: "user", content: [{ type: "text", text: `delivery ${i}` }] }
            })
        })
      )
      const bodies = (
        await gateway.sql("SELECT id, body FROM webhook_deliveries WHERE project_id = $1", [sending.id])
      ).map((row) => ({ id: String(row.id), body: String(row.body) }))
      if (bodies.length !== DELIVERIES) throw new Error(`${bodies.length} deliveries in the outbox, not ${DELIVERIES}`)

      const jobStarted = performance.now()
      let passes = 0
      for (;;) {
        passes++
        const run = (await post(`${gateway.baseUrl}/v1/admin/jobs/webhooks/run`, adminHeaders, {})) as unknown as {
          details: { pending: number }
        }
        if (run.details.pending === 0) break
      }
      const jobSeconds = (performance.now() - jobStarted) / 1000
      if (receiver.state.received !== DELIVERIES) throw new Error(`${receiver.state.received} received`)

      const baseStarted = performance.now()
      let next = 0
      await Promise.all(
        Array.from({ length: BASELINE_CONCURRENCY }, async () => {
          while (next < bodies.length) {
            const item = bodies[next++]
            if (item !== undefined) await signedPost(receiver.url, hook.secret ?? "", item.id, item.body)
          }
        })
      )
      const baseSeconds = (performance.now() - baseStarted) / 1000
      const jobRate = DELIVERIES / jobSeconds
      const baseRate = DELIVERIES / baseSeconds
      console.log(
        `deliveries: the webhooks job ${jobRate.toFixed(0)}/s (${passes} passes), bare signed POSTs ${baseRate.toFixed(0)}/s; ratio ${(jobRate / baseRate).toFixed(2)}`
      )
    } finally {
      await receiver.close()
    }
  } finally {
    await gateway.close()
    await drop()
  }
}

await main()
