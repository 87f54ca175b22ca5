/**
 * The two load generators: autocannon (HTTP, with the warm-up before each
 * measured run) and pgbench (SQL), and what a run measured.
 */
import { readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import autocannon from "autocannon"
import { machineCpuSeconds, postgresCpuSeconds, processCpuSeconds, readProbe, runToCompletion } from "./proc.js"

export interface Measurement {
  /** Successful (2xx) responses, or pgbench transactions, per second. */
  readonly rps: number
  /** Of the 2xx responses (pgbench: of the transactions), in ms to 2 decimals, from each response's own time. */
  readonly latencyMs: { readonly p50: number; readonly p99: number }
  readonly requests: number
  readonly non2xx: number
  readonly errors: number
  readonly durationS: number
  /** CPU used during the run, in % of one core (null when it cannot be read). */
  readonly cpu: {
    readonly server: number | null
    readonly postgres: number | null
    readonly loadGenerator: number | null
    /** Every process on the machine, in % of one core (cores x 100 is the ceiling). */
    readonly machine: number | null
    /** Share of the run the server's event loop was busy (bench/lib/probe.ts), 0..1. */
    readonly serverEventLoop: number | null
  }
}

export interface HttpLoad {
  readonly url: string
  readonly method: "GET" | "POST"
  readonly headers: Record<string, string>
  readonly body?: string
  /** Per-request setup (dynamic path or body); `context` is autocannon's per-request context. */
  readonly setupRequest?: (request: autocannon.Request, context: object) => autocannon.Request
  readonly onResponse?: (status: number, body: string, context: object) => void
}

/** Nearest rank; NaN for none. */
const quantile = (sorted: Float64Array, q: number): number => {
  if (sorted.length === 0) return Number.NaN
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))
  return sorted[index] ?? Number.NaN
}

const round2 = (n: number) => Math.round(n * 100) / 100

/** Negative when a process counted before (an autovacuum worker, say) has exited since: floor at 0. */
const percent = (seconds: number | undefined, wallS: number): number | null =>
  seconds === undefined || wallS <= 0 ? null : Math.max(0, Math.round((seconds / wallS) * 1000) / 10)

/** One autocannon run against `load`; `serverPid` is the process whose CPU is reported. */
export const runAutocannon = async (
  load: HttpLoad,
  options: {
    readonly connections: number
    readonly durationS: number
    readonly serverPid: number | undefined
    readonly probeFile?: string | undefined
  }
): Promise<Measurement> => {
  const request: autocannon.Request = {
    method: load.method,
    ...(load.body === undefined ? {} : { body: load.body }),
    ...(load.setupRequest === undefined ? {} : { setupRequest: load.setupRequest }),
    ...(load.onResponse === undefined ? {} : { onResponse: load.onResponse })
  }
  const serverBefore = options.serverPid === undefined ? undefined : processCpuSeconds(options.serverPid)
  const pgBefore = postgresCpuSeconds()
  const machineBefore = machineCpuSeconds()
  const probeBefore = options.probeFile === undefined ? undefined : readProbe(options.probeFile)
  const selfBefore = process.cpuUsage()
  const started = process.hrtime.bigint()
  // autocannon's own percentiles come from a histogram of whole milliseconds; the one-connection
  // append's aim is 1.5 ms, so every 2xx response's time (hrtime, fractional ms) is kept instead.
  const latencies: Array<number> = []
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: load.url,
        connections: options.connections,
        duration: options.durationS,
        pipelining: 1,
        timeout: 10,
        headers: load.headers,
        requests: [request]
      },
      (error: unknown, done: autocannon.Result) => (error ? reject(error) : resolve(done))
    )
    instance.on("response", (_client, statusCode, _bytes, responseTime) => {
      if (statusCode >= 200 && statusCode < 300) latencies.push(responseTime)
    })
  })
  const sortedLatencies = Float64Array.from(latencies).sort()
  const wallS = Number(process.hrtime.bigint() - started) / 1e9
  const serverAfter = options.serverPid === undefined ? undefined : processCpuSeconds(options.serverPid)
  const pgAfter = postgresCpuSeconds()
  const machineAfter = machineCpuSeconds()
  const probeAfter = options.probeFile === undefined ? undefined : readProbe(options.probeFile)
  const self = process.cpuUsage(selfBefore)
  const probeActive = probeBefore && probeAfter ? probeAfter.activeMs - probeBefore.activeMs : undefined
  const probeIdle = probeBefore && probeAfter ? probeAfter.idleMs - probeBefore.idleMs : undefined
  const ok = result["2xx"]
  return {
    rps: Math.round((ok / result.duration) * 10) / 10,
    latencyMs: { p50: round2(quantile(sortedLatencies, 0.5)), p99: round2(quantile(sortedLatencies, 0.99)) },
    requests: ok,
    non2xx: result.non2xx,
    errors: result.errors,
    durationS: result.duration,
    cpu: {
      server: percent(
        serverBefore === undefined || serverAfter === undefined ? undefined : serverAfter - serverBefore,
        wallS
      ),
      postgres: percent(pgBefore === undefined || pgAfter === undefined ? undefined : pgAfter - pgBefore, wallS),
      loadGenerator: percent((self.user + self.system) / 1e6, wallS),
      machine: percent(
        machineBefore === undefined || machineAfter === undefined ? undefined : machineAfter.busy - machineBefore.busy,
        wallS
      ),
      serverEventLoop:
        probeActive === undefined || probeIdle === undefined || probeActive + probeIdle <= 0
          ? null
          : Math.round((probeActive / (probeActive + probeIdle)) * 100) / 100
    }
  }
}

