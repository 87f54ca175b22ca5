/**
 * The report: results per workload, ratios (gateway / baseline), the
 * Markdown table, the JSON document and bench/results/<run>.json.
 */
import { mkdirSync, writeFileSync } from "node:fs"
import { availableParallelism, cpus } from "node:os"
import { join } from "node:path"
import type { Captured } from "./lib/captured.js"
import type { Measurement } from "./lib/load.js"
import { CONTENT_JSON, RUN_REPORT_BYTES, RUN_TOOL_CALLS, runDetailJson } from "./lib/payload.js"
import { type GatewayLogLevel, RESULTS, ROOT, runId, type Settings } from "./lib/settings.js"
import type { SummaryRow } from "./profile-summary.js"
import type { BaselineName, Fixture, HttpWorkload } from "./workloads.js"

export interface BaselineResult {
  readonly name: BaselineName
  readonly measurement: Measurement
  readonly command?: string
}

/** One gateway run of a workload: at the default logging (LOG_LEVEL unset: Info) or at LOG_LEVEL=Warn. */
export interface GatewayRun {
  readonly logLevel: GatewayLogLevel
  readonly measurement: Measurement
  /** Against the workload's first baseline (the one its target is against). */
  readonly ratio: number
  /** Against every baseline, in the workload's order. */
  readonly ratios: ReadonlyArray<{ readonly baseline: BaselineName; readonly ratio: number }>
  readonly pass: boolean | null
  /** Bytes the gateway wrote to stdout (its log) during the measured run, per response. */
  readonly logBytesPerRequest: number
  /** Spec.p50AimMs: whether this run's p50 is within it. */
  readonly p50Aim?: { readonly ms: number; readonly met: boolean }
  readonly profile?: { readonly file: string; readonly busyMs: number; readonly top: ReadonlyArray<SummaryRow> }
}

export interface WorkloadResult {
  readonly workload: HttpWorkload
  readonly what: string
  readonly connections: number
  /** In BENCH_LOG_LEVEL's order: default, then Warn (or only one of them). */
  readonly gateways: ReadonlyArray<GatewayRun>
  /** The first is the one the target and `ratio` are against. */
  readonly baselines: ReadonlyArray<BaselineResult>
  readonly target: number | null
  /** Gateway req/s at the default logging / at Warn (null unless both ran). */
  readonly defaultOverWarn: number | null
  /** Spec.sameBody: whether the gateway and node:http + pg answered the same bytes. */
  readonly sameBody?: boolean
}

/** gateway req/s / baseline req/s, to 3 decimals. */
export const ratioOf = (gateway: Measurement, baseline: Measurement): number =>
  baseline.rps > 0 ? Math.round((gateway.rps / baseline.rps) * 1000) / 1000 : 0

/**
 * Server CPU ms per 2xx response: steadier than req/s when other work on the
 * machine takes the cores (the server is then descheduled while its loop is "busy").
 */
export const cpuMsPerRequest = (m: Measurement): number | null =>
  m.cpu.server === null || m.rps <= 0 ? null : (m.cpu.server * 10) / m.rps

/** One line per measured run, for the log. */
export const short = (m: Measurement) =>
  `${m.rps} req/s  p50 ${m.latencyMs.p50} ms  p99 ${m.latencyMs.p99} ms  CPU %: server ${m.cpu.server ?? "-"} (event loop busy ${m.cpu.serverEventLoop ?? "-"}), pg ${m.cpu.postgres ?? "-"}, loadgen ${m.cpu.loadGenerator ?? "-"}, machine ${m.cpu.machine ?? "-"}`

const fmt = (n: number | null | undefined, digits = 1): string =>
  n === null || n === undefined || Number.isNaN(n) ? "-" : n.toFixed(digits)

const latency = (m: Measurement) => `${fmt(m.latencyMs.p50, 2)} / ${fmt(m.latencyMs.p99, 2)}`
const serverCpu = (m: Measurement) =>
  m.cpu.server === null ? "-" : `${fmt(m.cpu.server, 0)} (${fmt(m.cpu.serverEventLoop, 2)})`
const failures = (m: Measurement | undefined) => (m === undefined ? "-" : String(m.non2xx + m.errors))

