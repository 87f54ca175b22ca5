/**
 * `npm run bench:traces`: OTLP trace exports of 100 GenAI spans each (10
 * traces of an agent span, 7 chat spans and 2 tool spans), in OTLP/JSON and
 * in protobuf, sent to the gateway (`POST /v1/traces` on PostgreSQL) and to
 * two baselines in the same run (bench/servers/traces-baseline.ts: node:http
 * + pg and the same decoder; one writes the same rows as the gateway, spans,
 * traces and runs, in one statement, the other the span rows only),
 * alternating gateway and baselines. Every export carries new trace ids (a re-sent span
 * is kept once and costs nothing). Spans stored are counted in the database
 * before and after each measured run.
 *
 * Env: BENCH_TRACES_DURATION (s, 10), BENCH_TRACES_ROUNDS (2),
 * BENCH_TRACES_CONNECTIONS (8), BENCH_PG_URL, BENCH_POOL_MAX (10), BENCH_PROFILE (1:
 * --cpu-prof the gateway), BENCH_TRACES_PLAIN (1: attribute names no convention
 * knows, so no runs are made: the storage alone), BENCH_LOG_LEVEL (warn: the
 * gateway at LOG_LEVEL=Warn; by default it runs without LOG_LEVEL, as users run it).
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import pg from "pg"
import { ExportTraceServiceRequest } from "../protocols/otlp/Proto.js"
import { createDatabase } from "./lib/db.js"
import { type Measurement, runAutocannon } from "./lib/load.js"
import { killAllNow, spawnChild, waitForHttp } from "./lib/proc.js"
import { adminToken, startGateway } from "./lib/servers.js"
import { log, RESULTS, ROOT, runId, settings, workDir } from "./lib/settings.js"
import { median } from "./lib/stats.js"

const intEnv = (name: string, fallback: number) => Number(process.env[name] ?? fallback)
const DURATION_S = intEnv("BENCH_TRACES_DURATION", 10)
const ROUNDS = intEnv("BENCH_TRACES_ROUNDS", 2)
const CONNECTIONS = intEnv("BENCH_TRACES_CONNECTIONS", 8)
/** BENCH_TRACES_PLAIN=1: the same spans with attribute names no convention knows (no runs made), to price the run mapping. */
const PLAIN = process.env.BENCH_TRACES_PLAIN === "1"
const TRACES_PER_EXPORT = 10
const SPANS_PER_TRACE = 10
const SPANS_PER_EXPORT = TRACES_PER_EXPORT * SPANS_PER_TRACE

const kv = (key: string, value: string | number) => ({
  key: PLAIN ? `x.${key}` : key,
  value: typeof value === "number" ? { intValue: String(value) } : { stringValue: value }
})
const OUTPUT = JSON.stringify([
  {
    role: "assistant",
    parts: [{ type: "text", content: "The forecast for Paris tomorrow is sunny, 21°C. ".repeat(4) }]
  }
])

/** Ids as OTLP/JSON writes them (hex) or as protobufjs takes them (bytes). */
type IdOf = (hex: string) => unknown
const hexId: IdOf = (hex) => hex
const bytesId: IdOf = (hex) => Buffer.from(hex, "hex")

/** The spans of one trace; `traceId` is what the body builder puts in its place. */
const traceSpans = (traceId: unknown, idOf: IdOf) =>
  Array.from({ length: SPANS_PER_TRACE }, (_, i) => {
    const start = 1_764_000_000_000_000_000n + BigInt(i) * 100_000_000n
    const role = i === 0 ? "agent" : i >= 8 ? "tool" : "chat"
    return {
      traceId,
      spanId: idOf((0xa0 + i).toString(16).padStart(16, "0")),
      ...(i === 0 ? {} : { parentSpanId: idOf((0xa0).toString(16).padStart(16, "0")) }),
      name: role === "agent" ? "invoke_agent planner" : role === "tool" ? "execute_tool weather" : "chat gpt-4o-mini",
      kind: role === "chat" ? 3 : 1,
      startTimeUnixNano: start.toString(),
      endTimeUnixNano: (start + 90_000_000n).toString(),
      attributes:
        role === "agent"
          ? [kv("gen_ai.operation.name", "invoke_agent"), kv("gen_ai.agent.name", "planner")]
          : role === "tool"
            ? [
                kv("gen_ai.operation.name", "execute_tool"),
                kv("gen_ai.tool.name", "weather"),
                kv("gen_ai.tool.call.id", `call_${i}`),
                kv("gen_ai.tool.call.result", '{"sky":"sunny","celsius":21}')
              ]
            : [
                kv("gen_ai.operation.name", "chat"),
                kv("gen_ai.provider.name", "openai"),
                kv("gen_ai.request.model", "gpt-4o-mini"),
                kv("gen_ai.response.model", "gpt-4o-mini-2024-07-18"),
                kv("gen_ai.usage.input_tokens", 812 + i),
                kv("gen_ai.usage.output_tokens", 164 + i),
                kv("gen_ai.output.messages", OUTPUT)
              ],
      status: { code: 1 }
    }
  })

