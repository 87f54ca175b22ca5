/**
 * `npx tsx bench/traces-scale.ts`: what an export to traces the store already
 * holds costs (the common case of a trace whose services export their own
 * spans) as the project's `spans` and `traces` tables grow. The gateway runs
 * on a fresh PostgreSQL database; the project is seeded by SQL up to each size
 * of BENCH_SCALE_SIZES (spans; traces of 10: an agent span, 7 model calls, 2
 * tool calls, as bench/traces.ts sends them), then VACUUM ANALYZEd; then
 * BENCH_SCALE_EXPORTS exports are sent one at a time, each of 100 new spans
 * to 10 seeded traces (7 model calls and 3 tool calls a trace, so runs are
 * made and the stored parts of the traces read). Per export: the median
 * latency and, from `pg_stat_database` (this database only), the tuples
 * fetched and the buffers touched. A cost that grows with the size is a plan
 * that reads the tables, not the export's rows.
 *
 * BENCH_SCALE_EXPLAIN=1: afterwards, one more export with auto_explain on
 * (ANALYZE, BUFFERS, nested statements), its plans printed.
 *
 * Env: BENCH_PG_URL, BENCH_SCALE_SIZES (20000,300000), BENCH_SCALE_EXPORTS (40), BENCH_PROFILE (1:
 * --cpu-prof the gateway).
 */
import { closeSync, mkdirSync, openSync, readSync, rmSync, statSync } from "node:fs"
import pg from "pg"
import { createDatabase } from "./lib/db.js"
import { killAllNow } from "./lib/proc.js"
import { adminToken, startGateway } from "./lib/servers.js"
import { log, settings, workDir } from "./lib/settings.js"
import { median } from "./lib/stats.js"

const SIZES = (process.env.BENCH_SCALE_SIZES ?? "20000,300000").split(",").map(Number)
const EXPORTS = Number(process.env.BENCH_SCALE_EXPORTS ?? 40)
const EXPLAIN = process.env.BENCH_SCALE_EXPLAIN === "1"
const PG_LOG = "/var/log/postgresql/postgresql-15-main.log"
const SPANS_PER_TRACE = 10

const traceHex = (n: number) => `5ca1e${n.toString(16).padStart(27, "0")}`
const spanHex = (n: number) => n.toString(16).padStart(16, "0")
const kv = (key: string, value: string | number) => ({
  key,
  value: typeof value === "number" ? { intValue: String(value) } : { stringValue: value }
})

/** 10 new spans for the seeded trace `trace` (span ids past the seeded ones, numbered by `round`). */
const spansFor = (trace: number, round: number) =>
  Array.from({ length: 10 }, (_, i) => {
    const start = 1_764_000_000_000_000_000n + BigInt(i + 1) * 100_000_000n
    const tool = i >= 7
    return {
      traceId: traceHex(trace),
      spanId: spanHex(0x10000 + round * 16 + i),
      parentSpanId: spanHex(0xa0),
      name: tool ? "execute_tool weather" : "chat gpt-4o-mini",
      kind: tool ? 1 : 3,
      startTimeUnixNano: start.toString(),
      endTimeUnixNano: (start + 90_000_000n).toString(),
      attributes: tool
        ? [
            kv("gen_ai.operation.name", "execute_tool"),
            kv("gen_ai.tool.name", "weather"),
            kv("gen_ai.tool.call.id", `call_${round}_${i}`),
            kv("gen_ai.tool.call.result", '{"sky":"sunny","celsius":21}')
          ]
        : [
            kv("gen_ai.operation.name", "chat"),
            kv("gen_ai.provider.name", "openai"),
            kv("gen_ai.request.model", "gpt-4o-mini"),
            kv("gen_ai.usage.input_tokens", 812 + i),
            kv("gen_ai.usage.output_tokens", 164 + i),
            kv(
              "gen_ai.output.messages",
              JSON.stringify([{ role: "assistant", parts: [{ type: "text", content: "ok" }] }])
            )
          ],
      status: { code: 1 }
    }
  })

