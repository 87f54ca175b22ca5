/**
 * Retention under load (`npx tsx bench/retention.ts`): rows deleted per
 * second by the retention job, and the p99 of message appends while it runs
 * beside the same appends without it. Embedded store by default; PostgreSQL
 * with BENCH_DATABASE_URL (a server URL: a fresh database is made and dropped).
 * THREADS (default 2000) old threads of MESSAGES (default 10) messages each.
 */
import { ADMIN_TOKEN, benchStore, type InProcessGateway as Gateway, startGateway } from "./lib/gateway.js"
import { quantile } from "./lib/stats.js"

const call = async (
  gateway: Gateway,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: unknown
) => {
  const response = await fetch(`${gateway.baseUrl}${path}`, {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })
  const text = await response.text()
  // biome-ignore lint/suspicious/noExplicitAny: a bench reads a few known fields of JSON replies
  return { status: response.status, text, body: (text === "" ? undefined : JSON.parse(text)) as any }
}
const admin = (gateway: Gateway) => (method: string, path: string, body?: unknown) =>
  call(gateway, method, `/v1/admin${path}`, { authorization: `Bearer ${ADMIN_TOKEN}` }, body)
const asUser =
  (gateway: Gateway, apiKey: string, userId: string, workspaceId: string) =>
  (method: string, path: string, options: { body?: unknown } = {}) =>
    call(
      gateway,
      method,
      `/v1${path}`,
      { authorization: `Bearer ${apiKey}`, "svc-user-id": userId, "svc-workspace-id": workspaceId },
      options.body
    )
const createProject = async (gateway: Gateway, name: string) =>
  (await admin(gateway)("POST", "/projects", { name })).body as { project_id: string; api_key: string }

const THREADS = Number(process.env.THREADS ?? 2_000)
const MESSAGES = Number(process.env.MESSAGES ?? 10)
const WRITERS = 8

const p99 = (values: Array<number>) => quantile(values, 0.99)

/** WRITERS concurrent appends into recent threads until `until` resolves; each append's latency. */
const appends = async (gateway: Gateway, apiKey: string, threadIds: Array<string>, until: Promise<unknown>) => {
  const latencies: Array<number> = []
  let done = false
  void until.then(() => {
    done = true
  })
  await Promise.all(
    Array.from({ length: WRITERS }, async (_, w) => {
      const client = asUser(gateway, apiKey, "writer", "ws-w")
      for (let i = 0; !done; i++) {
        const threadId = threadIds[(w + i * WRITERS) % threadIds.length] ?? ""
        const start = performance.now()
        const reply = await client("POST", `/threads/${threadId}/messages`, {
          body: { parent_id: null, format: "svc/v0", content: { role: "user", content: [{ type: "text", text: "x" }] } }
        })
        if (reply.status !== 201) throw new Error(`append: ${reply.status} ${reply.text}`)
        latencies.push(performance.now() - start)
      }
    })
  )
  return latencies
}

const main = async () => {
  const { store, drop } = await benchStore("retention")
  const gateway = await startGateway(store, { JOBS_POLL_SECONDS: "0", RETENTION_GRACE_HOURS: "0" })
  try {
    const project = await createProject(gateway, "bench")
    const writer = asUser(gateway, project.api_key, "writer", "ws-w")
    const recent: Array<string> = []
    for (let i = 0; i < 16; i++) {
      const reply = await writer("POST", "/threads", { body: { last_message_at: new Date().toISOString() } })
      if (reply.status !== 201) throw new Error(`thread: ${reply.status} ${reply.text}`)
      recent.push(reply.body.thread_id)
    }
    // Old threads and messages straight in SQL (fast), dated 400 days back.
    await gateway.sql(
      `INSERT INTO threads (project_id, id, workspace_id, user_id, last_message_at)
        SELECT $1, 'thread_old' || g, 'ws', 'u', now() - interval '400 days' FROM generate_series(1, $2::int) g`,
      [project.project_id, THREADS]
    )
    await gateway.sql(
      `INSERT INTO messages (project_id, thread_id, id, user_id, height, format, content)
        SELECT $1, 'thread_old' || t, 'msg_old' || t || '_' || m, 'u', m, 'svc/v0', '{"role":"user","content":[]}'::jsonb
        FROM generate_series(1, $2::int) t, generate_series(1, $3::int) m`,
      [project.project_id, THREADS, MESSAGES]
    )
    const rows = THREADS * (1 + MESSAGES)
    // Baseline: appends for as long as the deletion will roughly take (3 s at least).
    const baseline = await appends(
      gateway,
      project.api_key,
      recent,
      new Promise((resolve) => setTimeout(resolve, 3_000))
    )
    await admin(gateway)("PUT", `/projects/${project.project_id}/retention`, { days: 365 })
    const started = performance.now()
    const job = admin(gateway)("POST", "/jobs/retention/run")
    const during = await appends(gateway, project.api_key, recent, job)
    const seconds = (performance.now() - started) / 1000
    const result = (await job).body as { items: number }
    console.log(`store ${store.kind}: ${THREADS} threads x ${MESSAGES} messages (${rows} rows)`)
    console.log(`deleted ${result.items} rows in ${seconds.toFixed(2)} s: ${Math.round(result.items / seconds)} rows/s`)
    console.log(
      `append p99 without: ${p99(baseline).toFixed(1)} ms (${baseline.length}); with: ${p99(during).toFixed(1)} ms (${during.length}); ratio ${(p99(during) / p99(baseline)).toFixed(2)}`
    )
  } finally {
    await gateway.close()
    await drop()
  }
}

main().catch((error) => {
  console.error(error)
  process.exit(1)
})
