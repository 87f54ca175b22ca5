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
import { log, PROFILE_DIR, ROOT, settings, workDir } from "./lib/settings.js"
import { captureStatements } from "./lib/statements.js"
import { formatSummary, summarizeProfile } from "./profile-summary.js"
import {
  type BaselineResult,
  buildReport,
  type LoggingResult,
  ratioOf,
  short,
  type WorkloadResult,
  writeReport
} from "./report.js"
import { type BaselineName, type Fixture, type HttpWorkload, loadFor, SPECS, type Spec } from "./workloads.js"

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

const measureHttp = (
  workload: HttpWorkload,
  server: Server,
  fixture: Fixture,
  afterWarmup?: () => void
): Promise<Measured> =>
  warmUpAndMeasure(workload, () => loadFor(workload, server.baseUrl, fixture), {
    connections: settings.connections,
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
  const server = await startBaseline(
    name === "raw node:http" ? "raw-http" : "node-pg",
    fixture.databaseUrl,
    run.statementsFile
  )
  try {
    log(`  ${name}: ${server.baseUrl}`)
    const sample = await sampleBody(spec, server, fixture)
    const { measurement } = await measureHttp(spec.name, server, fixture)
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

const runWorkload = async (spec: Spec, run: RunContext): Promise<WorkloadResult> => {
  const { fixture } = run
  log(`${spec.name}: ${spec.what}`)
  const gateway = await startGateway(fixture.databaseUrl, {
    label: spec.name,
    logLevel: settings.gatewayLogLevel,
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
    const { measurement, command, sample } = await runBaseline(name, spec, run)
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
  const { statements, file: statementsFile } = await captureForBaseline(db.url)
  const run: RunContext = { fixture, statementsFile }

  const results: Array<WorkloadResult> = []
  for (const spec of specs) results.push(await runWorkload(spec, run))
  const logging: Array<LoggingResult> = []
  if (withLogging) {
    for (const workload of ["health", "append_message"] as const) {
      logging.push(await runLogging(workload, fixture, results.find((r) => r.workload === workload)?.gateway))
    }
  }
  writeReport(buildReport({ settings, pgVersion, fixture, statements, results, logging }), results, logging)
}

main()
  .catch((error: unknown) => {
    log(`failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`)
    process.exitCode = 1
  })
  .finally(() => cleanup())
