import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import type { SpanConvention, SpanRole } from "../../schema/Trace.js"
import type { SpanInput } from "../SpanModel.js"
import { fn } from "../Traced.js"

/** A span as written: the input plus what the gateway read in it. */
export interface SpanRow {
  readonly span: SpanInput
  readonly serviceName: string | null
  readonly convention: SpanConvention | null
  readonly role: SpanRole | null
}

export interface StoreOutcome {
  /** Spans of the export not stored before (in this call or an earlier export). */
  readonly fresh: number
  /** Those stored now: `fresh - stored.length` were over a trace's span cap. */
  readonly stored: ReadonlyArray<{ readonly trace_id: string; readonly span_id: string }>
  /** Traces of the export that held spans before it. */
  readonly earlier: ReadonlyArray<string>
}

/** A span read back with what the run mapping needs. */
export interface StoredSpan {
  readonly span: SpanInput
  readonly convention: SpanConvention | null
  readonly role: SpanRole | null
}

const COLUMNS = `trace_id text, span_id text, parent_span_id text, trace_state text, name text, kind smallint,
  start_ns bigint, end_ns bigint, status_code smallint, status_message text, service_name text, attributes jsonb,
  events jsonb, links jsonb, resource jsonb, scope jsonb, convention text, role text`

/** A stored span as read back: the input's fields, its times under their column names. */
type SpanRecord = Omit<SpanInput, "start_time_unix_nano" | "end_time_unix_nano"> & {
  readonly start_ns: string
  readonly end_ns: string
  readonly convention: SpanConvention | null
  readonly role: SpanRole | null
}

const toRecord = (row: SpanRow, ord: number) => ({
  ord,
  trace_id: row.span.trace_id,
  span_id: row.span.span_id,
  parent_span_id: row.span.parent_span_id,
  trace_state: row.span.trace_state,
  name: row.span.name,
  kind: row.span.kind,
  // jsonb_to_recordset reads a bigint from a JSON string exactly (a number would pass through float8).
  start_ns: row.span.start_time_unix_nano,
  end_ns: row.span.end_time_unix_nano,
  status_code: row.span.status_code,
  status_message: row.span.status_message,
  service_name: row.serviceName,
  attributes: row.span.attributes,
  events: row.span.events,
  links: row.span.links,
  resource: row.span.resource,
  scope: row.span.scope,
  convention: row.convention,
  role: row.role
})