const exportBody = (traces: ReadonlyArray<number>, round: number) =>
  JSON.stringify({
    resourceSpans: [
      {
        resource: { attributes: [kv("service.name", "second-service")] },
        scopeSpans: [{ scope: { name: "scale", version: "1" }, spans: traces.flatMap((t) => spansFor(t, round)) }]
      }
    ]
  })

/** Seeds traces [from, to) of the project: their rows, 10 spans each, one resource. */
const seed = async (client: pg.Client, projectId: string, from: number, to: number) => {
  await client.query(
    `INSERT INTO span_resources (project_id, id, resource, scope) VALUES ($1, 'seed', '{"service.name":"seed"}', '{"name":"seed","version":"","attributes":{}}')
     ON CONFLICT DO NOTHING`,
    [projectId]
  )
  await client.query(
    `INSERT INTO traces (project_id, trace_id, name, has_root, service_name, start_ns, end_ns, span_count, error_count)
     SELECT $1, '5ca1e' || lpad(to_hex(t), 27, '0'), 'invoke_agent planner', true, 'seed',
       1764000000000000000 + t, 1764000001000000000 + t, 10, 0
     FROM generate_series($2::int, $3::int - 1) t`,
    [projectId, from, to]
  )
  await client.query(
    `INSERT INTO spans (project_id, trace_id, span_id, parent_span_id, trace_state, name, kind, start_ns, end_ns,
       status_code, status_message, service_name, attributes, events, links, resource_id, convention, role)
     SELECT $1, '5ca1e' || lpad(to_hex(t), 27, '0'), lpad(to_hex(160 + i), 16, '0'),
       CASE WHEN i = 0 THEN NULL ELSE lpad(to_hex(160), 16, '0') END, '',
       CASE WHEN i = 0 THEN 'invoke_agent planner' WHEN i >= 8 THEN 'execute_tool weather' ELSE 'chat gpt-4o-mini' END,
       1, 1764000000000000000 + t + i * 100000000, 1764000000090000000 + t + i * 100000000, 1, '', 'seed',
       jsonb_build_object('gen_ai.operation.name', CASE WHEN i = 0 THEN 'invoke_agent' WHEN i >= 8 THEN 'execute_tool' ELSE 'chat' END,
         'gen_ai.request.model', 'gpt-4o-mini', 'gen_ai.usage.input_tokens', 812, 'gen_ai.usage.output_tokens', 164,
         'gen_ai.output.messages', repeat('The forecast for Paris tomorrow is sunny. ', 5)),
       '[]', '[]', 'seed', 'gen_ai',
       CASE WHEN i = 0 THEN NULL WHEN i >= 8 THEN 'tool_call' ELSE 'model_call' END
     FROM generate_series($2::int, $3::int - 1) t, generate_series(0, 9) i`,
    [projectId, from, to]
  )
  // Vacuumed too: else autovacuum comes to the new rows during the measured exports, and its reads count.
  await client.query("VACUUM ANALYZE spans, traces, span_resources, runs")
}

interface DbStats {
  readonly fetched: number
  readonly returned: number
  readonly hit: number
  readonly read: number
}

const dbStats = async (client: pg.Client): Promise<DbStats> => {
  const result = await client.query<{ f: string; r: string; h: string; rd: string }>(
    `SELECT tup_fetched AS f, tup_returned AS r, blks_hit AS h, blks_read AS rd
     FROM pg_stat_database WHERE datname = current_database()`
  )
  const row = result.rows[0]
  return { fetched: Number(row?.f), returned: Number(row?.r), hit: Number(row?.h), read: Number(row?.rd) }
}

