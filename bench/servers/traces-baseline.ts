/**
 * Trace export baseline: bare node:http + a pg.Pool of the gateway's size.
 * For POST /v1/traces it compares the bearer with the one API key it was
 * given (the gateway answers a known key from its cache too), decodes the
 * body with the gateway's own decoder (protocols/otlp: protobufjs for
 * protobuf, JSON.parse for OTLP/JSON, then decodeExport) and writes the span
 * rows into the gateway's `spans` table in one statement, the same columns
 * and values the gateway writes. It answers `{}` or an empty protobuf body.
 *
 * What it does not do, and the gateway does: the `traces` rows and their
 * lock (the 500-span cap across exports), the 16 KiB attribute check, the
 * conventions recognised in each span, the runs made from model calls (a
 * second read and a write), usage, the permit that bounds exports stored at
 * once, the access log, and the HTTP framework. The ratio prices those.
 *
 * Env: DATABASE_URL, DATABASE_POOL_MAX (10), BENCH_API_KEY, BENCH_PROJECT_ID,
 * PORT (0). Prints `LISTENING <port>` once bound.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import pg from "pg"
import { decodeExport } from "../../protocols/otlp/Decode.js"
import { ExportTraceServiceRequest } from "../../protocols/otlp/Proto.js"

const pool = new pg.Pool({
  connectionString: process.env.DATABASE_URL,
  max: Number(process.env.DATABASE_POOL_MAX ?? 10)
})
const bearer = `Bearer ${process.env.BENCH_API_KEY ?? ""}`
const projectId = process.env.BENCH_PROJECT_ID ?? ""

const INSERT = `
  INSERT INTO spans (project_id, trace_id, span_id, parent_span_id, trace_state, name, kind, start_ns, end_ns,
    status_code, status_message, service_name, attributes, events, links, resource, scope)
  SELECT $1, s.trace_id, s.span_id, s.parent_span_id, s.trace_state, s.name, s.kind, s.start_ns, s.end_ns,
    s.status_code, s.status_message, s.service_name, s.attributes, s.events, s.links, s.resource, s.scope
  FROM jsonb_to_recordset($2::jsonb) AS s(trace_id text, span_id text, parent_span_id text, trace_state text,
    name text, kind smallint, start_ns bigint, end_ns bigint, status_code smallint, status_message text,
    service_name text, attributes jsonb, events jsonb, links jsonb, resource jsonb, scope jsonb)
  ON CONFLICT DO NOTHING`

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
        resource: span.resource,
        scope: span.scope
      }
    })
    await pool.query(INSERT, [projectId, JSON.stringify(rows)])
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