export class SpansRepo extends Effect.Service<SpansRepo>()("svc/SpansRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    /**
     * Stores an export's spans (distinct trace and span ids) in one
     * transaction: one statement takes (or makes) each trace's row and its
     * lock, in trace id order, so exports of one trace take turns; one
     * statement inserts every span not stored before, up to `cap` per trace
     * counted across exports, and adds them to their traces' rows.
     */
    const store = (projectId: string, rows: ReadonlyArray<SpanRow>, cap: number) =>
      sql.withTransaction(
        Effect.gen(function* () {
          const traceIds = [...new Set(rows.map((row) => row.span.trace_id))].sort()
          yield* sql`
            INSERT INTO traces (project_id, trace_id, name, start_ns, end_ns)
            SELECT ${projectId}, t.id, '', 0, 0
            FROM jsonb_array_elements_text(${JSON.stringify(traceIds)}::jsonb) AS t(id) ORDER BY t.id
            ON CONFLICT (project_id, trace_id) DO UPDATE SET span_count = traces.span_count`
          const [outcome] = yield* sql<{ fresh: number; stored: string; earlier: string }>`
            WITH input AS (
              SELECT * FROM jsonb_to_recordset(${JSON.stringify(rows.map(toRecord))}::jsonb)
                AS s(ord integer, ${sql.literal(COLUMNS)})
            ), fresh AS (
              SELECT i.*, row_number() OVER (PARTITION BY i.trace_id ORDER BY i.ord) AS n FROM input i
              WHERE NOT EXISTS (
                SELECT 1 FROM spans s WHERE s.project_id = ${projectId} AND s.trace_id = i.trace_id AND s.span_id = i.span_id
              )
            ), inserted AS (
              INSERT INTO spans (project_id, trace_id, span_id, parent_span_id, trace_state, name, kind, start_ns, end_ns,
                status_code, status_message, service_name, attributes, events, links, resource, scope, convention, role)
              SELECT ${projectId}, f.trace_id, f.span_id, f.parent_span_id, f.trace_state, f.name, f.kind, f.start_ns,
                f.end_ns, f.status_code, f.status_message, f.service_name, f.attributes, f.events, f.links, f.resource,
                f.scope, f.convention, f.role
              FROM fresh f JOIN traces t ON t.project_id = ${projectId} AND t.trace_id = f.trace_id
              WHERE f.n <= ${cap} - t.span_count
              ON CONFLICT DO NOTHING
              RETURNING trace_id, span_id, parent_span_id, name, start_ns, end_ns, status_code, service_name
            ), counted AS (
              SELECT trace_id, count(*)::integer AS added,
                count(*) FILTER (WHERE status_code = 2)::integer AS errors,
                min(start_ns) AS first_start, max(end_ns) AS last_end,
                (array_agg(name ORDER BY start_ns) FILTER (WHERE parent_span_id IS NULL))[1] AS root_name,
                (array_agg(service_name ORDER BY start_ns) FILTER (WHERE parent_span_id IS NULL))[1] AS root_service,
                (array_agg(name ORDER BY start_ns))[1] AS first_name,
                (array_agg(service_name ORDER BY start_ns))[1] AS first_service
              FROM inserted GROUP BY trace_id
            ), updated AS (
              -- The name and service are the root span's once it has come, else the earliest span's.
              UPDATE traces t SET
                span_count = t.span_count + c.added,
                error_count = t.error_count + c.errors,
                start_ns = CASE WHEN t.span_count = 0 THEN c.first_start ELSE LEAST(t.start_ns, c.first_start) END,
                end_ns = CASE WHEN t.span_count = 0 THEN c.last_end ELSE GREATEST(t.end_ns, c.last_end) END,
                name = CASE
                  WHEN t.has_root THEN t.name
                  WHEN c.root_name IS NOT NULL THEN c.root_name
                  WHEN t.span_count = 0 OR c.first_start < t.start_ns THEN c.first_name
                  ELSE t.name END,
                service_name = CASE
                  WHEN t.has_root THEN t.service_name
                  WHEN c.root_name IS NOT NULL THEN c.root_service
                  WHEN t.span_count = 0 OR c.first_start < t.start_ns THEN c.first_service
                  ELSE t.service_name END,
                has_root = t.has_root OR c.root_name IS NOT NULL,
                stored_at = now()
              FROM counted c WHERE t.project_id = ${projectId} AND t.trace_id = c.trace_id
              RETURNING t.trace_id, t.span_count, c.added
            )
            SELECT (SELECT count(*) FROM fresh)::integer AS fresh,
              COALESCE((SELECT json_agg(json_build_object('trace_id', trace_id, 'span_id', span_id)) FROM inserted),
                '[]')::text AS stored,
              -- Traces that held spans before this export: only theirs can relate to its spans from elsewhere.
              COALESCE((SELECT json_agg(trace_id) FROM updated WHERE span_count > added), '[]')::text AS earlier`
          return {
            fresh: outcome?.fresh ?? 0,
            stored: JSON.parse(outcome?.stored ?? "[]") as StoreOutcome["stored"],
            earlier: JSON.parse(outcome?.earlier ?? "[]") as ReadonlyArray<string>
          } satisfies StoreOutcome
        })
      )

    /** The spans of these traces that play a part in a run (model calls, their steps, tool calls). */
    const runParts = (projectId: string, traceIds: ReadonlyArray<string>) =>
      sql<SpanRecord>`
        SELECT trace_id, span_id, parent_span_id, trace_state, name, kind, start_ns::text AS start_ns,
          end_ns::text AS end_ns, status_code, status_message, attributes, events, links, resource, scope, convention, role
        FROM spans
        WHERE project_id = ${projectId}
          AND trace_id IN (SELECT jsonb_array_elements_text(${JSON.stringify(traceIds)}::jsonb))
          AND role IS NOT NULL`.pipe(
        Effect.map((records) =>
          records.map(
            (record): StoredSpan => ({
              convention: record.convention,
              role: record.role,
              span: {
                trace_id: record.trace_id,
                span_id: record.span_id,
                parent_span_id: record.parent_span_id,
                trace_state: record.trace_state,
                name: record.name,
                kind: record.kind,
                start_time_unix_nano: record.start_ns,
                end_time_unix_nano: record.end_ns,
                attributes: record.attributes,
                events: record.events,
                links: record.links,
                status_code: record.status_code,
                status_message: record.status_message,
                resource: record.resource,
                scope: record.scope
              }
            })
          )
        )
      )

    return {
      store: fn("SpansRepo.store")(store, Effect.orDie),
      runParts: fn("SpansRepo.runParts")(runParts, Effect.orDie)
    } as const
  })
}) {}
