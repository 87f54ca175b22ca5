import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { isoTimestampSql } from "../platform/db/SqlText.js"
import { fn } from "../platform/telemetry/Traced.js"
import { RESOURCE_JOIN, RESOURCE_OF, SCOPE_OF } from "./SpansRepo.js"

export interface TraceFilters {
  readonly limit: number
  /** Keyset: traces before (start_ns, trace_id). */
  readonly after: { readonly startNs: string; readonly traceId: string } | undefined
  readonly serviceName: string | undefined
  readonly fromNs: string | undefined
  readonly toNs: string | undefined
  readonly hasError: boolean | undefined
}

/** A trace row as the database writes it: TraceSummary's shape, plus the keyset position. */
export interface TraceRow {
  readonly json: string
  readonly start_ns: string
  readonly trace_id: string
}

const nsToIso = (column: string) => isoTimestampSql(`to_timestamp(${column}::float8 / 1e9)`)

const SUMMARY = `json_build_object(
  'trace_id', t.trace_id, 'name', t.name, 'service_name', t.service_name,
  'start_time', ${nsToIso("t.start_ns")}, 'end_time', ${nsToIso("t.end_ns")},
  'duration_ms', GREATEST(t.end_ns - t.start_ns, 0)::float8 / 1e6,
  'span_count', t.span_count, 'error_count', t.error_count,
  'run_count', (SELECT count(*) FROM runs r WHERE r.project_id = t.project_id AND r.trace_id = t.trace_id)
)::text`

const SPAN = `json_build_object(
  'trace_id', s.trace_id, 'span_id', s.span_id, 'parent_span_id', s.parent_span_id, 'trace_state', s.trace_state,
  'name', s.name,
  'kind', (ARRAY['unspecified','internal','server','client','producer','consumer'])[s.kind + 1],
  'start_time', ${nsToIso("s.start_ns")}, 'end_time', ${nsToIso("s.end_ns")},
  'start_time_unix_nano', s.start_ns::text, 'end_time_unix_nano', s.end_ns::text,
  'duration_ms', GREATEST(s.end_ns - s.start_ns, 0)::float8 / 1e6,
  'status_code', (ARRAY['unset','ok','error'])[s.status_code + 1], 'status_message', s.status_message,
  'service_name', s.service_name, 'attributes', s.attributes, 'events', s.events, 'links', s.links,
  'resource', ${RESOURCE_OF}, 'scope', ${SCOPE_OF}, 'convention', s.convention, 'role', s.role,
  'run_id', (SELECT r.id FROM runs r WHERE r.project_id = s.project_id AND r.trace_id = s.trace_id
    AND r.span_id = s.span_id)
)::text`

export class TracesRepo extends Effect.Service<TracesRepo>()("svc/TracesRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const summary = sql.literal(SUMMARY)

    /** A page of a project's traces, newest first (by start, then trace id). */
    const list = (projectId: string, filters: TraceFilters) => {
      const conditions = [sql`t.project_id = ${projectId}`, sql`t.span_count > 0`]
      if (filters.after !== undefined) {
        conditions.push(sql`(t.start_ns, t.trace_id) < (${filters.after.startNs}::bigint, ${filters.after.traceId})`)
      }
      if (filters.serviceName !== undefined) conditions.push(sql`t.service_name = ${filters.serviceName}`)
      if (filters.fromNs !== undefined) conditions.push(sql`t.start_ns >= ${filters.fromNs}::bigint`)
      if (filters.toNs !== undefined) conditions.push(sql`t.start_ns < ${filters.toNs}::bigint`)
      if (filters.hasError === true) conditions.push(sql`t.error_count > 0`)
      if (filters.hasError === false) conditions.push(sql`t.error_count = 0`)
      return sql<TraceRow>`
        SELECT ${summary} AS json, t.start_ns::text AS start_ns, t.trace_id FROM traces t
        WHERE ${sql.and(conditions)}
        ORDER BY t.start_ns DESC, t.trace_id DESC LIMIT ${filters.limit}`
    }

    /** One trace: its summary and every span (oldest first), as JSON texts; none when the project has no such trace. */
    const get = (projectId: string, traceId: string) =>
      Effect.gen(function* () {
        const [trace] = yield* sql<{ json: string }>`
          SELECT ${summary} AS json FROM traces t
          WHERE t.project_id = ${projectId} AND t.trace_id = ${traceId} AND t.span_count > 0`
        if (trace === undefined) return Option.none()
        const spans = yield* sql<{ json: string }>`
          SELECT ${sql.literal(SPAN)} AS json
          FROM spans s ${sql.literal(RESOURCE_JOIN)}
          WHERE s.project_id = ${projectId} AND s.trace_id = ${traceId}
          ORDER BY s.start_ns, s.span_id`
        return Option.some({ trace: trace.json, spans: spans.map((span) => span.json) })
      })

    return {
      list: fn("TracesRepo.list")(list, Effect.orDie),
      get: fn("TracesRepo.get")(get, Effect.orDie)
    } as const
  })
}) {}
