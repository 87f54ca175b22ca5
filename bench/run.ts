/**
 * `npm run bench`: the gateway under autocannon load against a seeded
 * PostgreSQL database, each workload beside a baseline measured in the same
 * run; prints a table and JSON ratios and writes bench/results/<timestamp>.json.
 * See bench/README.md; the environment knobs are in lib/settings.ts.
 *
 * This file orchestrates: database, seed (lib/seed.ts), the statements the
 * baseline runs, captured from the repositories (lib/statements.ts), then
 * per workload (workloads.ts) a fresh gateway and each baseline
 * (lib/servers.ts) under load (lib/load.ts), then the report (report.ts).
 */
import { mkdirSync, rmSync, statSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import * as Redacted from "effect/Redacted"
import pg from "pg"
import * as Database from "../src/platform/db/Database.js"
import { type Captured, STATEMENT_NAMES } from "./lib/captured.js"
import { createDatabase } from "./lib/db.js"
import { type Measured, type Measurement, runPgbench, warmUpAndMeasure } from "./lib/load.js"
import { killAllNow } from "./lib/proc.js"
import { seed } from "./lib/seed.js"
import { type Server, startBaseline, startGateway } from "./lib/servers.js"
import { type GatewayLogLevel, log, PROFILE_DIR, ROOT, settings, workDir } from "./lib/settings.js"
import { captureStatements } from "./lib/statements.js"
import { formatSummary, summarizeProfile } from "./profile-summary.js"
import {
  type BaselineResult,
  buildReport,
  type GatewayRun,
  ratioOf,
  short,
  type WorkloadResult,
  writeReport
} from "./report.js"
import { type BaselineName, connectionsOf, type Fixture, loadFor, SPECS, type Spec } from "./workloads.js"

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

// ---------------------------------------------------------------- one run

/** What every baseline and gateway of this run shares. */
interface RunContext {
  readonly fixture: Fixture
  /** The captured statements, as the file node-pg reads. */
  readonly statementsFile: string
}

const measureHttp = (spec: Spec, server: Server, fixture: Fixture, afterWarmup?: () => void): Promise<Measured> =>
  warmUpAndMeasure(spec.name, () => loadFor(spec.name, server.baseUrl, fixture), {
    connections: connectionsOf(spec),
    durationS: settings.durationS,
    warmupS: settings.warmupS,
    warmupMaxS: settings.warmupMaxS,
    server: { pid: server.child.pid, probeFile: server.probeFile },
    log,
    afterWarmup
  })

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
  run: RunContext
): Promise<{ readonly measurement: Measurement; readonly command?: string; readonly sample?: string }> => {
  const { fixture } = run
  if (name === "pgbench INSERT") {
    if (spec.pgbenchScript === undefined) throw new Error(`${spec.name}: no pgbench script`)
    const clients = connectionsOf(spec)
    const threads = Math.min(settings.pgbenchThreads, clients)
    log(`  pgbench: -c ${clients} -j ${threads} -T ${settings.durationS} (single-row INSERT)`)
    const result = await runPgbench({
      databaseUrl: fixture.databaseUrl,
      script: spec.pgbenchScript(fixture),
      clients,
      threads,
      durationS: settings.durationS,
      workDir
    })
    return { measurement: result, command: result.command }
  }
  const server = await startBaseline(
    name === "raw node:http" ? "raw-http" : "node-pg",
    fixture.databaseUrl,
    run.statementsFile
  )
  try {
    log(`  ${name}: ${server.baseUrl}`)
    const sample = await sampleBody(spec, server, fixture)
    const { measurement } = await measureHttp(spec, server, fixture)
    // The baselines write what went wrong to stderr.
    const stderr = server.child.stderrTail().trim()
    if ((measurement.non2xx > 0 || measurement.errors > 0) && stderr !== "") {
      log(`  ${name} stderr (last lines):\n    ${stderr.split("\n").slice(-5).join("\n    ")}`)
    }
    return { measurement, ...(sample === undefined ? {} : { sample }) }
  } finally {
    await server.child.stop()
  }
}

/** A gateway run before the baselines: what GatewayRun holds except the ratios. */
type GatewayMeasured = Omit<GatewayRun, "ratio" | "ratios" | "pass" | "p50Aim">

/** A fresh gateway at `logLevel`, warmed up and measured; its stdout (the log) is counted and removed. */
const runGateway = async (
  spec: Spec,
  fixture: Fixture,
  logLevel: GatewayLogLevel
): Promise<{ readonly run: GatewayMeasured; readonly sample: string | undefined }> => {
  const label = `${spec.name}-${logLevel === "Warn" ? "warn" : "default"}`
  const gateway = await startGateway(fixture.databaseUrl, { label, logLevel, profile: settings.profile })
  let measured: Measured
  let sample: string | undefined
  let logBytes = 0
  try {
    sample = await sampleBody(spec, gateway, fixture)
    let before = 0
    measured = await measureHttp(spec, gateway, fixture, () => {
      before = statSync(gateway.logFile).size
    })
    logBytes = statSync(gateway.logFile).size - before
  } finally {
    await gateway.child.stop()
    // At Info it is large (one line a request) and not needed afterwards.
    rmSync(gateway.logFile, { force: true })
  }
  const m = measured.measurement
  const logBytesPerRequest = Math.round(logBytes / Math.max(1, m.requests + m.non2xx))
  log(`  gateway@${logLevel.padEnd(8)} ${short(m)}  log ${logBytesPerRequest} B/req`)
  let profile: GatewayRun["profile"]
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
    run: { logLevel, measurement: m, logBytesPerRequest, ...(profile === undefined ? {} : { profile }) },
    sample
  }
}