const main = async () => {
  mkdirSync(workDir, { recursive: true })
  const db = await createDatabase(settings.pgUrl)
  log(`database ${db.name}`)
  const client = new pg.Client({ connectionString: db.url })
  try {
    let gateway = await startGateway(db.url, { label: "scale", logLevel: "Warn", profile: settings.profile })
    const created = await fetch(`${gateway.baseUrl}/v1/admin/projects`, {
      method: "POST",
      headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "bench-scale" })
    })
    const project = (await created.json()) as { project_id: string; api_key: string }
    await client.connect()
    const post = async (body: string) => {
      const started = performance.now()
      const answer = await fetch(`${gateway.baseUrl}/v1/traces`, {
        method: "POST",
        headers: { authorization: `Bearer ${project.api_key}`, "content-type": "application/json" },
        body
      })
      const text = await answer.text()
      if (answer.status !== 200 || text !== "{}") throw new Error(`export answered ${answer.status}: ${text}`)
      return performance.now() - started
    }
    let seededTraces = 0
    let round = 0
    // Each export takes 10 seeded traces no export has used yet, spread over the table.
    const pick = (): Array<number> => {
      round += 1
      // 7919 is prime: distinct numbers map to distinct traces (no span twice in an export).
      return Array.from({ length: 10 }, (_, k) => ((round * 10 + k) * 7919) % seededTraces)
    }
    const results: Array<Record<string, number>> = []
    for (const size of SIZES) {
      const traces = Math.ceil(size / SPANS_PER_TRACE)
      if (traces > seededTraces) {
        log(`seeding to ${traces * SPANS_PER_TRACE} spans`)
        await seed(client, project.project_id, seededTraces, traces)
        seededTraces = traces
      }
      for (let i = 0; i < 5; i++) await post(exportBody(pick(), round)) // warm-up
      await new Promise((resolve) => setTimeout(resolve, 1500))
      const before = await dbStats(client)
      const latencies: Array<number> = []
      for (let i = 0; i < EXPORTS; i++) latencies.push(await post(exportBody(pick(), round)))
      // Backends flush their statistics at most once a second.
      await new Promise((resolve) => setTimeout(resolve, 1500))
      const after = await dbStats(client)
      // The two pg_stat_database reads themselves are counted too; negligible beside EXPORTS exports.
      const per = (key: keyof DbStats) => Math.round((after[key] - before[key]) / EXPORTS)
      const result = {
        spans: seededTraces * SPANS_PER_TRACE,
        p50Ms: Math.round(median(latencies) * 10) / 10,
        tuplesFetched: per("fetched"),
        tuplesReturned: per("returned"),
        buffersHit: per("hit"),
        buffersRead: per("read")
      }
      results.push(result)
      log(JSON.stringify(result))
    }
    if (EXPLAIN) {
      await gateway.child.stop()
      for (const setting of [
        "session_preload_libraries = 'auto_explain'",
        "auto_explain.log_min_duration = 0",
        "auto_explain.log_analyze = on",
        "auto_explain.log_buffers = on",
        "auto_explain.log_nested_statements = on"
      ]) {
        await client.query(`ALTER DATABASE ${db.name} SET ${setting}`)
      }
      gateway = await startGateway(db.url, { label: "scale-explain", logLevel: "Warn", profile: false })
      const from = statSync(PG_LOG).size
      await post(exportBody(pick(), round))
      await new Promise((resolve) => setTimeout(resolve, 500))
      const length = statSync(PG_LOG).size - from
      const buffer = Buffer.alloc(length)
      const fd = openSync(PG_LOG, "r")
      readSync(fd, buffer, 0, length, from)
      closeSync(fd)
      process.stdout.write(buffer.toString("utf8"))
    }
    process.stdout.write(`${JSON.stringify(results)}\n`)
    await gateway.child.stop()
    const profile = gateway.collectProfile()
    if (profile !== undefined) log(`gateway CPU profile: ${profile} (npx tsx bench/profile-summary.ts ${profile})`)
  } finally {
    await client.end().catch(() => {})
    killAllNow()
    await db.drop()
    rmSync(workDir, { recursive: true, force: true })
  }
}

await main()
