/**
 * `npm run soak` (issue 28): three gateways behind HAProxy, on a PostgreSQL
 * of the soak's own behind PgBouncer in transaction mode (bench/soak/cluster.ts),
 * under a mixed workload at 80 % of the setup's measured maximum (with the
 * webhook deliveries its writes cause) for
 * SOAK_SECONDS (600), while a gateway is killed (-9) and restarted,
 * PostgreSQL restarted and PgBouncer stopped for 5 s. Then the checks: every
 * acknowledged write stored exactly once, only 503 with Retry-After (or a
 * lost connection) inside the outage windows and no 5xx outside them, every
 * webhook event delivered, periodic jobs run once per period, gateway memory
 * flat. Prints a report, writes it as JSON (SOAK_REPORT, else
 * bench/results/soak-<time>.json) and exits 1 on a failed check.
 *
 * Settings: SOAK_SECONDS (600), SOAK_RAMP_STEP_SECONDS (3 below 120 s of
 * soak, else 10), SOAK_GRACE_SECONDS (10: after a fault's end, still its
 * window), SOAK_DRAIN_SECONDS (45: the longest wait for webhook deliveries
 * at the end), SOAK_LOAD_FRACTION (0.8), SOAK_KEEP=1 keeps the folder with
 * every log, SOAK_HEAP_SNAPSHOTS (soak seconds: the first gateway writes a
 * heap snapshot at each, into bench/results/heap/).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import pg from "pg"
import { RESULTS } from "../lib/settings.js"
import { quantile } from "../lib/stats.js"
import { type Attempt, Client, closeClient, sleep } from "./client.js"
import { type Cluster, type GatewayProcess, removeDir, rssMb, startCluster } from "./cluster.js"
import { CHAT_SPANS, SPANS_PER_TRACE, startReceiver, Workload } from "./workload.js"

const SECONDS = Number(process.env.SOAK_SECONDS ?? 600)
const SHORT = SECONDS < 120
const RAMP_STEP = Number(process.env.SOAK_RAMP_STEP_SECONDS ?? (SHORT ? 3 : 10))
const GRACE_MS = Number(process.env.SOAK_GRACE_SECONDS ?? 10) * 1000
const DRAIN_MS = Number(process.env.SOAK_DRAIN_SECONDS ?? 45) * 1000
const FRACTION = Number(process.env.SOAK_LOAD_FRACTION ?? 0.8)
/** Soak seconds at which the first gateway writes a heap snapshot (SOAK_HEAP_SNAPSHOTS="140,210,290"), to see what its heap holds. */
const SNAPSHOTS = (process.env.SOAK_HEAP_SNAPSHOTS ?? "")
  .split(",")
  .filter((s) => s.trim() !== "")
  .map(Number)
/** Memory is compared from here (minute 2; 20 s into a run shorter than 3 minutes). */
const MEMORY_FROM_MS = SECONDS >= 180 ? 120_000 : 20_000
/** Requests on the wire at once, at most (operations waiting to send again are not counted). */
const MAX_IN_FLIGHT = 1000
/** Job periods the gateways run with, seconds (short so that a 60 s soak sees several). */
const JOB_PERIODS: Record<string, number> = {
  webhooks: 1,
  evaluators: SHORT ? 10 : 60,
  topics: SHORT ? 20 : 120,
  retention: 60,
  alerts: 60
}

/**
 * Jobs that drain a queue: a pass that stops on its budget with work left is due again at once (JobResult.more), so
 * their check is that passes never overlap; the others' that a period separates them.
 */
const DRAINS = new Set(["webhooks"])

/**
 * The gateway's memory as its /metrics tells it (prom-client's process figures), MB: the V8 heap in use and
 * reserved, and the memory outside it (Buffers and other native allocations V8 knows of); none when not read.
 */
const gatewayMemory = async (
  port: number
): Promise<
  | { heapMb: number; heapTotalMb: number | undefined; externalMb: number | undefined; connections: number | undefined }
  | undefined
> => {
  try {
    const response = await fetch(`http://127.0.0.1:${port}/metrics`, { signal: AbortSignal.timeout(2000) })
    const lines = (await response.text()).split("\n")
    const mb = (name: string) => {
      const bytes = Number(lines.find((l) => l.startsWith(`${name} `))?.split(" ")[1])
      return Number.isFinite(bytes) ? Math.round(bytes / 1e5) / 10 : undefined
    }
    const heapMb = mb("nodejs_heap_size_used_bytes")
    return heapMb === undefined
      ? undefined
      : {
          heapMb,
          heapTotalMb: mb("nodejs_heap_size_total_bytes"),
          externalMb: mb("nodejs_external_memory_bytes"),
          // The pool's connections, idle and busy (the memory each holds comes and goes with them).
          connections: lines
            .filter((l) => l.startsWith("svc_db_pool_connections{"))
            .reduce((sum, l) => sum + Number(l.split(" ")[1] ?? 0), 0)
        }
  } catch {
    return undefined
  }
}