const hrUs = (): number => Number(process.hrtime.bigint() / 1000n)

export interface Measured {
  readonly measurement: Measurement
  /** The measured window (excluding warm-up) on the monotonic clock, for the profile. */
  readonly windowUs: { readonly from: number; readonly to: number }
}

export interface MeasureOptions {
  readonly connections: number
  readonly durationS: number
  /** Warm up at least this long, then in 2 s rounds until two agree within 10 %, at most warmupMaxS. */
  readonly warmupS: number
  readonly warmupMaxS: number
  /** The server under load: its process (CPU) and bench/lib/probe.ts file (event loop). */
  readonly server: { readonly pid: number; readonly probeFile: string }
  readonly log: (message: string) => void
  /** Called between warm-up and the measured run. */
  readonly afterWarmup?: (() => void) | undefined
}

/**
 * Warm-up, then one measured autocannon run. `makeLoad` is called for each
 * round, so round-robin state starts afresh.
 */
export const warmUpAndMeasure = async (
  label: string,
  makeLoad: () => HttpLoad,
  options: MeasureOptions
): Promise<Measured> => {
  // The gateway's JIT needs tens of thousands of requests to settle (health went
  // 3.2k -> 3.4k -> 5.4k -> 5.2k req/s over four 5 s rounds), so warm up until stable.
  let warmedS = 0
  let previous = Number.NaN
  while (warmedS < options.warmupMaxS) {
    const round = warmedS < options.warmupS ? Math.min(options.warmupS, options.warmupMaxS) : 2
    const { rps } = await runAutocannon(makeLoad(), {
      connections: options.connections,
      durationS: round,
      serverPid: undefined
    })
    warmedS += round
    if (warmedS >= options.warmupS && Math.abs(rps - previous) <= 0.1 * previous) break
    previous = rps
  }
  if (warmedS > 0) options.log(`  warmed up ${warmedS} s`)
  options.afterWarmup?.()
  const from = hrUs()
  const measurement = await runAutocannon(makeLoad(), {
    connections: options.connections,
    durationS: options.durationS,
    serverPid: options.server.pid,
    probeFile: options.server.probeFile
  })
  const to = hrUs()
  if (measurement.non2xx > 0 || measurement.errors > 0) {
    options.log(`  ${label}: ${measurement.non2xx} non-2xx, ${measurement.errors} errors (only 2xx are counted)`)
  }
  return { measurement, windowUs: { from, to } }
}