const exportOf = (traceIdOf: (k: number) => unknown, idOf: IdOf) => ({
  resourceSpans: [
    {
      resource: { attributes: [kv("service.name", "bench-agent")] },
      scopeSpans: [
        {
          scope: { name: "bench", version: "1.0.0" },
          spans: Array.from({ length: TRACES_PER_EXPORT }, (_, k) => traceSpans(traceIdOf(k), idOf)).flat()
        }
      ]
    }
  ]
})

let counter = 0n
/** 32 hex digits: b7, the trace's index in the export, and the export's number. */
const traceHex = (k: number, n: bigint) => `b7${k.toString(16).padStart(2, "0")}${n.toString(16).padStart(28, "0")}`

/** OTLP/JSON bodies: the template split where the trace ids go, joined with new ones per export. */
const jsonBodies = () => {
  const parts = JSON.stringify(exportOf((k) => `__T${k}__`, hexId)).split(/__T(\d+)__/)
  return (): string => {
    const n = ++counter
    let out = ""
    for (let i = 0; i < parts.length; i++) out += i % 2 === 0 ? parts[i] : traceHex(Number(parts[i]), n)
    return out
  }
}

/** Protobuf bodies: the template's trace id bytes found once, overwritten per export. */
const protobufBodies = () => {
  const marker = (k: number) => Buffer.from(`b7${k.toString(16).padStart(2, "0")}${"ee".repeat(14)}`, "hex")
  const template = Buffer.from(
    ExportTraceServiceRequest.encode(ExportTraceServiceRequest.fromObject(exportOf(marker, bytesId))).finish()
  )
  const offsets: Array<number> = []
  for (let k = 0; k < TRACES_PER_EXPORT; k++) {
    for (let at = template.indexOf(marker(k)); at >= 0; at = template.indexOf(marker(k), at + 16)) offsets.push(at)
  }
  if (offsets.length !== SPANS_PER_EXPORT) throw new Error(`found ${offsets.length} trace ids in the template`)
  return (): Buffer => {
    const n = ++counter
    const body = Buffer.from(template)
    for (const at of offsets) {
      body.fill(0, at + 2, at + 8)
      body.writeBigUInt64BE(n, at + 8)
    }
    return body
  }
}

const countSpans = async (url: string): Promise<number> => {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    const result = await client.query<{ count: string }>("SELECT count(*) AS count FROM spans")
    return Number(result.rows[0]?.count ?? 0)
  } finally {
    await client.end()
  }
}

type Encoding = "json" | "protobuf"
type Target = "gateway" | "baseline" | "spansOnly"
const TARGETS = ["gateway", "baseline", "spansOnly"] as const

interface Run {
  readonly target: Target
  readonly encoding: Encoding
  readonly round: number
  readonly exportsPerS: number
  readonly spansPerS: number
  readonly measurement: Measurement
}