const log = (line: string) => console.log(`[soak] ${line}`)

interface Fault {
  readonly name: string
  /** Soak clock, ms. */
  readonly start: number
  end: number
  readonly detail: string
}

interface JobSample {
  readonly at: number
  readonly rows: ReadonlyArray<{
    name: string
    runs: number
    last_started_at: Date | null
    last_finished_at: Date | null
  }>
}

const SNAPSHOT_DIR = join(RESULTS, "heap")

const main = async () => {
  if (SNAPSHOTS.length > 0) mkdirSync(SNAPSHOT_DIR, { recursive: true })
  const epoch = Date.now()
  const clock = () => Date.now() - epoch
  let cluster: Cluster | undefined
  let failed = false
  const interrupt = (signal: string) => {
    console.error(`[soak] ${signal}: stopping everything`)
    cluster?.stopNow()
    process.exit(130)
  }
  process.on("SIGINT", () => interrupt("SIGINT"))
  process.on("SIGTERM", () => interrupt("SIGTERM"))

  let webhookSecret: string | undefined
  const receiver = await startReceiver(() => webhookSecret)
  try {
    cluster = await startCluster({
      gateways: 3,
      // Each full collection's heap before and after, on the gateways' stdout: the live heap (section 7).
      nodeArgs: [
        "--trace-gc",
        ...(SNAPSHOTS.length > 0 ? ["--heapsnapshot-signal=SIGUSR2", `--diagnostic-dir=${SNAPSHOT_DIR}`] : [])
      ],
      gatewayEnv: {
        LOG_LEVEL: "warn",
        JOBS_POLL_SECONDS: "1",
        EVALUATOR_INTERVAL_SECONDS: String(JOB_PERIODS.evaluators),
        TOPICS_INTERVAL_SECONDS: String(JOB_PERIODS.topics),
        RETENTION_INTERVAL_MINUTES: "1"
      }
    })
    const c = cluster
    const setupSeconds = clock() / 1000
    const client = new Client(c.balancerUrl, clock, 60_000)
    const workload = new Workload(client, c.adminToken)
    await workload.setup(receiver.url, 16, 4)
    webhookSecret = workload.webhookSecret
    const direct = new pg.Pool({ connectionString: c.directUrl, max: 2, connectionTimeoutMillis: 2000 })
    direct.on("error", () => undefined)

    // 1. The ramp: closed loops of growing concurrency, until the rate stops growing. A step's rate counts the
    // webhook deliveries its writes cause: the step ends when the outbox is empty again, so the rate is one the
    // setup sustains with its deliveries (measured without them, 80 % of it left a growing backlog).
    const outboxPending = async () => {
      const { rows } = await direct.query("SELECT count(*)::int AS n FROM webhook_deliveries WHERE status = 'pending'")
      return Number(rows[0]?.n ?? 0)
    }
    const ramp: Array<{ concurrency: number; rate: number; p50: number; p99: number; drain_ms: number }> = []
    for (const concurrency of [4, 8, 16, 32, 64]) {
      const from = client.attempts.length
      const startedAt = clock()
      const stopAt = startedAt + RAMP_STEP * 1000
      let done = 0
      await Promise.all(
        Array.from({ length: concurrency }, async () => {
          while (clock() < stopAt) {
            await workload.one()
            done++
          }
        })
      )
      const drainFrom = clock()
      while ((await outboxPending()) > 0 && clock() - drainFrom < 60_000) await sleep(100)
      const ms = client.attempts.slice(from).map((a) => a.ms)
      ramp.push({
        concurrency,
        rate: Math.round((done * 1000) / (clock() - startedAt)),
        p50: Math.round(quantile(ms, 0.5) * 10) / 10,
        p99: Math.round(quantile(ms, 0.99) * 10) / 10,
        drain_ms: clock() - drainFrom
      })
      const step = ramp.at(-1)
      log(
        `ramp: ${concurrency} at once: ${step?.rate} ops/s with their deliveries (sent within ${step?.drain_ms} ms of the step), p50 ${step?.p50} ms, p99 ${step?.p99} ms`
      )
      const best = Math.max(...ramp.slice(0, -1).map((r) => r.rate), 0)
      if (ramp.length > 1 && (step?.rate ?? 0) < best * 1.05) break
    }
    const maxRate = Math.max(...ramp.map((r) => r.rate))
    const rate = Math.max(1, Math.round(maxRate * FRACTION))
    log(`maximum ${maxRate} ops/s; the soak runs at ${rate} ops/s for ${SECONDS} s`)

    // 2. The soak: an open loop at `rate`, faults on a schedule, watches.
    const soakStart = clock()
    const soakEnd = soakStart + SECONDS * 1000
    const firstAttempt = client.attempts.length
    const faults: Array<Fault> = []
    const memory: Array<{
      at: number
      gateway: string
      pid: number
      rssMb: number
      heapMb: number | undefined
      heapTotalMb: number | undefined
      externalMb: number | undefined
      connections: number | undefined
    }> = []
    const jobSamples: Array<JobSample> = []
    /** Soak clock of each operation not sent (the client's MAX_IN_FLIGHT requests on the wire). */
    const notSentAt: Array<number> = []
    let issued = 0
    const pending = new Set<Promise<void>>()
    const track = (p: Promise<void>) => {
      pending.add(p)
      void p.finally(() => pending.delete(p))
    }

    const watches = (async () => {
      let lastMemory = -Infinity
      while (clock() < soakEnd) {
        if (clock() - lastMemory >= 5000) {
          lastMemory = clock()
          for (const g of c.gateways) {
            const pid = g.child?.pid
            const mb = pid === undefined ? undefined : rssMb(pid)
            const at = clock() - soakStart
            if (pid !== undefined && mb !== undefined) {
              const figures = await gatewayMemory(g.port)
              memory.push({
                at,
                gateway: g.name,
                pid,
                rssMb: mb,
                heapMb: figures?.heapMb,
                heapTotalMb: figures?.heapTotalMb,
                externalMb: figures?.externalMb,
                connections: figures?.connections
              })
            }
          }
        }
        try {
          const t0 = clock()
          const { rows } = await direct.query(
            "SELECT name, runs::float8 AS runs, last_started_at, last_finished_at FROM jobs ORDER BY name"
          )
          jobSamples.push({ at: (t0 + clock()) / 2, rows })
        } catch {
          // PostgreSQL restarting
        }
        await sleep(300)
      }
    })()

    // Faults at a quarter, a half and three quarters of the soak; a longer soak repeats them.
    const schedule: Array<{ at: number; kind: "kill" | "postgres" | "pooler" }> = []
    const cycle = SECONDS >= 400 ? SECONDS / 2 : SECONDS
    for (let base = 0; base + cycle <= SECONDS + 1; base += cycle) {
      schedule.push({ at: base + cycle * 0.25, kind: "kill" })
      schedule.push({ at: base + cycle * 0.5, kind: "postgres" })
      schedule.push({ at: base + cycle * 0.75, kind: "pooler" })
    }
    const faultRunner = (async () => {
      let n = 0
      for (const entry of schedule) {
        await sleep(Math.max(0, soakStart + entry.at * 1000 - clock()))
        n++
        if (entry.kind === "kill") {
          const index = 2
          const gateway = c.gateways[index]
          const fault: Fault = {
            name: "kill -9 a gateway",
            start: clock(),
            end: 0,
            detail: `${gateway?.name} (pid ${gateway?.child?.pid}) killed, restarted at once`
          }
          c.killGateway(index)
          await gateway?.child?.exited
          await c.startGateway(index)
          fault.end = clock()
          faults.push(fault)
        } else if (entry.kind === "postgres") {
          const mode = n % 2 === 0 ? "fast" : "immediate"
          const fault: Fault = {
            name: "restart PostgreSQL",
            start: clock(),
            end: 0,
            detail: `pg_ctl restart -m ${mode}`
          }
          await c.restartPostgres(mode)
          fault.end = clock()
          faults.push(fault)
        } else {
          const fault: Fault = {
            name: "stop PgBouncer for 5 s",
            start: clock(),
            end: 0,
            detail: "scripts/pgbouncer.sh stop, 5 s, start"
          }
          await c.stopPooler()
          await sleep(5000)
          await c.startPooler()
          fault.end = clock()
          faults.push(fault)
        }
        const last = faults.at(-1)
        if (last !== undefined)
          log(
            `fault: ${last.name} from ${((last.start - soakStart) / 1000).toFixed(1)} s to ${((last.end - soakStart) / 1000).toFixed(1)} s (${last.detail})`
          )
      }
    })()

    const snapshots = (async () => {
      for (const at of SNAPSHOTS) {
        await sleep(Math.max(0, soakStart + at * 1000 - clock()))
        const pid = c.gateways[0]?.child?.pid
        if (pid === undefined) continue
        process.kill(pid, "SIGUSR2")
        log(`${at} s: ${c.gateways[0]?.name} (pid ${pid}) writes a heap snapshot into ${SNAPSHOT_DIR}`)
      }
    })()

    let nextAnonymous = soakStart
    let lastLog = soakStart
    while (clock() < soakEnd) {
      const due = Math.floor(((clock() - soakStart) / 1000) * rate) - issued
      for (let i = 0; i < due; i++) {
        issued++
        if (client.inFlight >= MAX_IN_FLIGHT) notSentAt.push(clock())
        else track(workload.one())
      }
      if (clock() >= nextAnonymous) {
        nextAnonymous += 3000
        track(workload.anonymous())
      }
      if (clock() - lastLog >= 30_000) {
        lastLog = clock()
        log(`${Math.round((clock() - soakStart) / 1000)} s: ${issued} issued, ${client.inFlight} in flight`)
      }
      await sleep(5)
    }
    await faultRunner
    await watches
    await snapshots
    log(`soak over; waiting for ${pending.size} operations in flight`)
    await Promise.all([...pending])
    const soakAttempts = client.attempts.slice(firstAttempt)

    // 3. Webhook deliveries drain.
    const drainStart = clock()
    const undelivered = () => {
      const missing: Record<string, number> = { "message.created": 0, "run.created": 0, "score.created": 0 }
      const has = (type: string, id: string) => (receiver.delivered.get(type)?.get(id) ?? 0) > 0
      for (const m of workload.ack.messages.values()) if (!has("message.created", m.id)) missing["message.created"]++
      for (const id of workload.ack.runs.values()) if (!has("run.created", id)) missing["run.created"]++
      for (const id of workload.ack.scores.values()) if (!has("score.created", id)) missing["score.created"]++
      return missing
    }
    while (clock() - drainStart < DRAIN_MS && Object.values(undelivered()).some((n) => n > 0)) await sleep(500)
    const missingDeliveries = undelivered()
    const drainSeconds = (clock() - drainStart) / 1000
    log(`webhook deliveries drained in ${round(drainSeconds)} s; reading back`)

    // 4. Read back, on the soak's own database.
    const project = workload.projectId
    const rows = async (text: string, params: ReadonlyArray<unknown> = [project]) =>
      (await direct.query(text, [...params])).rows as Array<Record<string, unknown>>
    const counts = (list: Array<Record<string, unknown>>, key: string) =>
      new Map(list.map((r) => [String(r[key]), Number(r.n)]))
    const messageRows = counts(
      await rows(
        "SELECT thread_id || '/' || external_id AS k, count(*) AS n FROM messages WHERE project_id = $1 AND external_id IS NOT NULL GROUP BY 1"
      ),
      "k"
    )
    const messageIds = new Set((await rows("SELECT id FROM messages WHERE project_id = $1")).map((r) => String(r.id)))
    const runRows = counts(
      await rows(
        "SELECT idempotency_key AS k, count(*) AS n FROM runs WHERE project_id = $1 AND idempotency_key IS NOT NULL GROUP BY 1"
      ),
      "k"
    )
    const scoreRows = counts(
      await rows("SELECT comment AS k, count(*) AS n FROM scores WHERE project_id = $1 GROUP BY 1"),
      "k"
    )
    const scoreIds = new Set((await rows("SELECT id FROM scores WHERE project_id = $1")).map((r) => String(r.id)))
    const eventRows = counts(
      await rows("SELECT client_id AS k, count(*) AS n FROM events WHERE project_id = $1 GROUP BY 1"),
      "k"
    )
    const spanRows = counts(
      await rows("SELECT trace_id AS k, count(*) AS n FROM spans WHERE project_id = $1 GROUP BY 1"),
      "k"
    )
    const derivedRows = counts(
      await rows(
        "SELECT trace_id AS k, count(*) AS n FROM runs WHERE project_id = $1 AND span_id IS NOT NULL GROUP BY 1"
      ),
      "k"
    )
    const tally = (
      expected: Iterable<[string, number]>,
      stored: Map<string, number>,
      extra?: (key: string) => boolean
    ) => {
      let lost = 0
      let duplicated = 0
      let total = 0
      const examples: Array<string> = []
      for (const [key, want] of expected) {
        total++
        const got = stored.get(key) ?? 0
        if (got < want || (extra !== undefined && !extra(key))) {
          lost++
          if (examples.length < 5) examples.push(`${key}: ${got} of ${want}`)
        } else if (got > want) {
          duplicated++
          if (examples.length < 5) examples.push(`${key}: ${got} of ${want}`)
        }
      }
      return { acknowledged: total, lost, duplicated, examples }
    }
    const writes = {
      messages: tally(
        [...workload.ack.messages.entries()].map(([ext, m]): [string, number] => [`${m.threadId}/${ext}`, 1]),
        messageRows,
        (key) => {
          const ext = key.slice(key.indexOf("/") + 1)
          const id = workload.ack.messages.get(ext)?.id
          return id !== undefined && messageIds.has(id)
        }
      ),
      runs: tally(
        [...workload.ack.runs.keys()].map((k): [string, number] => [k, 1]),
        runRows
      ),
      scores: tally(
        [...workload.ack.scores.keys()].map((k): [string, number] => [k, 1]),
        scoreRows,
        (k) => scoreIds.has(workload.ack.scores.get(k) ?? "")
      ),
      events: tally(
        [...workload.ack.events].map((k): [string, number] => [k, 1]),
        eventRows
      ),
      spans: tally(
        [...workload.ack.traces].map((k): [string, number] => [k, SPANS_PER_TRACE]),
        spanRows
      ),
      span_runs: tally(
        [...workload.ack.traces].map((k): [string, number] => [k, CHAT_SPANS]),
        derivedRows
      )
    }

    // 5. Answers against the outage windows.
    const windows = faults.map((f) => ({ from: f.start, to: f.end + GRACE_MS }))
    const inWindow = (a: Attempt) => windows.some((w) => a.at >= w.from && a.at <= w.to)
    // status 0: no answer; -1: an MCP call answered 200 with a JSON-RPC error.
    const isFailure = (a: Attempt) => a.status === 0 || a.status === -1 || a.status >= 500
    const staleSockets = soakAttempts.filter((a) => a.staleSocket === true).length
    const allowedInWindow = (a: Attempt) =>
      a.status === 0 || (a.status === 503 && a.retryAfter) || (a.balancer && a.status === 502)
    const outside = soakAttempts.filter((a) => isFailure(a) && !inWindow(a))
    const badInside = soakAttempts.filter((a) => isFailure(a) && inWindow(a) && !allowedInWindow(a))
    const describe = (list: ReadonlyArray<Attempt>) => {
      const by = new Map<string, number>()
      for (const a of list) {
        const key = `${a.op} ${a.status <= 0 ? (a.error ?? "no answer") : a.status}${a.balancer ? " (HAProxy)" : ""}${a.status === 503 && !a.retryAfter ? " without Retry-After" : ""}`
        by.set(key, (by.get(key) ?? 0) + 1)
      }
      return Object.fromEntries(by)
    }
    const gatewayOutcomeUnknown = soakAttempts.filter((a) => a.status === 504 && !a.balancer).length

    // Recovery: from a fault's end to the last failed answer of its window (0 when none came after the end).
    const faultReport = faults.map((f, i) => {
      const own = windows[i] ?? { from: f.start, to: f.end }
      // A fault's failures are those before the next fault starts.
      const w = { from: own.from, to: Math.min(own.to, faults[i + 1]?.start ?? Infinity) }
      const failures = soakAttempts.filter((a) => isFailure(a) && a.at >= w.from && a.at <= w.to)
      const lastFailure = failures.length === 0 ? undefined : Math.max(...failures.map((a) => a.at))
      const firstFailure = failures.length === 0 ? undefined : Math.min(...failures.map((a) => a.at))
      return {
        fault: f.name,
        detail: f.detail,
        start_s: round((f.start - soakStart) / 1000),
        end_s: round((f.end - soakStart) / 1000),
        outage_ms: Math.round(f.end - f.start),
        failed_answers: describe(failures),
        first_failure_after_start_ms: firstFailure === undefined ? null : Math.round(firstFailure - f.start),
        recovery_ms: lastFailure === undefined ? 0 : Math.max(0, Math.round(lastFailure - f.end)),
        gateway_504_at_s: failures
          .filter((a) => a.status === 504 && !a.balancer)
          .slice(0, 12)
          .map((a) => round((a.at - soakStart) / 1000))
      }
    })

    // 6. Jobs: never twice in one period.
    const jobIssues: Array<string> = []
    const jobRuns: Record<string, number> = {}
    for (let i = 1; i < jobSamples.length; i++) {
      const prev = jobSamples[i - 1]
      const cur = jobSamples[i]
      if (prev === undefined || cur === undefined) continue
      for (const row of cur.rows) {
        const before = prev.rows.find((r) => r.name === row.name)
        const period = JOB_PERIODS[row.name]
        if (before === undefined || period === undefined) continue
        const delta = row.runs - before.runs
        if (delta <= 0) continue
        jobRuns[row.name] = (jobRuns[row.name] ?? 0) + delta
        // A queue's drain follows a pass that left work behind at once (JobResult.more): it may not overlap one.
        const gap = DRAINS.has(row.name) ? 0 : period * 1000
        const possible = DRAINS.has(row.name) ? Infinity : Math.floor((cur.at - prev.at + 500) / (period * 1000)) + 1
        if (delta > possible) jobIssues.push(`${row.name}: ${delta} runs within ${Math.round(cur.at - prev.at)} ms`)
        if (
          delta === 1 &&
          row.last_started_at !== null &&
          before.last_finished_at !== null &&
          row.last_started_at.getTime() < before.last_finished_at.getTime() + gap - 100
        )
          jobIssues.push(
            `${row.name}: started ${row.last_started_at.toISOString()}, ${before.last_finished_at.getTime() + gap - row.last_started_at.getTime()} ms before ${DRAINS.has(row.name) ? "the end of the pass before" : "its period after"} ${before.last_finished_at.toISOString()}`
          )
      }
    }
    const finalJobs = await rows(
      "SELECT name, runs::float8 AS runs, failures::float8 AS failures, last_error FROM jobs ORDER BY name",
      []
    )

    // 7. Memory: each gateway from MEMORY_FROM_MS (after its restart, for the one killed) to the end. What is
    // checked is the live heap: the least heap left by a full collection (V8's Mark-Compact, which --trace-gc logs)
    // in the first two minutes compared and in the last two; a leak raises it. The heap's floor (its least use
    // sampled every 5 s) and the resident size are reported beside it: the floor counts old garbage a full
    // collection has not reached yet, and the resident size keeps the heap's high-water mark of a backlog (a
    // fault's retries) long after.
    const fullCollections = (g: GatewayProcess) => {
      const pid = g.child?.pid
      const startedAt = g.startedAt
      if (pid === undefined || startedAt === undefined || !existsSync(g.logFile)) return []
      const found: Array<{ at: number; liveMb: number }> = []
      const line = /^\[(\d+):0x[0-9a-f]+\]\s+(\d+) ms: Mark-Compact (?:\(reduce\) )?[\d.]+ \([\d.]+\) -> ([\d.]+) \(/
      for (const text of readFileSync(g.logFile, "utf8").split("\n")) {
        const match = line.exec(text)
        if (match === null || Number(match[1]) !== pid) continue
        // Its time from the process's start, on the soak's clock.
        found.push({ at: startedAt + Number(match[2]) - epoch - soakStart, liveMb: Number(match[3]) })
      }
      return found
    }
    const liveOf = (collections: ReadonlyArray<{ liveMb: number }>) =>
      collections.length === 0 ? undefined : Math.min(...collections.map((c) => c.liveMb))
    const floorOf = (samples: ReadonlyArray<{ heapMb: number | undefined }>) => {
      const heaps = samples.flatMap((m) => (m.heapMb === undefined ? [] : [m.heapMb]))
      return heaps.length === 0 ? undefined : Math.min(...heaps)
    }
    /** Every minute's median of `value`, MB. */
    const byMinute = <M extends { readonly at: number }>(
      samples: ReadonlyArray<M>,
      value: (m: M) => number | undefined
    ) =>
      Array.from({ length: Math.ceil(SECONDS / 60) }, (_, minute) => {
        const values = samples
          .filter((m) => m.at >= minute * 60_000 && m.at < (minute + 1) * 60_000)
          .flatMap((m) => {
            const v = value(m)
            return v === undefined ? [] : [v]
          })
        return values.length === 0 ? null : Math.round(quantile(values, 0.5))
      })
    const memoryReport = c.gateways.map((g) => {
      const samples = memory.filter((m) => m.gateway === g.name && m.pid === g.child?.pid)
      const restarted = samples[0] !== undefined && samples[0].at > 5000
      // The restarted gateway is compared from MEMORY_FROM_MS after its restart.
      const fromAt = (restarted ? (samples[0]?.at ?? 0) : 0) + MEMORY_FROM_MS
      const base = samples.find((m) => m.at >= fromAt)
      const last = samples.at(-1)
      const compared = base !== undefined && last !== undefined && last.at - base.at >= 10_000
      const firstFloor = compared
        ? floorOf(samples.filter((m) => m.at >= base.at && m.at < base.at + 60_000))
        : undefined
      const lastFloor = compared ? floorOf(samples.filter((m) => m.at > last.at - 60_000)) : undefined
      const collections = fullCollections(g)
      const firstLive = compared
        ? liveOf(collections.filter((x) => x.at >= base.at && x.at < base.at + 120_000))
        : undefined
      // The last two minutes, never before the compared start: a shorter run's would reach back to the gateways'
      // start (a 60 s run read their first collection, 29.6 MB, as every gateway's end).
      const lastLive = compared
        ? liveOf(collections.filter((x) => x.at >= base.at && x.at > last.at - 120_000))
        : undefined
      const growth = firstLive === undefined || lastLive === undefined ? null : (lastLive - firstLive) / firstLive
      return {
        gateway: g.name,
        full_collections: collections.length,
        live_from_mb: firstLive ?? null,
        live_end_mb: lastLive ?? null,
        restarted,
        from_s: base === undefined ? null : round(base.at / 1000),
        end_s: last === undefined ? null : round(last.at / 1000),
        heap_floor_from_mb: firstFloor ?? null,
        heap_floor_end_mb: lastFloor ?? null,
        growth: growth === null ? null : round(growth * 100) / 100,
        rss_from_mb: base?.rssMb ?? null,
        rss_end_mb: last?.rssMb ?? null,
        rss_growth: compared ? round(((last.rssMb - base.rssMb) / base.rssMb) * 100) / 100 : null,
        /** Every minute's median resident size, MB. */
        rss_by_minute_mb: byMinute(samples, (m) => m.rssMb),
        heap_total_by_minute_mb: byMinute(samples, (m) => m.heapTotalMb),
        external_by_minute_mb: byMinute(samples, (m) => m.externalMb),
        pool_connections_by_minute: byMinute(samples, (m) => m.connections),
        /** Every minute's live heap: the least a full collection left in it, MB. */
        live_by_minute_mb: Array.from({ length: Math.ceil(SECONDS / 60) }, (_, minute) => {
          const live = liveOf(collections.filter((x) => x.at >= minute * 60_000 && x.at < (minute + 1) * 60_000))
          return live ?? null
        })
      }
    })
    const notSentOutside = notSentAt.filter((at) => !windows.some((w) => at >= w.from && at <= w.to)).length

    // 8. Per minute.
    const minutes: Array<Record<string, unknown>> = []
    for (let m = 0; m * 60_000 < SECONDS * 1000; m++) {
      const from = soakStart + m * 60_000
      const to = Math.min(soakEnd, from + 60_000)
      const inMinute = soakAttempts.filter((a) => a.at >= from && a.at < to)
      const ok = inMinute.filter((a) => a.status > 0 && a.status < 500)
      const failedHere = inMinute.filter(isFailure)
      const ms = ok.map((a) => a.ms)
      minutes.push({
        minute: m + 1,
        answers_per_s: round(ok.length / ((to - from) / 1000)),
        appends_per_s: round(ok.filter((a) => a.op === "append" && a.status < 300).length / ((to - from) / 1000)),
        p50_ms: round(quantile(ms, 0.5)),
        p99_ms: round(quantile(ms, 0.99)),
        failed_answers: failedHere.length
      })
    }
    const allMs = soakAttempts.filter((a) => a.status > 0 && a.status < 500).map((a) => a.ms)
    const unexpected = [...workload.stats.entries()].filter(([, s]) => s.unexpected > 0)

    const checks = [
      check(
        "every acknowledged write stored",
        Object.values(writes).every((w) => w.lost === 0),
        JSON.stringify(Object.fromEntries(Object.entries(writes).map(([k, w]) => [k, w.lost])))
      ),
      check(
        "no acknowledged write stored twice",
        Object.values(writes).every((w) => w.duplicated === 0),
        JSON.stringify(Object.fromEntries(Object.entries(writes).map(([k, w]) => [k, w.duplicated])))
      ),
      check(
        "no 5xx or lost connection outside the outage windows",
        outside.length === 0,
        JSON.stringify(describe(outside))
      ),
      check(
        "only 503 with Retry-After or a lost connection inside them",
        badInside.length === 0,
        JSON.stringify(describe(badInside))
      ),
      check(
        "no unexpected answer (4xx)",
        unexpected.length === 0,
        unexpected.length === 0
          ? "none"
          : `${unexpected.map(([op, x]) => `${op} ${x.unexpected}`).join(", ")}: ${workload.samples.slice(0, 5).join(" | ")}`
      ),
      check(
        "every webhook event delivered",
        Object.values(missingDeliveries).every((n) => n === 0) && receiver.badSignatures() === 0,
        `${JSON.stringify(missingDeliveries)}, bad signatures ${receiver.badSignatures()}`
      ),
      check(
        "periodic jobs once per period (webhooks: passes never overlap)",
        jobIssues.length === 0,
        jobIssues.slice(0, 5).join("; ")
      ),
      check(
        SECONDS >= 180
          ? `gateway memory (the live heap after full collections) grew at most 10 % (from ${MEMORY_FROM_MS / 1000} s)`
          : `gateway memory (the live heap after full collections) grew at most 10 % (from ${MEMORY_FROM_MS / 1000} s; informative only under 3 minutes: the heap is still growing to its working size)`,
        // A gateway with no full collection in a window it is compared on fails the check: nothing was measured.
        SECONDS < 180 || memoryReport.every((m) => m.growth !== null && m.growth <= 0.1),
        memoryReport
          .map(
            (m) =>
              `${m.gateway} live ${m.live_from_mb} -> ${m.live_end_mb} MB (${m.full_collections} full collections; heap floor ${m.heap_floor_from_mb} -> ${m.heap_floor_end_mb} MB, resident ${m.rss_from_mb} -> ${m.rss_end_mb} MB)`
          )
          .join(", ")
      ),
      check(
        "the client kept up outside the outage windows (every scheduled operation sent)",
        notSentOutside === 0,
        `${notSentOutside} not sent outside them, ${notSentAt.length - notSentOutside} inside (${MAX_IN_FLIGHT} requests on the wire)`
      )
    ]
    failed = checks.some((x) => !x.ok)

    const report = {
      started_at: new Date(epoch).toISOString(),
      soak_seconds: SECONDS,
      setup_seconds: round(setupSeconds),
      topology:
        "PostgreSQL (own initdb) <- PgBouncer (transaction) <- 3 gateways (node dist/main.js) <- HAProxy (/readyz checks)",
      gateway_env: { LOG_LEVEL: "warn", JOBS_POLL_SECONDS: 1, job_periods_s: JOB_PERIODS },
      ramp,
      max_ops_per_s: maxRate,
      target_ops_per_s: rate,
      load_fraction: FRACTION,
      operations: Object.fromEntries(workload.stats),
      attempts: soakAttempts.length,
      throughput_ops_per_s: round(allMs.length / SECONDS),
      p50_ms: round(quantile(allMs, 0.5)),
      p99_ms: round(quantile(allMs, 0.99)),
      per_minute: minutes,
      faults: faultReport,
      grace_ms: GRACE_MS,
      gateway_504_outcome_unknown: gatewayOutcomeUnknown,
      stale_keepalive_resets: staleSockets,
      failures_outside_windows: outside.slice(0, 30).map((a) => ({
        at_s: round((a.at - soakStart) / 1000),
        op: a.op,
        status: a.status,
        error: a.error ?? null,
        balancer: a.balancer
      })),
      writes,
      webhooks: {
        delivered: Object.fromEntries([...receiver.delivered.entries()].map(([t, m]) => [t, m.size])),
        redelivered: Object.fromEntries(
          [...receiver.delivered.entries()].map(([t, m]) => [t, [...m.values()].filter((n) => n > 1).length])
        ),
        missing: missingDeliveries,
        drain_seconds: round(drainSeconds)
      },
      jobs: { runs_seen: jobRuns, final: finalJobs, issues: jobIssues },
      memory: memoryReport,
      memory_compared_from_s: MEMORY_FROM_MS / 1000,
      not_sent: notSentAt.length,
      not_sent_outside_windows: notSentOutside,
      samples: workload.samples,
      checks
    }
    const file =
      process.env.SOAK_REPORT ?? join(RESULTS, `soak-${new Date(epoch).toISOString().replace(/[:.]/g, "-")}.json`)
    mkdirSync(join(file, ".."), { recursive: true })
    writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`)

    console.log("")
    console.log(
      `soak: ${SECONDS} s at ${rate} ops/s (${Math.round(FRACTION * 100)} % of ${maxRate}), setup ${round(setupSeconds)} s`
    )
    console.log(`overall: ${report.throughput_ops_per_s} answers/s, p50 ${report.p50_ms} ms, p99 ${report.p99_ms} ms`)
    for (const m of minutes)
      console.log(
        `  minute ${m.minute}: ${m.answers_per_s}/s (appends ${m.appends_per_s}/s), p50 ${m.p50_ms} ms, p99 ${m.p99_ms} ms, failed answers ${m.failed_answers}`
      )
    for (const f of faultReport)
      console.log(
        `  ${f.fault} at ${f.start_s} s (${f.outage_ms} ms): recovery ${f.recovery_ms} ms, failed answers ${JSON.stringify(f.failed_answers)}`
      )
    for (const m of memoryReport)
      console.log(
        `  ${m.gateway}${m.restarted ? " (restarted)" : ""}: live heap ${m.live_from_mb} MB from ${m.from_s} s, ${m.live_end_mb} MB in the last 2 minutes (${m.full_collections} full collections); heap floor ${m.heap_floor_from_mb} MB from ${m.from_s} s, ${m.heap_floor_end_mb} MB in the last minute; RSS ${m.rss_from_mb} MB at ${m.from_s} s, ${m.rss_end_mb} MB at ${m.end_s} s; by minute: live heap ${m.live_by_minute_mb.join(" ")}, RSS ${m.rss_by_minute_mb.join(" ")}, heap reserved ${m.heap_total_by_minute_mb.join(" ")}, outside the heap ${m.external_by_minute_mb.join(" ")}, pool connections ${m.pool_connections_by_minute.join(" ")}`
      )
    console.log(
      `  writes: ${Object.entries(writes)
        .map(([k, w]) => `${k} ${w.acknowledged}`)
        .join(", ")}; gateway 504s ${gatewayOutcomeUnknown}`
    )
    for (const x of checks) console.log(`  ${x.ok ? "ok  " : "FAIL"} ${x.name}: ${x.detail}`)
    console.log(`report: ${file}`)
    await direct.end()
  } catch (error) {
    failed = true
    console.error("[soak] failed:", error)
  } finally {
    await receiver.close()
    closeClient()
    if (cluster !== undefined) {
      await cluster.stop().catch((error: unknown) => console.error("[soak] stopping:", error))
      if (process.env.SOAK_KEEP === "1" || failed) log(`logs kept in ${cluster.dir}`)
      else removeDir(cluster.dir)
    }
  }
  process.exit(failed ? 1 : 0)
}

const round = (n: number) => Math.round(n * 10) / 10
const check = (name: string, ok: boolean, detail: string) => ({ name, ok, detail })

await main()
