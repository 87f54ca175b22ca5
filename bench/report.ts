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
import { RESULTS, ROOT, runId, type Settings } from "./lib/settings.js"
import type { SummaryRow } from "./profile-summary.js"
import type { BaselineName, Fixture, HttpWorkload } from "./workloads.js"

export interface BaselineResult {
  readonly name: BaselineName
  readonly measurement: Measurement
  readonly ratio: number
  readonly command?: string
}

export interface WorkloadResult {
  readonly workload: HttpWorkload
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

export interface LoggingResult {
  readonly workload: HttpWorkload
  /** LOG_LEVEL unset (Info) and LOG_FORMAT unset (json): one "Sent HTTP response" entry per request. */
  readonly info: Measurement
  readonly warn: Measurement
  readonly ratio: number
  readonly logBytesPerRequest: number
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
const pair = (a: number | null, b: number | null) => `${fmt(a, 0)} / ${fmt(b, 0)}`

/** The Markdown table: one row per (workload, baseline), then the logging rows. */
export const table = (results: ReadonlyArray<WorkloadResult>, logging: ReadonlyArray<LoggingResult>): string => {
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

/** The JSON document of one run. */
export const buildReport = (input: {
  readonly settings: Settings
  readonly pgVersion: string
  readonly fixture: Fixture
  readonly statements: Captured
  readonly results: ReadonlyArray<WorkloadResult>
  readonly logging: ReadonlyArray<LoggingResult>
}) => {
  const { settings, fixture, results, logging } = input
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
      gatewayLogLevel: settings.gatewayLogLevel,
      profile: settings.profile,
      seed: {
        backgroundThreads: settings.seedThreads,
        messagesPerBackgroundThread: settings.seedMessagesPerThread,
        listThreadMessages: settings.listThreadMessages,
        appendThreads: fixture.appendThreadIds.length,
        getThreads: fixture.getThreadIds.length,
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
    logging,
    /** What node:http + pg ran: the statements captured from the repositories at the start of this run. */
    baselineStatements: input.statements
  }
}

/** Writes bench/results/<run>.json and prints the table, then the JSON, on stdout. */
export const writeReport = (
  report: ReturnType<typeof buildReport>,
  results: ReadonlyArray<WorkloadResult>,
  logging: ReadonlyArray<LoggingResult>
): string => {
  const json = JSON.stringify(report, null, 2)
  mkdirSync(RESULTS, { recursive: true })
  const file = join(RESULTS, `${runId}.json`)
  writeFileSync(file, `${json}\n`)
  process.stdout.write(`\n${table(results, logging)}\n\n${json}\n\nwritten to ${file.slice(ROOT.length + 1)}\n`)
  return file
}