export const gatewayAt = (r: WorkloadResult, level: GatewayLogLevel): GatewayRun | undefined =>
  r.gateways.find((g) => g.logLevel === level)
const ratioAgainst = (g: GatewayRun | undefined, baseline: BaselineName): number | undefined =>
  g?.ratios.find((x) => x.baseline === baseline)?.ratio
const passCell = (g: GatewayRun | undefined) => (g === undefined || g.pass === null ? "-" : g.pass ? "pass" : "FAIL")

/**
 * The main table (issue 27): per workload and baseline, the gateway at its
 * default logging and at LOG_LEVEL=Warn, each as a ratio of the same
 * baseline run, and default / Warn.
 */
export const table = (results: ReadonlyArray<WorkloadResult>): string => {
  const rows = [
    "| workload | conns | baseline | gw@default req/s | p50 ms | p99 ms | ratio | gw@Warn req/s | ratio | baseline req/s | default / Warn | target | pass default / Warn | non-2xx + errors gw default / Warn / base |",
    "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|:---:|---:|"
  ]
  for (const r of results) {
    const atDefault = gatewayAt(r, "default")
    const atWarn = gatewayAt(r, "Warn")
    for (const [i, b] of r.baselines.entries()) {
      const first = i === 0
      const d = atDefault?.measurement
      const cells = [
        first ? r.workload : "",
        first ? String(r.connections) : "",
        b.name,
        first ? fmt(d?.rps) : "",
        first ? fmt(d?.latencyMs.p50, 2) : "",
        first ? fmt(d?.latencyMs.p99, 2) : "",
        fmt(ratioAgainst(atDefault, b.name), 3),
        first ? fmt(atWarn?.measurement.rps) : "",
        fmt(ratioAgainst(atWarn, b.name), 3),
        fmt(b.measurement.rps),
        first ? fmt(r.defaultOverWarn, 3) : "",
        first && r.target !== null ? fmt(r.target, 2) : "-",
        first && r.target !== null ? `${passCell(atDefault)} / ${passCell(atWarn)}` : "-",
        `${failures(d)} / ${failures(atWarn?.measurement)} / ${failures(b.measurement)}`
      ]
      rows.push(`| ${cells.join(" | ")} |`)
    }
  }
  return rows.join("\n")
}

/** Every measured run: latency, CPU, event loop, log bytes, failures. */
export const detailTable = (results: ReadonlyArray<WorkloadResult>): string => {
  const rows = [
    "| workload | server | req/s | p50 / p99 ms | server CPU % (loop busy) | server CPU ms / req | postgres CPU % | machine CPU % | log B / req | non-2xx | errors |",
    "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
  ]
  for (const r of results) {
    const runs: Array<{ server: string; m: Measurement; logBytes?: number }> = [
      ...r.gateways.map((g) => ({
        server: `gateway@${g.logLevel}`,
        m: g.measurement,
        logBytes: g.logBytesPerRequest
      })),
      ...r.baselines.map((b) => ({ server: b.name, m: b.measurement }))
    ]
    for (const [i, { server, m, logBytes }] of runs.entries()) {
      const cells = [
        i === 0 ? r.workload : "",
        server,
        fmt(m.rps),
        latency(m),
        serverCpu(m),
        fmt(cpuMsPerRequest(m), 3),
        fmt(m.cpu.postgres, 0),
        fmt(m.cpu.machine, 0),
        logBytes === undefined ? "-" : String(logBytes),
        String(m.non2xx),
        String(m.errors)
      ]
      rows.push(`| ${cells.join(" | ")} |`)
    }
  }
  return rows.join("\n")
}

/** The p50 aims (Spec.p50AimMs), one line each. */
export const aims = (results: ReadonlyArray<WorkloadResult>): string =>
  results
    .flatMap((r) => {
      const aim = r.gateways.find((g) => g.p50Aim !== undefined)?.p50Aim
      if (aim === undefined) return []
      const gateways = r.gateways.map(
        (g) => `gateway@${g.logLevel} ${fmt(g.measurement.latencyMs.p50, 2)} ms (${g.p50Aim?.met ? "met" : "NOT met"})`
      )
      const baselines = r.baselines.map((b) => `${b.name} ${fmt(b.measurement.latencyMs.p50, 2)} ms`)
      return [`${r.workload} p50, aim <= ${aim.ms} ms: ${[...gateways, ...baselines].join(", ")}`]
    })
    .join("\n")

