/**
 * `npm run bench`: the gateway under autocannon load against a seeded
 * PostgreSQL database, each workload beside a baseline measured in the same
 * run; prints a table and JSON ratios and writes bench/results/<timestamp>.json.
 * See bench/README.md.
 *
 * Env: BENCH_DURATION (s, 10), BENCH_CONNECTIONS (32), BENCH_ONLY (comma list
 * of health, create_thread, append_message, list_messages, run_report,
 * list_runs, logging),
 * BENCH_WARMUP (s, 4; then 2 s rounds until stable, at most BENCH_WARMUP_MAX,
 * 16), BENCH_PROFILE (1: --cpu-prof the gateway), BENCH_PG_URL
 * (postgres://postgres@127.0.0.1:5432/postgres), BENCH_POOL_MAX (10),
 * BENCH_SEED_THREADS (1000), BENCH_SEED_MESSAGES (10 per seeded thread),
 * BENCH_SEED_RUNS (5000, in the project list_runs reads).
 */
import { randomBytes } from "node:crypto"
import { mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs"
import { availableParallelism, cpus } from "node:os"
import { join, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import type autocannon from "autocannon"
import pg from "pg"
import { createDatabase, createPgbenchTables, seedBackground, seedRuns, vacuumAnalyze } from "./lib/db.js"
import { type HttpLoad, type Measurement, runAutocannon, runPgbench } from "./lib/load.js"
import {
  appendBody,
  CONTENT_JSON,
  createThreadBody,
  FORMAT,
  pgbenchJson,
  RUN_REPORT_BYTES,
  RUN_TOOL_CALLS,
  runDetailJson,
  runReport,
  runReportBody
} from "./lib/payload.js"
import { type Child, freePort, killAllNow, spawnChild, waitForHttp } from "./lib/proc.js"
import { formatSummary, type SummaryRow, summarizeProfile } from "./profile-summary.js"

const ROOT = resolve(fileURLToPath(new URL("..", import.meta.url)))
const RESULTS = join(ROOT, "bench/results")
const PROFILE_DIR = join(RESULTS, "profile")

// ---------------------------------------------------------------- settings

const intEnv = (name: string, fallback: number): number => {
  const raw = process.env[name]
  if (raw === undefined || raw === "") return fallback
  const value = Number(raw)
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name} must be a non-negative integer, got ${raw}`)
  return value
}

const WORKLOADS = [
  "health",
  "create_thread",
  "append_message",
  "list_messages",
  "run_report",
  "list_runs",
  "logging"
] as const
type WorkloadName = (typeof WORKLOADS)[number]
const isWorkload = (name: string): name is WorkloadName => (WORKLOADS as ReadonlyArray<string>).includes(name)

const settings = (() => {
  const only = (process.env.BENCH_ONLY ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "")
  for (const name of only) {
    if (!isWorkload(name)) throw new Error(`BENCH_ONLY: unknown workload ${name}; known: ${WORKLOADS.join(", ")}`)
  }
  const connections = Math.max(1, intEnv("BENCH_CONNECTIONS", 32))
  return {
    durationS: Math.max(1, intEnv("BENCH_DURATION", 10)),
    /** Warm-up: at least this long, then 2 s rounds until two agree within 10 %, at most warmupMaxS. */
    warmupS: intEnv("BENCH_WARMUP", 4),
    warmupMaxS: intEnv("BENCH_WARMUP_MAX", 16),
    connections,
    only: only.length === 0 ? [...WORKLOADS] : only.filter(isWorkload),
    profile: process.env.BENCH_PROFILE === "1" || process.env.BENCH_PROFILE === "true",
    pgUrl: process.env.BENCH_PG_URL ?? "postgres://postgres@127.0.0.1:5432/postgres",
    poolMax: Math.max(1, intEnv("BENCH_POOL_MAX", 10)),
    seedThreads: intEnv("BENCH_SEED_THREADS", 1000),
    seedMessagesPerThread: intEnv("BENCH_SEED_MESSAGES", 10),
    /** Runs in the project list_runs reads (a project of its own). */
    seedRuns: intEnv("BENCH_SEED_RUNS", 5000),
    listThreadMessages: 250,
    /** pgbench -j: one thread per core, at most one per client. */
    pgbenchThreads: Math.min(availableParallelism(), connections)
  } as const
})()

const log = (message: string) => process.stderr.write(`[bench] ${message}\n`)

// ---------------------------------------------------------------- cleanup

const cleanups: Array<() => Promise<void>> = []
let cleaning: Promise<void> | undefined
const cleanup = (): Promise<void> => {
  cleaning ??= (async () => {
    killAllNow()
    for (const task of cleanups.reverse()) {
      try {
        await task()
      } catch (error) {
        log(`cleanup: ${String(error)}`)
      }
    }
  })()
  return cleaning
}
process.on("exit", killAllNow)
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
  process.on(signal, () => {
    log(`${signal}: stopping`)
    void cleanup().finally(() => process.exit(130))
  })
}

// ---------------------------------------------------------------- servers

interface Server {
  readonly child: Child
  readonly baseUrl: string
  /** Where bench/lib/probe.ts, preloaded into the server, writes its event-loop figures. */
  readonly probeFile: string
}

const PROBE = ["--import", "./bench/lib/probe.ts"]

const runId = new Date().toISOString().replace(/:/g, "-")
const workDir = join(RESULTS, `work-${runId}`)
const adminToken = `bench-admin-${randomBytes(16).toString("hex")}`

const baseEnv = (): Record<string, string> => {
  const env: Record<string, string> = {}
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !key.startsWith("LOG_") && !key.startsWith("npm_")) env[key] = value
  }
  return env
}

/** The gateway as `node [--cpu-prof ...] --import tsx app/main.ts`. */
const startGateway = async (
  databaseUrl: string,
  options: { readonly label: string; readonly logLevel: "Warn" | "default"; readonly profile: boolean }
): Promise<Server & { readonly logFile: string; readonly collectProfile: () => string | undefined }> => {
  const port = await freePort()
  const logFile = join(workDir, `gateway-${options.label}.log`)
  const probeFile = join(workDir, `probe-gateway-${options.label}.txt`)
  const env = {
    ...baseEnv(),
    PORT: String(port),
    HOST: "127.0.0.1",
    DATABASE_URL: databaseUrl,
    DATABASE_POOL_MAX: String(settings.poolMax),
    ADMIN_TOKEN: adminToken,
    BOOTSTRAP_DEFAULT_PROJECT: "false",
    SHUTDOWN_TIMEOUT_MS: "2000",
    BENCH_PROBE_FILE: probeFile,
    // "Warn" is the label Effect's Config.logLevel accepts (it rejects "Warning").
    ...(options.logLevel === "Warn" ? { LOG_LEVEL: "Warn" } : {})
  }
  const args = [
    ...(options.profile ? ["--cpu-prof", "--cpu-prof-dir", PROFILE_DIR] : []),
    "--import",
    "tsx",
    ...PROBE,
    "app/main.ts"
  ]
  const child = spawnChild({
    name: `gateway(${options.label})`,
    command: process.execPath,
    args,
    cwd: ROOT,
    env,
    stdoutFile: logFile
  })
  const baseUrl = `http://127.0.0.1:${port}`
  await waitForHttp(`${baseUrl}/healthz`, 60_000, child)
  /**
   * After the gateway has exited: --cpu-prof writes one profile per thread,
   * CPU.<date>.<time>.<pid>.<thread>.<seq>.cpuprofile. Thread 0 is the
   * gateway; the others are tsx's module-loader thread (startup only), dropped.
   */
  const collectProfile = (): string | undefined => {
    if (!options.profile) return undefined
    let main: string | undefined
    for (const file of readdirSync(PROFILE_DIR)) {
      const match = /^CPU\.\d+\.\d+\.(\d+)\.(\d+)\.\d+\.cpuprofile$/.exec(file)
      if (match?.[1] !== String(child.pid)) continue
      if (match[2] === "0") main = join(PROFILE_DIR, file)
      else rmSync(join(PROFILE_DIR, file))
    }
    if (main === undefined) return undefined
    const named = join(PROFILE_DIR, `${runId}-${options.label}.cpuprofile`)
    renameSync(main, named)
    return named
  }
  return { child, baseUrl, probeFile, logFile, collectProfile }
}

/** A baseline server (bench/servers/*.ts) in its own process; it prints `LISTENING <port>`. */
const startBaseline = async (script: "raw-http" | "node-pg", databaseUrl: string): Promise<Server> => {
  const probeFile = join(workDir, `probe-${script}-${Date.now()}.txt`)
  const child = spawnChild({
    name: script,
    command: process.execPath,
    args: ["--import", "tsx", ...PROBE, `bench/servers/${script}.ts`],
    cwd: ROOT,
    env: {
      ...baseEnv(),
      PORT: "0",
      HOST: "127.0.0.1",
      DATABASE_URL: databaseUrl,
      DATABASE_POOL_MAX: String(settings.poolMax),
      API_KEY_CACHE_MS: "5000",
      BENCH_PROBE_FILE: probeFile
    }
  })
  const match = await child.waitForLine(/LISTENING (\d+)/, 30_000)
  const baseUrl = `http://127.0.0.1:${match[1]}`
  await waitForHttp(`${baseUrl}/healthz`, 10_000, child)
  return { child, baseUrl, probeFile }
}

// ---------------------------------------------------------------- workloads

/** A thread and the identity headers under which its workspace can see it. */
interface ThreadRef {
  readonly threadId: string
  readonly workspaceId: string
  readonly userId: string
}

interface Fixture {
  readonly databaseUrl: string
  readonly projectId: string
  readonly apiKey: string
  readonly listThreadId: string
  readonly appendThreadIds: ReadonlyArray<string>
  /** run_report: round-robin over these (the seeded background threads). */
  readonly reportThreads: ReadonlyArray<ThreadRef>
  /** list_runs: a second project holding only the seeded runs, read with its own key. */
  readonly runsProject: { readonly projectId: string; readonly apiKey: string }
}

const USER = "user_bench"
const WORKSPACE = "ws_bench"

const headersFor = (fixture: Fixture, json: boolean): Record<string, string> => ({
  authorization: `Bearer ${fixture.apiKey}`,
  "svc-user-id": USER,
  "svc-workspace-id": WORKSPACE,
  ...(json ? { "content-type": "application/json" } : {})
})

const messageIdOf = (body: string): string | undefined => {
  try {
    const parsed: unknown = JSON.parse(body)
    if (typeof parsed === "object" && parsed !== null && "message_id" in parsed) {
      return typeof parsed.message_id === "string" ? parsed.message_id : undefined
    }
  } catch {
    // not JSON
  }
  return undefined
}

/**
 * Appends spread round-robin over one seeded thread per connection; each
 * names as parent the last message this run created in that thread (null for
 * the first), so the parent lookup of the statement is exercised. A sibling
 * is still a valid child, so concurrent appends to one thread stay correct.
 */
const appendLoad = (baseUrl: string, fixture: Fixture): HttpLoad => {
  const last = new Map<string, string>()
  const threadOf = new WeakMap<object, string>()
  let turn = 0
  return {
    url: baseUrl,
    method: "POST",
    headers: headersFor(fixture, true),
    setupRequest: (request: autocannon.Request, context: object): autocannon.Request => {
      const threadId = fixture.appendThreadIds[turn++ % fixture.appendThreadIds.length] ?? ""
      threadOf.set(context, threadId)
      return {
        ...request,
        method: "POST",
        path: `/v1/threads/${threadId}/messages`,
        body: appendBody(last.get(threadId) ?? null)
      }
    },
    onResponse: (status, body, context) => {
      if (status !== 201) return
      const threadId = threadOf.get(context)
      const id = messageIdOf(body)
      if (threadId !== undefined && id !== undefined) last.set(threadId, id)
    }
  }
}

/**
 * Run reports spread round-robin over the seeded background threads (1000 in
 * 50 workspaces), each under its workspace's identity headers.
 */
const runReportLoad = (baseUrl: string, fixture: Fixture): HttpLoad => {
  const base = headersFor(fixture, true)
  let turn = 0
  return {
    url: `${baseUrl}/v1/runs`,
    method: "POST",
    headers: base,
    setupRequest: (request: autocannon.Request): autocannon.Request => {
      const thread = fixture.reportThreads[turn++ % fixture.reportThreads.length]
      if (thread === undefined) throw new Error("run_report: no threads")
      return {
        ...request,
        method: "POST",
        path: "/v1/runs",
        headers: { ...base, "svc-user-id": thread.userId, "svc-workspace-id": thread.workspaceId },
        body: runReportBody(thread.threadId)
      }
    }
  }
}

const loadFor = (workload: Exclude<WorkloadName, "logging">, baseUrl: string, fixture: Fixture): HttpLoad => {
  switch (workload) {
    case "health":
      return { url: `${baseUrl}/healthz`, method: "GET", headers: {} }
    case "create_thread":
      return {
        url: `${baseUrl}/v1/threads`,
        method: "POST",
        headers: headersFor(fixture, true),
        body: createThreadBody
      }
    case "append_message":
      return appendLoad(baseUrl, fixture)
    case "list_messages":
      return {
        url: `${baseUrl}/v1/threads/${fixture.listThreadId}/messages?limit=200`,
        method: "GET",
        headers: headersFor(fixture, false)
      }
    case "run_report":
      return runReportLoad(baseUrl, fixture)
    case "list_runs":
      return {
        url: `${baseUrl}/v1/projects/runs?limit=50`,
        method: "GET",
        headers: { authorization: `Bearer ${fixture.runsProject.apiKey}` }
      }
  }
}

type BaselineName = "raw node:http" | "node:http + pg" | "pgbench INSERT"

interface Spec {
  readonly name: Exclude<WorkloadName, "logging">
  readonly what: string
  /** The baseline the target is against first; others are reported beside it. */
  readonly baselines: ReadonlyArray<BaselineName>
  readonly target: number | null
  /** The pgbench script, when a baseline is "pgbench INSERT". */
  readonly pgbenchScript?: (fixture: Fixture) => string
  /** A GET fetched once from the gateway and once from node:http + pg: the bodies must be equal. */
  readonly sameBody?: (fixture: Fixture) => { readonly path: string; readonly headers: Record<string, string> }
}

const SPECS: ReadonlyArray<Spec> = [
  { name: "health", what: "GET /healthz", baselines: ["raw node:http"], target: 0.25 },
  {
    name: "create_thread",
    what: "POST /v1/threads",
    baselines: ["node:http + pg"],
    target: null
  },
  {
    name: "append_message",
    what: "POST /v1/threads/{id}/messages, ~1 KB content, parent chained",
    baselines: ["pgbench INSERT", "node:http + pg"],
    target: 0.35,
    pgbenchScript: (fixture) => pgbenchScript(fixture.projectId)
  },
  {
    name: "list_messages",
    what: "GET /v1/threads/{id}/messages?limit=200 (250 in the thread)",
    baselines: ["node:http + pg"],
    target: 0.5
  },
  {
    name: "run_report",
    what: `POST /v1/runs, ${RUN_TOOL_CALLS} tool calls, ${Math.round(RUN_REPORT_BYTES / 1024)} KB body, over the seeded threads`,
    baselines: ["node:http + pg", "pgbench INSERT"],
    target: null,
    pgbenchScript: (fixture) => pgbenchRunScript(fixture.projectId)
  },
  {
    name: "list_runs",
    what: "GET /v1/projects/runs?limit=50 (BENCH_SEED_RUNS runs in the project)",
    baselines: ["node:http + pg"],
    target: null,
    sameBody: (fixture) => ({
      path: "/v1/projects/runs?limit=50",
      headers: { authorization: `Bearer ${fixture.runsProject.apiKey}` }
    })
  }
]

const pgbenchScript = (projectId: string): string =>
  [
    "\\set r random(1, 9000000000000000000)",
    "INSERT INTO bench_messages (project_id, thread_id, id, parent_id, user_id, height, format, content)",
    `VALUES ('${projectId}', 'thread_pgbench_' || :client_id,`,
    "  'msg_' || lpad(floor(extract(epoch FROM clock_timestamp()) * 1000000)::bigint::text, 17, '0') || '_' || :client_id || '_' || :r,",
    `  NULL, '${USER}', 0, '${FORMAT}', '${CONTENT_JSON}'::jsonb);`,
    ""
  ].join("\n")

/**
 * One row of the run_report workload's shape into bench_runs (`runs`' columns
 * and indexes, no foreign key): the same scalar columns, the same ~150 KB
 * detail as a jsonb literal, time-ordered ids.
 */
const pgbenchRunScript = (projectId: string): string => {
  const report = runReport("unused")
  const text = (value: string) => `'${value}'`
  return [
    "\\set r random(1, 9000000000000000000)",
    "INSERT INTO bench_runs (project_id, id, thread_id, workspace_id, user_id, message_id, status, outcome_type,",
    "  model_id, provider, provider_type, input_tokens, output_tokens, reasoning_tokens, cached_input_tokens,",
    "  duration_ms, first_token_ms, total_steps, tool_call_count, error, error_code, trace_id, tags,",
    "  environment, release, detail, idempotency_key, request_hash)",
    `VALUES ('${projectId}',`,
    "  'run_' || lpad(floor(extract(epoch FROM clock_timestamp()) * 1000000)::bigint::text, 17, '0') || '_' || :client_id || '_' || :r,",
    `  'thread_pgbench_' || :client_id, '${WORKSPACE}', '${USER}', NULL, ${text(report.status)}, NULL,`,
    `  ${text(report.model_id)}, ${text(report.provider)}, ${text(report.provider_type)},`,
    `  ${report.input_tokens}, ${report.output_tokens}, ${report.reasoning_tokens}, ${report.cached_input_tokens},`,
    `  ${report.duration_ms}, ${report.first_token_ms}, ${report.total_steps}, ${report.tool_calls.length}, NULL, NULL,`,
    `  ${text(report.trace_id)}, ARRAY[${report.tags.map(text).join(", ")}], ${text(report.environment)}, ${text(report.release)},`,
    `  '${pgbenchJson(runDetailJson())}'::jsonb, NULL, NULL);`,
    ""
  ].join("\n")
}

const hrUs = (): number => Number(process.hrtime.bigint() / 1000n)

interface Measured {
  readonly measurement: Measurement
  /** The measured window (excluding warm-up) on the monotonic clock, for the profile. */
  readonly windowUs: { readonly from: number; readonly to: number }
}

const measureHttp = async (
  workload: Exclude<WorkloadName, "logging">,
  server: Server,
  fixture: Fixture,
  afterWarmup?: () => void
): Promise<Measured> => {
  // The gateway's JIT needs tens of thousands of requests to settle (health went
  // 3.2k -> 3.4k -> 5.4k -> 5.2k req/s over four 5 s rounds), so warm up until stable.
  let warmedS = 0
  let previous = Number.NaN
  while (warmedS < settings.warmupMaxS) {
    const round = warmedS < settings.warmupS ? Math.min(settings.warmupS, settings.warmupMaxS) : 2
    const { rps } = await runAutocannon(loadFor(workload, server.baseUrl, fixture), {
      connections: settings.connections,
      durationS: round,
      serverPid: undefined
    })
    warmedS += round
    if (warmedS >= settings.warmupS && Math.abs(rps - previous) <= 0.1 * previous) break
    previous = rps
  }
  if (warmedS > 0) log(`  warmed up ${warmedS} s`)
  afterWarmup?.()
  const from = hrUs()
  const measurement = await runAutocannon(loadFor(workload, server.baseUrl, fixture), {
    connections: settings.connections,
    durationS: settings.durationS,
    serverPid: server.child.pid,
    probeFile: server.probeFile
  })
  const to = hrUs()
  if (measurement.non2xx > 0 || measurement.errors > 0) {
    log(`  ${workload}: ${measurement.non2xx} non-2xx, ${measurement.errors} errors (only 2xx are counted)`)
  }
  return { measurement, windowUs: { from, to } }
}

const short = (m: Measurement) =>
  `${m.rps} req/s  p50 ${m.latencyMs.p50} ms  p99 ${m.latencyMs.p99} ms  CPU %: server ${m.cpu.server ?? "-"} (event loop busy ${m.cpu.serverEventLoop ?? "-"}), pg ${m.cpu.postgres ?? "-"}, loadgen ${m.cpu.loadGenerator ?? "-"}, machine ${m.cpu.machine ?? "-"}`

interface BaselineResult {
  readonly name: BaselineName
  readonly measurement: Measurement
  readonly ratio: number
  readonly command?: string
}

interface WorkloadResult {
  readonly workload: Spec["name"]
  readonly what: string
  readonly gateway: Measurement
  readonly baseline: BaselineResult
  readonly otherBaselines: ReadonlyArray<BaselineResult>
  readonly target: number | null
  readonly pass: boolean | null
  /** Spec.sameBody: whether the gateway and node:http + pg answered the same bytes. */
  readonly sameBody?: boolean
  readonly profile?: { readonly file: string; readonly busyMs: number; readonly top: ReadonlyArray<SummaryRow> }
}

const ratioOf = (gateway: Measurement, baseline: Measurement): number =>
  baseline.rps > 0 ? Math.round((gateway.rps / baseline.rps) * 1000) / 1000 : 0

/** Spec.sameBody's request against one server. */
const sampleBody = async (spec: Spec, server: Server, fixture: Fixture): Promise<string | undefined> => {
  if (spec.sameBody === undefined) return undefined
  const { path, headers } = spec.sameBody(fixture)
  const response = await fetch(`${server.baseUrl}${path}`, { headers })
  return `${response.status} ${await response.text()}`
}

const runBaseline = async (
  name: BaselineName,
  spec: Spec,
  fixture: Fixture
): Promise<{ readonly measurement: Measurement; readonly command?: string; readonly sample?: string }> => {
  if (name === "pgbench INSERT") {
    if (spec.pgbenchScript === undefined) throw new Error(`${spec.name}: no pgbench script`)
    log(
      `  pgbench: -c ${settings.connections} -j ${settings.pgbenchThreads} -T ${settings.durationS} (single-row INSERT)`
    )
    const result = await runPgbench({
      databaseUrl: fixture.databaseUrl,
      script: spec.pgbenchScript(fixture),
      clients: settings.connections,
      threads: settings.pgbenchThreads,
      durationS: settings.durationS,
      workDir
    })
    return { measurement: result, command: result.command }
  }
  const server = await startBaseline(name === "raw node:http" ? "raw-http" : "node-pg", fixture.databaseUrl)
  try {
    log(`  ${name}: ${server.baseUrl}`)
    const sample = await sampleBody(spec, server, fixture)
    return {
      measurement: (await measureHttp(spec.name, server, fixture)).measurement,
      ...(sample === undefined ? {} : { sample })
    }
  } finally {
    await server.child.stop()
  }
}

const runWorkload = async (spec: Spec, fixture: Fixture): Promise<WorkloadResult> => {
  log(`${spec.name}: ${spec.what}`)
  const gateway = await startGateway(fixture.databaseUrl, {
    label: spec.name,
    logLevel: "Warn",
    profile: settings.profile
  })
  let measured: Measured
  let gatewaySample: string | undefined
  try {
    gatewaySample = await sampleBody(spec, gateway, fixture)
    measured = await measureHttp(spec.name, gateway, fixture)
  } finally {
    await gateway.child.stop()
  }
  log(`  gateway          ${short(measured.measurement)}`)
  const baselines: Array<BaselineResult> = []
  let sameBody: boolean | undefined
  for (const name of spec.baselines) {
    const { measurement, command, sample } = await runBaseline(name, spec, fixture)
    if (sample !== undefined && gatewaySample !== undefined) {
      sameBody = sample === gatewaySample
      log(`  ${name} answered ${sameBody ? "the same body as" : "a DIFFERENT body from"} the gateway`)
      if (!sameBody) log(`    gateway: ${gatewaySample.slice(0, 600)}\n    ${name}: ${sample.slice(0, 600)}`)
    }
    log(`  ${name.padEnd(16)} ${short(measurement)}`)
    baselines.push({
      name,
      measurement,
      ratio: ratioOf(measured.measurement, measurement),
      ...(command === undefined ? {} : { command })
    })
  }
  const [first, ...others] = baselines
  if (first === undefined) throw new Error(`${spec.name}: no baseline`)
  let profile: WorkloadResult["profile"]
  const profileFile = gateway.collectProfile()
  if (settings.profile && profileFile === undefined) log("  profile: the gateway wrote no main-thread profile")
  if (profileFile !== undefined) {
    try {
      const summary = summarizeProfile(profileFile, {
        top: 25,
        fromUs: measured.windowUs.from,
        toUs: measured.windowUs.to
      })
      process.stderr.write(`${formatSummary(summary)}\n\n`)
      profile = {
        file: profileFile.slice(ROOT.length + 1),
        busyMs: summary.busyMs,
        top: summary.functions.slice(0, 15)
      }
    } catch (error) {
      log(`  profile: ${String(error)}`)
    }
  }
  return {
    workload: spec.name,
    what: spec.what,
    gateway: measured.measurement,
    baseline: first,
    otherBaselines: others,
    target: spec.target,
    pass: spec.target === null ? null : first.ratio >= spec.target,
    ...(sameBody === undefined ? {} : { sameBody }),
    ...(profile === undefined ? {} : { profile })
  }
}

interface LoggingResult {
  readonly workload: Spec["name"]
  /** LOG_LEVEL unset (Info) and LOG_FORMAT unset (json): one "Sent HTTP response" entry per request. */
  readonly info: Measurement
  readonly warn: Measurement
  readonly ratio: number
  readonly logBytesPerRequest: number
}

/** The same workload with the gateway's default logging, beside LOG_LEVEL=Warn. */
const runLogging = async (
  workload: "health" | "append_message",
  fixture: Fixture,
  warn: Measurement | undefined
): Promise<LoggingResult> => {
  log(`logging: ${workload} with the default LOG_LEVEL (Info), stdout to a file`)
  const measureWith = async (logLevel: "Warn" | "default") => {
    const gateway = await startGateway(fixture.databaseUrl, {
      label: `${workload}-log-${logLevel}`,
      logLevel,
      profile: false
    })
    try {
      let before = 0
      const { measurement } = await measureHttp(workload, gateway, fixture, () => {
        before = statSync(gateway.logFile).size
      })
      const bytes = statSync(gateway.logFile).size - before
      return { measurement, bytes, logFile: gateway.logFile }
    } finally {
      await gateway.child.stop()
    }
  }
  const info = await measureWith("default")
  log(`  gateway (Info)   ${short(info.measurement)}`)
  // It is large and not needed afterwards.
  rmSync(info.logFile, { force: true })
  const warnMeasurement = warn ?? (await measureWith("Warn")).measurement
  return {
    workload,
    info: info.measurement,
    warn: warnMeasurement,
    ratio: ratioOf(info.measurement, warnMeasurement),
    logBytesPerRequest: Math.round(info.bytes / Math.max(1, info.measurement.requests + info.measurement.non2xx))
  }
}

// ---------------------------------------------------------------- seeding

const call = async (
  baseUrl: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: unknown
): Promise<Record<string, unknown>> => {
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: body === undefined ? headers : { ...headers, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })
  const text = await response.text()
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`)
  const parsed: unknown = JSON.parse(text)
  if (typeof parsed !== "object" || parsed === null) throw new Error(`${method} ${path}: unexpected ${text}`)
  return parsed as Record<string, unknown>
}

const stringField = (record: Record<string, unknown>, key: string): string => {
  const value = record[key]
  if (typeof value !== "string") throw new Error(`expected a string ${key} in ${JSON.stringify(record)}`)
  return value
}

/** Migrations (a first gateway start), a project, background rows and the workload threads. */
const seed = async (databaseUrl: string): Promise<Fixture> => {
  const gateway = await startGateway(databaseUrl, { label: "seed", logLevel: "Warn", profile: false })
  try {
    const project = await call(
      gateway.baseUrl,
      "POST",
      "/v1/admin/projects",
      { authorization: `Bearer ${adminToken}` },
      { name: "bench" }
    )
    const projectId = stringField(project, "project_id")
    const apiKey = stringField(project, "api_key")
    log(`seed: ${settings.seedThreads} background threads x ${settings.seedMessagesPerThread} messages`)
    await seedBackground(databaseUrl, projectId, settings.seedThreads, settings.seedMessagesPerThread)
    const partial = {
      databaseUrl,
      projectId,
      apiKey,
      listThreadId: "",
      appendThreadIds: [],
      reportThreads: [],
      runsProject: { projectId: "", apiKey: "" }
    }
    const headers = headersFor(partial, false)
    const newThread = async () =>
      stringField(
        await call(gateway.baseUrl, "POST", "/v1/threads", headers, { last_message_at: new Date().toISOString() }),
        "thread_id"
      )
    const listThreadId = await newThread()
    log(`seed: ${settings.listThreadMessages} messages in ${listThreadId}`)
    let parent: string | null = null
    for (let i = 0; i < settings.listThreadMessages; i++) {
      const reply = await call(gateway.baseUrl, "POST", `/v1/threads/${listThreadId}/messages`, headers, {
        parent_id: parent,
        format: FORMAT,
        content: JSON.parse(CONTENT_JSON)
      })
      parent = stringField(reply, "message_id")
    }
    const appendThreadIds: Array<string> = []
    for (let i = 0; i < settings.connections; i++) appendThreadIds.push(await newThread())
    const runsProject = await call(
      gateway.baseUrl,
      "POST",
      "/v1/admin/projects",
      { authorization: `Bearer ${adminToken}` },
      { name: "bench-runs" }
    )
    const runsProjectId = stringField(runsProject, "project_id")
    log(`seed: ${settings.seedRuns} runs of ${Math.round(runDetailJson().length / 1024)} KB detail in ${runsProjectId}`)
    await seedRuns(databaseUrl, runsProjectId, settings.seedRuns, runDetailJson())
    // The ids and workspaces lib/db.ts seedBackground gives the background threads.
    const reportThreads: Array<ThreadRef> =
      settings.seedThreads > 0
        ? Array.from({ length: settings.seedThreads }, (_, i) => ({
            threadId: `thread_00SEED${String(i + 1).padStart(8, "0")}`,
            workspaceId: `ws_seed_${(i + 1) % 50}`,
            userId: `user_seed_${(i + 1) % 500}`
          }))
        : appendThreadIds.map((threadId) => ({ threadId, workspaceId: WORKSPACE, userId: USER }))
    await createPgbenchTables(databaseUrl)
    await vacuumAnalyze(databaseUrl)
    return {
      databaseUrl,
      projectId,
      apiKey,
      listThreadId,
      appendThreadIds,
      reportThreads,
      runsProject: { projectId: runsProjectId, apiKey: stringField(runsProject, "api_key") }
    }
  } finally {
    await gateway.child.stop()
  }
}

// ---------------------------------------------------------------- report

const fmt = (n: number | null | undefined, digits = 1): string =>
  n === null || n === undefined || Number.isNaN(n) ? "-" : n.toFixed(digits)

const latency = (m: Measurement) => `${fmt(m.latencyMs.p50, 2)} / ${fmt(m.latencyMs.p99, 2)}`
/**
 * Server CPU ms per 2xx response: steadier than req/s when other work on the
 * machine takes the cores (the server is then descheduled while its loop is "busy").
 */
const cpuMsPerRequest = (m: Measurement): number | null =>
  m.cpu.server === null || m.rps <= 0 ? null : (m.cpu.server * 10) / m.rps
const serverCpu = (m: Measurement) =>
  m.cpu.server === null ? "-" : `${fmt(m.cpu.server, 0)} (${fmt(m.cpu.serverEventLoop, 2)})`
const pair = (a: number | null, b: number | null) => `${fmt(a, 0)} / ${fmt(b, 0)}`

const table = (results: ReadonlyArray<WorkloadResult>, logging: ReadonlyArray<LoggingResult>): string => {
  const rows = [
    "| workload | baseline | gateway req/s | baseline req/s | ratio | target | pass | gateway p50 / p99 ms | baseline p50 / p99 ms | gateway CPU % (loop busy) | baseline CPU % (loop busy) | server CPU ms / req gw / base | postgres CPU % gw / base | machine CPU % gw / base |",
    "|---|---|---:|---:|---:|---:|:---:|---:|---:|---:|---:|---:|---:|---:|"
  ]
  for (const r of results) {
    for (const [i, b] of [r.baseline, ...r.otherBaselines].entries()) {
      const first = i === 0
      const g = r.gateway
      const m = b.measurement
      const cells = [
        first ? r.workload : "",
        b.name,
        fmt(g.rps),
        fmt(m.rps),
        fmt(b.ratio, 3),
        first && r.target !== null ? fmt(r.target, 2) : "-",
        first && r.pass !== null ? (r.pass ? "pass" : "FAIL") : "-",
        latency(g),
        latency(m),
        serverCpu(g),
        serverCpu(m),
        `${fmt(cpuMsPerRequest(g), 2)} / ${fmt(cpuMsPerRequest(m), 2)}`,
        pair(g.cpu.postgres, m.cpu.postgres),
        pair(g.cpu.machine, m.cpu.machine)
      ]
      rows.push(`| ${cells.join(" | ")} |`)
    }
  }
  for (const l of logging) {
    const cells = [
      `${l.workload}, LOG_LEVEL=Info`,
      "same, LOG_LEVEL=Warn",
      fmt(l.info.rps),
      fmt(l.warn.rps),
      fmt(l.ratio, 3),
      "-",
      "-",
      latency(l.info),
      latency(l.warn),
      serverCpu(l.info),
      serverCpu(l.warn),
      `${fmt(cpuMsPerRequest(l.info), 2)} / ${fmt(cpuMsPerRequest(l.warn), 2)}`,
      pair(l.info.cpu.postgres, l.warn.cpu.postgres),
      pair(l.info.cpu.machine, l.warn.cpu.machine)
    ]
    rows.push(`| ${cells.join(" | ")} |`)
  }
  return rows.join("\n")
}

// ---------------------------------------------------------------- main

const main = async () => {
  mkdirSync(workDir, { recursive: true })
  if (settings.profile) mkdirSync(PROFILE_DIR, { recursive: true })
  const specs = SPECS.filter((s) => settings.only.includes(s.name))
  const withLogging = settings.only.includes("logging")
  const slot = settings.durationS + settings.warmupMaxS + 20
  const budgetS = 240 + specs.reduce((n, s) => n + slot * (1 + s.baselines.length), 0) + (withLogging ? 4 * slot : 0)
  const watchdog = setTimeout(() => {
    log(`still running after ${budgetS} s: giving up`)
    void cleanup().finally(() => process.exit(3))
  }, budgetS * 1000)
  watchdog.unref()

  const db = await createDatabase(settings.pgUrl)
  cleanups.push(async () => {
    await db.drop()
    log(`dropped database ${db.name}`)
  })
  cleanups.push(async () => rmSync(workDir, { recursive: true, force: true }))
  log(`database ${db.name}; ${settings.connections} connections, ${settings.durationS} s per run`)
  const pgVersion = await (async () => {
    const client = new pg.Client({ connectionString: db.url })
    await client.connect()
    try {
      const { rows } = await client.query<{ v: string }>("SELECT current_setting('server_version') AS v")
      return rows[0]?.v ?? "?"
    } finally {
      await client.end()
    }
  })()
  const fixture = await seed(db.url)

  const results: Array<WorkloadResult> = []
  for (const spec of specs) results.push(await runWorkload(spec, fixture))
  const logging: Array<LoggingResult> = []
  if (withLogging) {
    for (const workload of ["health", "append_message"] as const) {
      logging.push(await runLogging(workload, fixture, results.find((r) => r.workload === workload)?.gateway))
    }
  }

  const cpu = cpus()[0]
  const report = {
    date: new Date().toISOString(),
    command: "npm run bench",
    machine: {
      cpus: availableParallelism(),
      cpuModel: cpu?.model ?? "?",
      node: process.version,
      postgres: pgVersion,
      platform: `${process.platform} ${process.arch}`
    },
    settings: {
      durationS: settings.durationS,
      warmupS: settings.warmupS,
      warmupMaxS: settings.warmupMaxS,
      connections: settings.connections,
      poolMax: settings.poolMax,
      pgbenchThreads: settings.pgbenchThreads,
      gatewayLogLevel: "Warn",
      profile: settings.profile,
      seed: {
        backgroundThreads: settings.seedThreads,
        messagesPerBackgroundThread: settings.seedMessagesPerThread,
        listThreadMessages: settings.listThreadMessages,
        appendThreads: fixture.appendThreadIds.length,
        contentBytes: CONTENT_JSON.length,
        runs: settings.seedRuns,
        runReportThreads: fixture.reportThreads.length,
        runReportBytes: RUN_REPORT_BYTES,
        runReportToolCalls: RUN_TOOL_CALLS,
        runDetailBytes: runDetailJson().length
      }
    },
    ratios: Object.fromEntries(
      results.map((r) => [
        r.workload,
        {
          ratio: r.baseline.ratio,
          baseline: r.baseline.name,
          target: r.target,
          pass: r.pass,
          serverCpuMsPerRequest: {
            gateway: cpuMsPerRequest(r.gateway),
            baseline: cpuMsPerRequest(r.baseline.measurement)
          }
        }
      ])
    ),
    workloads: results,
    logging
  }
  const json = JSON.stringify(report, null, 2)
  mkdirSync(RESULTS, { recursive: true })
  const file = join(RESULTS, `${runId}.json`)
  writeFileSync(file, `${json}\n`)
  process.stdout.write(`\n${table(results, logging)}\n\n${json}\n\nwritten to ${file.slice(ROOT.length + 1)}\n`)
}

main()
  .catch((error: unknown) => {
    log(`failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`)
    process.exitCode = 1
  })
  .finally(() => cleanup())
