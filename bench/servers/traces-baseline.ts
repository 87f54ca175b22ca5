/**
 * Trace export baseline: bare node:http + a pg.Pool of the gateway's size.
 * For POST /v1/traces it compares the bearer with the one API key it was
 * given (the gateway answers a known key from its cache too), decodes the
 * body with the gateway's own decoder (protocols/otlp: protobufjs for
 * protobuf, JSON.parse for OTLP/JSON, then decodeExport) and writes the span
 * rows into the gateway's `spans` table in one statement, the same columns
 * and values the gateway writes, with each distinct resource and scope of
 * the export in `span_resources` once (the same statement). It answers `{}`
 * or an empty protobuf body.
 *
 * With BASELINE_ROWS=all (the default) it writes the same rows as the
 * gateway in that one statement: the spans with the convention and role
 * recognised in each (src/traces/GenAiSpans.ts's own `recognise`), one `traces` row
 * per trace (name, service, times, counts), and one `runs` row per model-call
 * span made by the gateway's own `deriveRun`. With BASELINE_ROWS=spans it
 * writes the span rows only.
 *
 * What it does not do, and the gateway does: the lock on each trace's row and
 * the 500-span cap across exports (a transaction of several statements), the
 * 16 KiB attribute check, duplicate spans within an export, tool spans that
 * complete a run from an earlier export (a second read), thread owners,
 * usage, the permit that bounds exports stored at once, the access log, and
 * the HTTP framework. The ratio prices those.
 *
 * Env: DATABASE_URL, DATABASE_POOL_MAX (10), BENCH_API_KEY, BENCH_PROJECT_ID,
 * BASELINE_ROWS (all | spans), PORT (0). Prints `LISTENING <port>` once bound.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import pg from "pg"
import { decodeExport } from "../../protocols/otlp/Decode.js"
import { ExportTraceServiceRequest } from "../../protocols/otlp/Proto.js"
import { newId, ulid } from "../../src/platform/Ids.js"
import { deriveRun, recognise } from "../../src/traces/GenAiSpans.js"
import type { SpanInput } from "../../src/traces/SpanModel.js"

const pool = new pg.Pool({
  connectionString: process.env.DATABASE_URL,
  max: Number(process.env.DATABASE_POOL_MAX ?? 10)
})
const bearer = `Bearer ${process.env.BENCH_API_KEY ?? ""}`
const projectId = process.env.BENCH_PROJECT_ID ?? ""
const ALL_ROWS = (process.env.BASELINE_ROWS ?? "all") === "all"

/** The export's distinct resources and scopes ($5 in INSERT_ALL, $3 in INSERT), one row each. */
const RESOURCES_IN = (param: string) => `resources_in AS (
    INSERT INTO span_resources (project_id, id, resource, scope)
    SELECT $1, r.id, r.resource, r.scope FROM jsonb_to_recordset(${param}::jsonb) AS r(id text, resource jsonb, scope jsonb)
  )`

const SPAN_COLUMNS = `trace_id text, span_id text, parent_span_id text, trace_state text, name text, kind smallint,
  start_ns bigint, end_ns bigint, status_code smallint, status_message text, service_name text, attributes jsonb,
  events jsonb, links jsonb, resource_id text`