/**
 * One workload: a fresh gateway per log level (BENCH_LOG_LEVEL: default, then
 * Warn), then each baseline once; every gateway run is set against the same
 * baseline runs.
 */
const runWorkload = async (spec: Spec, run: RunContext): Promise<WorkloadResult> => {
  const { fixture } = run
  log(`${spec.name}: ${spec.what} (${connectionsOf(spec)} connections)`)
  const measured: Array<GatewayMeasured> = []
  let gatewaySample: string | undefined
  for (const logLevel of settings.gatewayLogLevels) {
    const { run: gatewayRun, sample } = await runGateway(spec, fixture, logLevel)
    measured.push(gatewayRun)
    gatewaySample ??= sample
  }
  const baselines: Array<BaselineResult> = []
  let sameBody: boolean | undefined
  for (const name of spec.baselines) {
    const { measurement, command, sample } = await runBaseline(name, spec, run)
    if (sample !== undefined && gatewaySample !== undefined) {
      sameBody = sample === gatewaySample
      log(`  ${name} answered ${sameBody ? "the same body as" : "a DIFFERENT body from"} the gateway`)
      if (!sameBody) log(`    gateway: ${gatewaySample.slice(0, 600)}\n    ${name}: ${sample.slice(0, 600)}`)
    }
    log(`  ${name.padEnd(16)} ${short(measurement)}`)
    baselines.push({ name, measurement, ...(command === undefined ? {} : { command }) })
  }
  const [first] = baselines
  if (first === undefined) throw new Error(`${spec.name}: no baseline`)
  const gateways: Array<GatewayRun> = measured.map((g) => {
    const ratio = ratioOf(g.measurement, first.measurement)
    const aim = spec.p50AimMs
    return {
      ...g,
      ratio,
      ratios: baselines.map((b) => ({ baseline: b.name, ratio: ratioOf(g.measurement, b.measurement) })),
      pass: spec.target === null ? null : ratio >= spec.target,
      ...(aim === undefined ? {} : { p50Aim: { ms: aim, met: g.measurement.latencyMs.p50 <= aim } })
    }
  })
  const atDefault = gateways.find((g) => g.logLevel === "default")
  const atWarn = gateways.find((g) => g.logLevel === "Warn")
  const defaultOverWarn =
    atDefault === undefined || atWarn === undefined ? null : ratioOf(atDefault.measurement, atWarn.measurement)
  if (defaultOverWarn !== null) log(`  gateway default / Warn: ${defaultOverWarn}`)
  return {
    workload: spec.name,
    what: spec.what,
    connections: connectionsOf(spec),
    gateways,
    baselines,
    target: spec.target,
    defaultOverWarn,
    ...(sameBody === undefined ? {} : { sameBody })
  }
}

/**
 * The repositories' own statements for node:http + pg, captured over the
 * gateway's SqlClient on the bench database (nothing is executed); throws
 * when a parameter cannot be traced back to an argument.
 */
const captureForBaseline = async (databaseUrl: string): Promise<{ statements: Captured; file: string }> => {
  const statements = await captureStatements(
    Database.layerFor({ kind: "postgres", url: Redacted.make(databaseUrl) }, 1)
  )
  const file = join(workDir, "statements.json")
  writeFileSync(file, JSON.stringify(statements, null, 2))
  log(
    `statements for node:http + pg, captured from the repositories: ${STATEMENT_NAMES.map(
      (name) => `${name} (${statements[name].params.length})`
    ).join(", ")}`
  )
  return { statements, file }
}

// ---------------------------------------------------------------- main

const main = async () => {
  mkdirSync(workDir, { recursive: true })
  if (settings.profile) mkdirSync(PROFILE_DIR, { recursive: true })
  const specs = SPECS.filter((s) => settings.only.includes(s.name))
  const slot = settings.durationS + settings.warmupMaxS + 20
  const budgetS = 300 + specs.reduce((n, s) => n + slot * (settings.gatewayLogLevels.length + s.baselines.length), 0)
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
  log(
    `database ${db.name}; ${settings.connections} connections, ${settings.durationS} s per run; gateway at ${settings.gatewayLogLevels.join(" and ")}`
  )
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
  const { statements, file: statementsFile } = await captureForBaseline(db.url)
  const run: RunContext = { fixture, statementsFile }

  const results: Array<WorkloadResult> = []
  for (const spec of specs) results.push(await runWorkload(spec, run))
  writeReport(buildReport({ settings, pgVersion, fixture, statements, results }), results)
}

main()
  .catch((error: unknown) => {
    log(`failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`)
    process.exitCode = 1
  })
  .finally(() => cleanup())
