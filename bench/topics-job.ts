/**
 * npm run bench:topics-job — the `topics` job end to end (issue 26): a
 * gateway in this process on the embedded store (and on PostgreSQL with
 * BENCH_DATABASE_URL), a project holding TOPICS_JOB_THREADS labelled threads
 * (bench/lib/topics-corpus.ts, English, Spanish and Chinese, each with its
 * user messages and an answer after each, written in bulk by SQL), then
 * through the admin API: the first full run (read, cluster in the worker
 * thread, write every thread's topic), 500 new threads placed between full
 * runs, and a forced full run over the same threads (ids kept). While each
 * runs, GET /healthz every 20 ms: its worst and 99th-percentile latency say
 * whether the job holds the gateway's event loop (the clustering is in a
 * worker thread; reading and writing are not). Results: stdout, and JSON in
 * bench/results/topics-job-<run>.json.
 */
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { ADMIN_TOKEN, benchStore, startGateway } from "./lib/gateway.js"
import { intEnv, log, RESULTS, runId } from "./lib/settings.js"
import { type LabelledThread, makeCorpus } from "./lib/topics-corpus.js"

const threadsN = Math.max(100, intEnv("TOPICS_JOB_THREADS", 10_000))
const placedN = 500
const storeName = process.env.BENCH_DATABASE_URL === undefined ? "embedded" : "postgres"

const call = async (baseUrl: string, method: string, path: string, headers: Record<string, string>, body?: unknown) => {
  const reply = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })
  const text = await reply.text()
  if (!reply.ok) throw new Error(`${method} ${path}: ${reply.status} ${text}`)
  return JSON.parse(text) as Record<string, unknown>
}

/** A figure of a job run's details (NaN when absent). */
const count = (details: unknown, key: string): number =>
  typeof details === "object" && details !== null ? Number(Reflect.get(details, key)) : Number.NaN

/** /healthz every 20 ms until `until` settles: the latencies (ms). */
const probe = async (baseUrl: string, until: Promise<unknown>) => {
  let done = false
  void until.finally(() => {
    done = true
  })
  const latencies: Array<number> = []
  while (!done) {
    const start = performance.now()
    await fetch(`${baseUrl}/healthz`).then((reply) => reply.arrayBuffer())
    latencies.push(performance.now() - start)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  latencies.sort((a, b) => a - b)
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0
  return { probes: latencies.length, p50: at(0.5), p99: at(0.99), max: latencies.at(-1) ?? 0 }
}

/** The corpus's threads (and their messages) written in one statement each per 1,000 threads. */
const seed = async (
  sql: (text: string, params?: ReadonlyArray<unknown>) => Promise<ReadonlyArray<Record<string, unknown>>>,
  projectId: string,
  threads: ReadonlyArray<LabelledThread>,
  prefix: string
) => {
  for (let i = 0; i < threads.length; i += 1000) {
    const batch = threads.slice(i, i + 1000).map((thread, j) => ({
      id: `thread_${prefix}${String(i + j).padStart(7, "0")}`,
      messages: thread.texts.flatMap((text, k) => [
        { id: `msg_${prefix}${String(i + j).padStart(7, "0")}_${k}u`, n: 2 * k, role: "user", text },
        {
          id: `msg_${prefix}${String(i + j).padStart(7, "0")}_${k}a`,
          n: 2 * k + 1,
          role: "assistant",
          text: "Here is what I found."
        }
      ])
    }))
    const json = JSON.stringify(batch)
    await sql(
      `INSERT INTO threads (project_id, id, workspace_id, user_id, last_message_at)
       SELECT $1, b.id, 'ws-bench', 'user-bench', now() FROM jsonb_to_recordset($2::jsonb) AS b (id text)`,
      [projectId, json]
    )
    await sql(
      `INSERT INTO messages (project_id, thread_id, id, parent_id, user_id, height, format, content)
       SELECT $1, b.id, m.id, NULL, 'user-bench', m.n, 'svc/v0',
         jsonb_build_object('role', m.role, 'content', jsonb_build_array(jsonb_build_object('type', 'text', 'text', m.text)))
       FROM jsonb_to_recordset($2::jsonb) AS b (id text, messages jsonb),
         LATERAL jsonb_to_recordset(b.messages) AS m (id text, n int, role text, text text)`,
      [projectId, json]
    )
  }
}

const { store, drop } = await benchStore("topics-job")
// The job runs only when asked; new threads are placed at once.
const gateway = await startGateway(store, { JOBS_POLL_SECONDS: "0", TOPICS_SETTLE_SECONDS: "0" })
const admin = { authorization: `Bearer ${ADMIN_TOKEN}` }
try {
  const project = await call(gateway.baseUrl, "POST", "/v1/admin/projects", admin, { name: "topics-job" })
  const projectId = String(project.project_id)
  const corpus = makeCorpus({ perCell: Math.ceil(threadsN / 24), seed: 7, idPrefix: "job" }).slice(0, threadsN)
  let start = performance.now()
  await seed(gateway.sql, projectId, corpus, "a")
  log(`${storeName}: ${corpus.length} threads written in ${((performance.now() - start) / 1000).toFixed(1)} s`)

  const run = async (label: string) => {
    start = performance.now()
    const job = call(gateway.baseUrl, "POST", "/v1/admin/jobs/topics/run", admin)
    const [result, health] = await Promise.all([job, probe(gateway.baseUrl, job)])
    const seconds = (performance.now() - start) / 1000
    if (result.error !== null) throw new Error(`${label}: ${String(result.error)}`)
    log(
      `${label}: ${seconds.toFixed(2)} s, ${JSON.stringify(result.details)}; /healthz during it p50 ${health.p50.toFixed(1)} ms, p99 ${health.p99.toFixed(1)} ms, max ${health.max.toFixed(1)} ms (${health.probes} probes)`
    )
    return { label, seconds, details: result.details, health }
  }
  const full = await run(`full run, ${corpus.length} threads`)
  const extra = makeCorpus({ perCell: Math.ceil(placedN / 24), seed: 8, idPrefix: "new" }).slice(0, placedN)
  await seed(gateway.sql, projectId, extra, "b")
  const placed = await run(`placing ${extra.length} new threads`)
  // The ceiling changed: the next pass groups again from scratch, from the threads' topics.
  await call(gateway.baseUrl, "PUT", `/v1/admin/projects/${projectId}/topic-ceiling`, admin, { value: 31 })
  const rerun = await run(`full run again (ceiling 31), ${corpus.length + extra.length} threads`)
  // Every thread read: a keyset cursor that lost created_at's microseconds once skipped the rest of a page's instant.
  if (count(full.details, "threads_grouped") !== corpus.length) throw new Error("the first full run missed threads")
  if (count(placed.details, "threads_placed") !== extra.length) throw new Error("placement missed threads")
  if (count(rerun.details, "threads_grouped") !== corpus.length + extra.length) {
    throw new Error("the second full run missed threads")
  }

  const out = { run: runId, store: storeName, threads: corpus.length, full, placed, rerun }
  mkdirSync(RESULTS, { recursive: true })
  writeFileSync(join(RESULTS, `topics-job-${runId}.json`), `${JSON.stringify(out, null, 2)}\n`)
} finally {
  await gateway.close()
  await drop()
}