export interface PgbenchOptions {
  readonly databaseUrl: string
  readonly script: string
  readonly clients: number
  readonly threads: number
  readonly durationS: number
  /** A scratch directory for the script and the per-transaction logs (removed afterwards). */
  readonly workDir: string
}

/** pgbench -n -M extended -c -j -T -f script -l; latency percentiles from the per-transaction log. */
export const runPgbench = async (options: PgbenchOptions): Promise<Measurement & { readonly command: string }> => {
  const url = new URL(options.databaseUrl)
  const scriptPath = join(options.workDir, "pgbench-insert.sql")
  writeFileSync(scriptPath, options.script)
  const logPrefix = "pgbench_log"
  const args = [
    "-h",
    url.hostname,
    "-p",
    url.port || "5432",
    "-U",
    decodeURIComponent(url.username || "postgres"),
    "-n",
    "-M",
    "extended",
    "-c",
    String(options.clients),
    "-j",
    String(options.threads),
    "-T",
    String(options.durationS),
    "-f",
    scriptPath,
    "-l",
    "--log-prefix",
    join(options.workDir, logPrefix),
    url.pathname.slice(1)
  ]
  const env: Record<string, string> = { PATH: process.env.PATH ?? "/usr/bin:/bin" }
  if (url.password !== "") env.PGPASSWORD = decodeURIComponent(url.password)
  const machineBefore = machineCpuSeconds()
  const started = process.hrtime.bigint()
  const out = await runToCompletion({
    name: "pgbench",
    command: "pgbench",
    args,
    cwd: options.workDir,
    env,
    timeoutMs: (options.durationS + 60) * 1000
  })
  const wallS = Number(process.hrtime.bigint() - started) / 1e9
  const machineAfter = machineCpuSeconds()
  if (out.code !== 0) throw new Error(`pgbench failed (${out.code}): ${out.stderr}\n${out.stdout}`)
  const tps = /tps = ([\d.]+) \(without initial connection time\)/.exec(out.stdout)
  const processed = /number of transactions actually processed: (\d+)/.exec(out.stdout)
  const failed = /number of failed transactions: (\d+)/.exec(out.stdout)
  if (!tps?.[1]) throw new Error(`pgbench: no tps in output:\n${out.stdout}`)
  const latencies: Array<number> = []
  for (const file of readdirSync(options.workDir)) {
    if (!file.startsWith(`${logPrefix}.`)) continue
    const path = join(options.workDir, file)
    for (const line of readFileSync(path, "utf8").split("\n")) {
      // client_id transaction_no time script_no time_epoch time_us; time in microseconds
      const fields = line.split(" ")
      const us = Number(fields[2])
      if (fields.length >= 6 && Number.isFinite(us)) latencies.push(us / 1000)
    }
    rmSync(path)
  }
  const sorted = Float64Array.from(latencies).sort()
  return {
    command: `pgbench ${args.map((a) => (a.includes(" ") ? `'${a}'` : a)).join(" ")}`,
    rps: Math.round(Number(tps[1]) * 10) / 10,
    latencyMs: { p50: round2(quantile(sorted, 0.5)), p99: round2(quantile(sorted, 0.99)) },
    requests: Number(processed?.[1] ?? latencies.length),
    non2xx: Number(failed?.[1] ?? 0),
    errors: 0,
    durationS: options.durationS,
    // pgbench's backends come and go with the run, so /proc cannot account for them.
    cpu: {
      server: null,
      postgres: null,
      loadGenerator: null,
      machine: percent(
        machineBefore === undefined || machineAfter === undefined ? undefined : machineAfter.busy - machineBefore.busy,
        wallS
      ),
      serverEventLoop: null
    }
  }
}