const main = async () => {
  mkdirSync(workDir, { recursive: true })
  const db = await createDatabase(settings.pgUrl)
  log(`database ${db.name}`)
  try {
    // As users run it (no LOG_LEVEL: Info, an access line per request) unless BENCH_LOG_LEVEL=warn.
    const logLevel = process.env.BENCH_LOG_LEVEL === "warn" ? "Warn" : "default"
    const gateway = await startGateway(db.url, { label: "traces", logLevel, profile: settings.profile })
    const created = await fetch(`${gateway.baseUrl}/v1/admin/projects`, {
      method: "POST",
      headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "bench-traces" })
    })
    const project = (await created.json()) as { project_id: string; api_key: string }
    const startBaseline = async (rows: "all" | "spans") => {
      const child = spawnChild({
        name: `traces-baseline-${rows}`,
        command: process.execPath,
        args: ["--import", "tsx", "bench/servers/traces-baseline.ts"],
        cwd: ROOT,
        env: {
          ...(process.env as Record<string, string>),
          DATABASE_URL: db.url,
          DATABASE_POOL_MAX: String(settings.poolMax),
          BENCH_API_KEY: project.api_key,
          BENCH_PROJECT_ID: project.project_id,
          BASELINE_ROWS: rows,
          PORT: "0"
        }
      })
      const match = await child.waitForLine(/LISTENING (\d+)/, 30_000)
      const server = { child, baseUrl: `http://127.0.0.1:${match[1]}` }
      await waitForHttp(`${server.baseUrl}/healthz`, 10_000, child)
      return server
    }
    const baseline = await startBaseline("all")
    const spansOnly = await startBaseline("spans")
    const servers = { gateway, baseline, spansOnly } as const
    const makers = { json: jsonBodies(), protobuf: protobufBodies() } as const
    const types = { json: "application/json", protobuf: "application/x-protobuf" } as const

    const measure = async (target: Target, encoding: Encoding, durationS: number, measured: boolean) => {
      const server = servers[target]
      const next = makers[encoding]
      const before = measured ? await countSpans(db.url) : 0
      const measurement = await runAutocannon(
        {
          url: `${server.baseUrl}/v1/traces`,
          method: "POST",
          headers: { authorization: `Bearer ${project.api_key}`, "content-type": types[encoding] },
          setupRequest: (request) => ({ ...request, body: next() })
        },
        { connections: CONNECTIONS, durationS, serverPid: measured ? server.child.pid : undefined }
      )
      const stored = measured ? (await countSpans(db.url)) - before : 0
      return { measurement, spansPerS: Math.round(stored / measurement.durationS) }
    }

    const runs: Array<Run> = []
    for (const encoding of ["json", "protobuf"] as const) {
      for (const target of TARGETS) {
        log(`warm-up ${target} ${encoding}`)
        await measure(target, encoding, 4, false)
      }
      for (let round = 1; round <= ROUNDS; round++) {
        for (const target of TARGETS) {
          const { measurement, spansPerS } = await measure(target, encoding, DURATION_S, true)
          const run = { target, encoding, round, exportsPerS: measurement.rps, spansPerS, measurement }
          runs.push(run)
          log(
            `${encoding} ${target} round ${round}: ${measurement.rps} exports/s, ${spansPerS} spans/s stored, ` +
              `p50 ${measurement.latencyMs.p50} ms p99 ${measurement.latencyMs.p99} ms, cpu server ${measurement.cpu.server}% ` +
              `postgres ${measurement.cpu.postgres}% load ${measurement.cpu.loadGenerator}%, non-2xx ${measurement.non2xx}`
          )
        }
      }
    }
    const summary = (["json", "protobuf"] as const).map((encoding) => {
      const of = (target: Target) => runs.filter((run) => run.encoding === encoding && run.target === target)
      const figure = (target: Target) => ({
        spansPerS: median(of(target).map((run) => run.spansPerS)),
        exportsPerS: median(of(target).map((run) => run.exportsPerS)),
        p99Ms: median(of(target).map((run) => run.measurement.latencyMs.p99)),
        serverCpu: median(of(target).map((run) => run.measurement.cpu.server ?? 0)),
        postgresCpu: median(of(target).map((run) => run.measurement.cpu.postgres ?? 0))
      })
      const gatewayFigure = figure("gateway")
      const baselineFigure = figure("baseline")
      const spansOnlyFigure = figure("spansOnly")
      const ratioTo = (other: { spansPerS: number }) =>
        Math.round((gatewayFigure.spansPerS / Math.max(1, other.spansPerS)) * 100) / 100
      return {
        encoding,
        gateway: gatewayFigure,
        baseline: baselineFigure,
        spansOnly: spansOnlyFigure,
        ratio: ratioTo(baselineFigure),
        ratioSpansOnly: ratioTo(spansOnlyFigure)
      }
    })
    const lines = summary.map(
      (s) =>
        `${s.encoding.padEnd(8)} gateway ${s.gateway.spansPerS} spans/s (${s.gateway.exportsPerS} exports/s, p99 ${s.gateway.p99Ms} ms, ` +
        `cpu ${s.gateway.serverCpu}% + pg ${s.gateway.postgresCpu}%)  baseline ${s.baseline.spansPerS} spans/s ` +
        `(cpu ${s.baseline.serverCpu}% + pg ${s.baseline.postgresCpu}%)  ratio ${s.ratio}; ` +
        `spans-only baseline ${s.spansOnly.spansPerS} spans/s, ratio ${s.ratioSpansOnly}`
    )
    process.stdout.write(`${lines.join("\n")}\n`)
    mkdirSync(RESULTS, { recursive: true })
    const file = join(RESULTS, `traces-${runId}.json`)
    writeFileSync(
      file,
      JSON.stringify(
        { runId, connections: CONNECTIONS, durationS: DURATION_S, gatewayLogLevel: logLevel, summary, runs },
        null,
        1
      )
    )
    log(`results in ${file}`)
    await baseline.child.stop()
    await spansOnly.child.stop()
    await gateway.child.stop()
    const profile = gateway.collectProfile()
    if (profile !== undefined) log(`gateway CPU profile: ${profile} (npx tsx bench/profile-summary.ts ${profile})`)
  } finally {
    killAllNow()
    await db.drop()
    rmSync(workDir, { recursive: true, force: true })
  }
}

await main()