/** Per workload, the figures of the main table. */
const summary = (r: WorkloadResult) => {
  const atDefault = gatewayAt(r, "default")
  const atWarn = gatewayAt(r, "Warn")
  const first = r.baselines[0]
  const gatewaySummary = (g: GatewayRun | undefined) =>
    g === undefined
      ? null
      : {
          rps: g.measurement.rps,
          p50Ms: g.measurement.latencyMs.p50,
          p99Ms: g.measurement.latencyMs.p99,
          ratio: g.ratio,
          pass: g.pass,
          serverCpuMsPerRequest: cpuMsPerRequest(g.measurement),
          logBytesPerRequest: g.logBytesPerRequest,
          non2xx: g.measurement.non2xx,
          errors: g.measurement.errors,
          ...(g.p50Aim === undefined ? {} : { p50Aim: g.p50Aim })
        }
  return {
    connections: r.connections,
    baseline: first?.name ?? null,
    target: r.target,
    default: gatewaySummary(atDefault),
    warn: gatewaySummary(atWarn),
    defaultOverWarn: r.defaultOverWarn,
    baselineRps: first?.measurement.rps ?? null,
    baselineP50Ms: first?.measurement.latencyMs.p50 ?? null,
    baselineServerCpuMsPerRequest: first === undefined ? null : cpuMsPerRequest(first.measurement),
    baselineNon2xx: first?.measurement.non2xx ?? null,
    baselineErrors: first?.measurement.errors ?? null
  }
}

/** The JSON document of one run. */
export const buildReport = (input: {
  readonly settings: Settings
  readonly pgVersion: string
  readonly fixture: Fixture
  readonly statements: Captured
  readonly results: ReadonlyArray<WorkloadResult>
}) => {
  const { settings, fixture, results } = input
  const cpu = cpus()[0]
  return {
    date: new Date().toISOString(),
    command: "npm run bench",
    machine: {
      cpus: availableParallelism(),
      cpuModel: cpu?.model ?? "?",
      node: process.version,
      postgres: input.pgVersion,
      platform: `${process.platform} ${process.arch}`
    },
    settings: {
      durationS: settings.durationS,
      warmupS: settings.warmupS,
      warmupMaxS: settings.warmupMaxS,
      connections: settings.connections,
      poolMax: settings.poolMax,
      pgbenchThreads: settings.pgbenchThreads,
      gatewayLogLevels: settings.gatewayLogLevels,
      profile: settings.profile,
      seed: {
        backgroundThreads: settings.seedThreads,
        messagesPerBackgroundThread: settings.seedMessagesPerThread,
        listThreadMessages: settings.listThreadMessages,
        appendThreads: fixture.appendThreadIds.length,
        spreadThreads: fixture.spreadThreadIds.length,
        getThreads: fixture.getThreadIds.length,
        contentBytes: CONTENT_JSON.length,
        runs: settings.seedRuns,
        runReportThreads: fixture.reportThreads.length,
        runReportBytes: RUN_REPORT_BYTES,
        runReportToolCalls: RUN_TOOL_CALLS,
        runDetailBytes: runDetailJson().length
      }
    },
    /** The main table's figures per workload: the gateway at default and at Warn against the first baseline. */
    ratios: Object.fromEntries(results.map((r) => [r.workload, summary(r)])),
    workloads: results,
    /** What node:http + pg ran: the statements captured from the repositories at the start of this run. */
    baselineStatements: input.statements
  }
}

/** Writes bench/results/<run>.json and prints the tables, then the JSON, on stdout. */
export const writeReport = (report: ReturnType<typeof buildReport>, results: ReadonlyArray<WorkloadResult>): string => {
  const json = JSON.stringify(report, null, 2)
  mkdirSync(RESULTS, { recursive: true })
  const file = join(RESULTS, `${runId}.json`)
  writeFileSync(file, `${json}\n`)
  const aimLines = aims(results)
  process.stdout.write(
    `\n${table(results)}\n\n${aimLines === "" ? "" : `${aimLines}\n\n`}${detailTable(results)}\n\n${json}\n\nwritten to ${file.slice(ROOT.length + 1)}\n`
  )
  return file
}