/** Spans, their resources, their traces' rows and the runs, in one statement. */
const INSERT_ALL = `
  WITH ${RESOURCES_IN("$5")}, spans_in AS (
    INSERT INTO spans (project_id, trace_id, span_id, parent_span_id, trace_state, name, kind, start_ns, end_ns,
      status_code, status_message, service_name, attributes, events, links, resource_id, convention, role)
    SELECT $1, s.trace_id, s.span_id, s.parent_span_id, s.trace_state, s.name, s.kind, s.start_ns, s.end_ns,
      s.status_code, s.status_message, s.service_name, s.attributes, s.events, s.links, s.resource_id,
      s.convention, s.role
    FROM jsonb_to_recordset($2::jsonb) AS s(${SPAN_COLUMNS}, convention text, role text)
    ON CONFLICT DO NOTHING
    RETURNING 1
  ), traces_in AS (
    INSERT INTO traces (project_id, trace_id, name, has_root, service_name, start_ns, end_ns, span_count, error_count)
    SELECT $1, t.trace_id, t.name, t.has_root, t.service_name, t.start_ns, t.end_ns, t.span_count, t.error_count
    FROM jsonb_to_recordset($3::jsonb) AS t(trace_id text, name text, has_root boolean, service_name text,
      start_ns bigint, end_ns bigint, span_count integer, error_count integer)
    ON CONFLICT DO NOTHING
  ), runs_in AS (
    INSERT INTO runs (project_id, id, trace_id, span_id, thread_id, workspace_id, user_id, status, model_id,
      provider, input_tokens, output_tokens, reasoning_tokens, cached_input_tokens, duration_ms, first_token_ms,
      total_steps, tool_call_count, error, detail)
    SELECT $1, r.id, r.trace_id, r.span_id, NULL, NULL, NULL, r.status, r.model_id, r.provider, r.input_tokens,
      r.output_tokens, r.reasoning_tokens, r.cached_input_tokens, r.duration_ms, r.first_token_ms, r.total_steps,
      r.tool_call_count, r.error, r.detail
    FROM jsonb_to_recordset($4::jsonb) AS r(id text, trace_id text, span_id text, status text, model_id text,
      provider text, input_tokens bigint, output_tokens bigint, reasoning_tokens bigint, cached_input_tokens bigint,
      duration_ms bigint, first_token_ms bigint, total_steps integer, tool_call_count integer, error text,
      detail jsonb)
    ON CONFLICT DO NOTHING
  )
  SELECT count(*) FROM spans_in`

/** The traces' rows and the runs the gateway makes of these spans (all of one export, traces new). */
const tracesAndRuns = (spans: ReadonlyArray<SpanInput>) => {
  const byTrace = new Map<string, Array<SpanInput>>()
  for (const span of spans) {
    const list = byTrace.get(span.trace_id)
    if (list === undefined) byTrace.set(span.trace_id, [span])
    else list.push(span)
  }
  const traces = []
  const runs = []
  for (const [traceId, list] of byTrace) {
    const root = list.find((span) => span.parent_span_id === null)
    const first = list.reduce((a, b) => (BigInt(b.start_time_unix_nano) < BigInt(a.start_time_unix_nano) ? b : a))
    const named = root ?? first
    const service = named.resource["service.name"]
    traces.push({
      trace_id: traceId,
      name: named.name,
      has_root: root !== undefined,
      service_name: typeof service === "string" ? service : null,
      start_ns: first.start_time_unix_nano,
      end_ns: list.reduce((a, b) => (BigInt(b.end_time_unix_nano) > BigInt(a.end_time_unix_nano) ? b : a))
        .end_time_unix_nano,
      span_count: list.length,
      error_count: list.filter((span) => span.status_code === 2).length
    })
    for (const span of list) {
      const run = deriveRun(
        span,
        list.filter((other) => other !== span)
      )
      if (run === undefined) continue
      runs.push({
        id: newId("run"),
        trace_id: traceId,
        span_id: span.span_id,
        status: run.status,
        model_id: run.model_id,
        provider: run.provider,
        input_tokens: run.input_tokens,
        output_tokens: run.output_tokens,
        reasoning_tokens: run.reasoning_tokens,
        cached_input_tokens: run.cached_input_tokens,
        duration_ms: run.duration_ms,
        first_token_ms: run.first_token_ms,
        total_steps: run.total_steps,
        tool_call_count: run.tool_calls.length,
        error: run.error,
        detail: {
          attributes: { source: "trace", convention: recognise(span).convention, span_name: span.name },
          tool_calls: run.tool_calls,
          output_text: run.output_text
        }
      })
    }
  }
  return { traces, runs }
}

const INSERT = `
  WITH ${RESOURCES_IN("$3")}
  INSERT INTO spans (project_id, trace_id, span_id, parent_span_id, trace_state, name, kind, start_ns, end_ns,
    status_code, status_message, service_name, attributes, events, links, resource_id)
  SELECT $1, s.trace_id, s.span_id, s.parent_span_id, s.trace_state, s.name, s.kind, s.start_ns, s.end_ns,
    s.status_code, s.status_message, s.service_name, s.attributes, s.events, s.links, s.resource_id
  FROM jsonb_to_recordset($2::jsonb) AS s(${SPAN_COLUMNS})
  ON CONFLICT DO NOTHING`

/** A row id per distinct (resource, scope) pair of objects (the decoder shares them among their spans). */
const resourceIds = () => {
  const ids = new Map<SpanInput["resource"], Map<SpanInput["scope"], string>>()
  const rows: Array<{ id: string; resource: SpanInput["resource"]; scope: SpanInput["scope"] }> = []
  const idOf = (span: SpanInput) => {
    let byScope = ids.get(span.resource)
    if (byScope === undefined) {
      byScope = new Map()
      ids.set(span.resource, byScope)
    }
    let id = byScope.get(span.scope)
    if (id === undefined) {
      id = ulid()
      byScope.set(span.scope, id)
      rows.push({ id, resource: span.resource, scope: span.scope })
    }
    return id
  }
  return { idOf, rows }
}

const readBody = (request: IncomingMessage): Promise<Buffer> =>
  new Promise((resolve, reject) => {
    const chunks: Array<Buffer> = []
    request.on("data", (chunk: Buffer) => chunks.push(chunk))
    request.on("end", () => resolve(Buffer.concat(chunks)))
    request.on("error", reject)
  })

const answer = (response: ServerResponse, status: number, body: string | Uint8Array, type: string) => {
  response.writeHead(status, { "content-type": type, "content-length": Buffer.byteLength(body) })
  response.end(body)
}

const server = createServer(async (request, response) => {
  if (request.url === "/healthz") return answer(response, 200, "ok", "text/plain")
  if (request.method !== "POST" || request.url !== "/v1/traces") return answer(response, 404, "{}", "application/json")
  if (request.headers.authorization !== bearer) return answer(response, 401, "{}", "application/json")
  const protobuf = (request.headers["content-type"] ?? "").startsWith("application/x-protobuf")
  try {
    const bytes = await readBody(request)
    const decoded = decodeExport(
      protobuf ? ExportTraceServiceRequest.decode(bytes) : JSON.parse(bytes.toString("utf8")),
      protobuf ? "protobuf" : "json"
    )
    const resources = resourceIds()
    const rows = decoded.spans.map((span) => {
      const service = span.resource["service.name"]
      return {
        trace_id: span.trace_id,
        span_id: span.span_id,
        parent_span_id: span.parent_span_id,
        trace_state: span.trace_state,
        name: span.name,
        kind: span.kind,
        start_ns: span.start_time_unix_nano,
        end_ns: span.end_time_unix_nano,
        status_code: span.status_code,
        status_message: span.status_message,
        service_name: typeof service === "string" ? service : null,
        attributes: span.attributes,
        events: span.events,
        links: span.links,
        resource_id: resources.idOf(span),
        ...(ALL_ROWS ? recognise(span) : {})
      }
    })
    if (ALL_ROWS) {
      const { traces, runs } = tracesAndRuns(decoded.spans)
      await pool.query(INSERT_ALL, [
        projectId,
        JSON.stringify(rows),
        JSON.stringify(traces),
        JSON.stringify(runs),
        JSON.stringify(resources.rows)
      ])
    } else {
      await pool.query(INSERT, [projectId, JSON.stringify(rows), JSON.stringify(resources.rows)])
    }
    return protobuf
      ? answer(response, 200, new Uint8Array(0), "application/x-protobuf")
      : answer(response, 200, "{}", "application/json")
  } catch (error) {
    process.stderr.write(`${String(error)}\n`)
    return answer(response, 500, "{}", "application/json")
  }
})

server.listen(Number(process.env.PORT ?? 0), "127.0.0.1", () => {
  const address = server.address()
  if (address !== null && typeof address === "object") process.stdout.write(`LISTENING ${address.port}\n`)
})
