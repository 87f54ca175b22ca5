import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import type { SpanConvention, SpanRole } from "../../schema/Trace.js"
import { inTransaction } from "../platform/db/SqlErrors.js"
import { fn } from "../platform/telemetry/Traced.js"
import { type DerivedRunRow, type DerivedRunWritten, upsertDerivedSql } from "../runs/Runs.js"
import type { Attributes, SpanInput } from "./SpanModel.js"

/** A span as written: the input plus what the gateway read in it, and its resource row. */
export interface SpanRow {
  readonly span: SpanInput
  readonly serviceName: string | null
  readonly convention: SpanConvention | null
  readonly role: SpanRole | null
  /** The `span_resources` row (of this export) that holds the span's resource and scope. */
  readonly resourceId: string
  /** About what the span's row costs as JSON (its attributes, events and links), to size statements. */
  readonly bytes: number
  /** The span's attributes as JSON (measured against their bound, then written as they are). */
  readonly attributesJson: string
}

/** A distinct resource and scope of an export: written once, for the spans that name it. */
export interface ResourceRow {
  readonly id: string
  readonly resource: Attributes
  readonly scope: SpanInput["scope"]
}

/**
 * A statement inserts at most this many spans, or about this many bytes of
 * them: what one export costs in memory is then bounded by the statement, not
 * by the export's count of spans (a 4 MB export carries up to ~80,000).
 */
const CHUNK_SPANS = 2_000
const CHUNK_BYTES = 1024 * 1024

export interface StoreOutcome {
  /** Spans of the export not stored before (in this call or an earlier export). */
  readonly fresh: number
  /** Those stored now: `fresh - stored.length` were over a trace's span cap. */
  readonly stored: ReadonlyArray<{ readonly trace_id: string; readonly span_id: string }>
  /** Traces of the export that held spans before it. */
  readonly earlier: ReadonlyArray<string>
}

/** What the statement for traces new to the store did (storeNew). */
export interface NewTracesOutcome {
  /** The traces it made, with their spans and runs; the export's other traces held spans, or were being written. */
  readonly made: ReadonlyArray<string>
  /** Spans it stored, by trace: those of the traces made, up to the cap each. */
  readonly stored: Readonly<Record<string, number>>
  /** The runs it made now. */
  readonly created: ReadonlyArray<DerivedRunWritten>
}

/**
 * Whether spans of this count and size go in one statement of storeNew (an
 * export, or exports batched together; else `store`, in chunks).
 */
export const fitsTogether = (spans: number, bytes: number): boolean => spans <= CHUNK_SPANS && bytes <= CHUNK_BYTES

/** The spans' size as a statement carries them. */
export const bytesOf = (rows: ReadonlyArray<SpanRow>): number => {
  let bytes = 0
  for (const row of rows) bytes += row.bytes
  return bytes
}

/** A span read back with what the run mapping needs. */
export interface StoredSpan {
  readonly span: SpanInput
  readonly convention: SpanConvention | null
  readonly role: SpanRole | null
}

const COLUMNS = `trace_id text, span_id text, parent_span_id text, trace_state text, name text, kind smallint,
  start_ns bigint, end_ns bigint, status_code smallint, status_message text, service_name text, attributes jsonb,
  events jsonb, links jsonb, resource_id text, convention text, role text`

/** The columns of a span row both span inserts write, after project_id. */
const SPAN_COLUMNS = [
  "trace_id",
  "span_id",
  "parent_span_id",
  "trace_state",
  "name",
  "kind",
  "start_ns",
  "end_ns",
  "status_code",
  "status_message",
  "service_name",
  "attributes",
  "events",
  "links",
  "resource_id",
  "convention",
  "role"
] as const

/** Those columns read from the row source `alias`. */
const spanValues = (alias: "f" | "k") => SPAN_COLUMNS.map((column) => `${alias}.${column}`).join(", ")

/**
 * Each trace's figures among the spans of `source` (a CTE of span rows): how
 * many, how many errors, its first start and last end, and the names and
 * services of its root span (if among them) and of its earliest span.
 */
const traceFigures = (source: "inserted" | "kept") => `SELECT trace_id, count(*)::integer AS added,
            count(*) FILTER (WHERE status_code = 2)::integer AS errors,
            min(start_ns) AS first_start, max(end_ns) AS last_end,
            (array_agg(name ORDER BY start_ns) FILTER (WHERE parent_span_id IS NULL))[1] AS root_name,
            (array_agg(service_name ORDER BY start_ns) FILTER (WHERE parent_span_id IS NULL))[1] AS root_service,
            (array_agg(name ORDER BY start_ns))[1] AS first_name,
            (array_agg(service_name ORDER BY start_ns))[1] AS first_service
          FROM ${source} GROUP BY trace_id`

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
  events: row.span.events,
  links: row.span.links,
  resource_id: row.resourceId,
  convention: row.convention,
  role: row.role
})

/**
 * The rows as the JSON array jsonb_to_recordset reads, numbered from
 * `first`. Each span's attributes go in as the text SpanChecks measured them
 * by: serializing them again cost about as much as the rest of the row.
 */
const recordsJson = (rows: ReadonlyArray<SpanRow>, first = 0): string => {
  let out = "["
  for (let index = 0; index < rows.length; index++) {
    const row = rows[index] as SpanRow
    const record = JSON.stringify(toRecord(row, first + index))
    out += `${index === 0 ? "" : ","}${record.slice(0, -1)},"attributes":${row.attributesJson}}`
  }
  return `${out}]`
}

/** A span's resource and scope, read through its `span_resources` row (`r`, left-joined). */
export const RESOURCE_OF = `COALESCE(r.resource, '{}'::jsonb)`
export const SCOPE_OF = `COALESCE(r.scope, '{"name":"","version":"","attributes":{}}'::jsonb)`
/**
 * The `span_resources` row (`r`) of each span of `s`, looked up by its key
 * span by span: OFFSET 0 keeps the planner from flattening the subquery into
 * a join, which it planned as a scan of the project's whole table (a row or
 * more an export, so growing without end) hashed or materialized.
 */
export const RESOURCE_JOIN = `LEFT JOIN LATERAL (SELECT r.resource, r.scope FROM span_resources r
  WHERE r.project_id = s.project_id AND r.id = s.resource_id OFFSET 0) r ON true`

export class SpansRepo extends Effect.Service<SpansRepo>()("svc/SpansRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    /**
     * Stores an export's spans (distinct trace and span ids) and the
     * resources they name; the caller's transaction makes it one unit with
     * the runs made of them. One statement takes (or makes) each trace's row
     * and its lock, in trace id order, so exports of one trace take turns;
     * then statements of at most CHUNK_SPANS spans (or CHUNK_BYTES) insert
     * every span not stored before, up to `cap` per trace counted across
     * exports, add them to their traces' rows, and insert the resources
     * that an inserted span names (a re-sent export adds none).
     */
    const store = (
      projectId: string,
      rows: ReadonlyArray<SpanRow>,
      resources: ReadonlyArray<ResourceRow>,
      cap: number
    ) =>
      Effect.gen(function* () {
        const traceIds = [...new Set(rows.map((row) => row.span.trace_id))].sort()
        const held = yield* sql<{ trace_id: string; span_count: number }>`
          INSERT INTO traces (project_id, trace_id, name, start_ns, end_ns)
          SELECT ${projectId}, t.id, '', 0, 0
          FROM jsonb_array_elements_text(${JSON.stringify(traceIds)}::jsonb) AS t(id) ORDER BY t.id
          ON CONFLICT (project_id, trace_id) DO UPDATE SET span_count = traces.span_count
          RETURNING trace_id, span_count`
        const resourceById = new Map(resources.map((resource) => [resource.id, resource]))
        let fresh = 0
        const stored: Array<{ readonly trace_id: string; readonly span_id: string }> = []
        let start = 0
        while (start < rows.length) {
          let end = start
          let bytes = 0
          while (end < rows.length && end - start < CHUNK_SPANS && (end === start || bytes < CHUNK_BYTES)) {
            bytes += rows[end]?.bytes ?? 0
            end += 1
          }
          const chunkRows = rows.slice(start, end)
          const chunk = recordsJson(chunkRows, start)
          // The resources this chunk's spans name; a row a chunk before inserted is skipped (ON CONFLICT).
          const named = [...new Set(chunkRows.map((row) => row.resourceId))].flatMap((id) => {
            const resource = resourceById.get(id)
            return resource === undefined ? [] : [resource]
          })
          start = end
          const [outcome] = yield* insertChunk(projectId, chunk, JSON.stringify(named), cap)
          fresh += outcome?.fresh ?? 0
          stored.push(...(JSON.parse(outcome?.stored ?? "[]") as StoreOutcome["stored"]))
        }
        return {
          fresh,
          stored,
          // Traces that held spans before this export: only theirs can relate to its spans from elsewhere.
          earlier: held.filter((trace) => trace.span_count > 0).map((trace) => trace.trace_id)
        } satisfies StoreOutcome
      })

    /**
     * One chunk of `store`. Every lookup of the tables is by a primary key,
     * one row at a time: the span's own (was it stored before?), its trace's
     * row (its count so far) and the trace's row again to add the chunk's
     * figures (ON CONFLICT finds it by its key). The lookups are scalar
     * subqueries and an upsert, not joins: joined, the planner chose hash
     * joins over the project's whole `spans` and `traces` (20,000 tuples read
     * an export on a table of 20,000 spans, growing with it) wherever it
     * priced one scan below a hundred probes.
     */
    const insertChunk = (projectId: string, records: string, resources: string, cap: number) =>
      sql<{ fresh: number; stored: string }>`
        WITH input AS (
          SELECT * FROM jsonb_to_recordset(${records}::jsonb) AS s(ord integer, ${sql.literal(COLUMNS)})
        ), fresh AS (
          SELECT i.*, row_number() OVER (PARTITION BY i.trace_id ORDER BY i.ord) AS n FROM input i
          WHERE (SELECT 1 FROM spans s WHERE s.project_id = ${projectId} AND s.trace_id = i.trace_id AND s.span_id = i.span_id) IS NULL
        ), inserted AS (
          INSERT INTO spans (project_id, ${sql.literal(SPAN_COLUMNS.join(", "))})
          SELECT ${projectId}, ${sql.literal(spanValues("f"))}
          FROM fresh f
          WHERE f.n <= ${cap} - (SELECT t.span_count FROM traces t WHERE t.project_id = ${projectId} AND t.trace_id = f.trace_id)
          ON CONFLICT DO NOTHING
          RETURNING trace_id, span_id, parent_span_id, name, start_ns, end_ns, status_code, service_name, resource_id
        ), resources_in AS (
          INSERT INTO span_resources (project_id, id, resource, scope)
          SELECT ${projectId}, r.id, r.resource, r.scope
          FROM jsonb_to_recordset(${resources}::jsonb) AS r(id text, resource jsonb, scope jsonb)
          WHERE r.id IN (SELECT resource_id FROM inserted)
          ON CONFLICT DO NOTHING
        ), counted AS (
          ${sql.literal(traceFigures("inserted"))}
        ), updated AS (
          -- Every trace has its row (store's first statement made it), so this always updates it; the proposed row
          -- holds the chunk's figures, its name and service its root span's if among them, else its earliest span's.
          -- The trace's name and service are the root span's once it has come, else the earliest span's.
          INSERT INTO traces AS t (project_id, trace_id, name, has_root, service_name, start_ns, end_ns, span_count, error_count)
          SELECT ${projectId}, c.trace_id, COALESCE(c.root_name, c.first_name), c.root_name IS NOT NULL,
            CASE WHEN c.root_name IS NOT NULL THEN c.root_service ELSE c.first_service END,
            c.first_start, c.last_end, c.added, c.errors
          FROM counted c
          ON CONFLICT (project_id, trace_id) DO UPDATE SET
            span_count = t.span_count + excluded.span_count,
            error_count = t.error_count + excluded.error_count,
            start_ns = CASE WHEN t.span_count = 0 THEN excluded.start_ns ELSE LEAST(t.start_ns, excluded.start_ns) END,
            end_ns = CASE WHEN t.span_count = 0 THEN excluded.end_ns ELSE GREATEST(t.end_ns, excluded.end_ns) END,
            name = CASE
              WHEN t.has_root THEN t.name
              WHEN excluded.has_root OR t.span_count = 0 OR excluded.start_ns < t.start_ns THEN excluded.name
              ELSE t.name END,
            service_name = CASE
              WHEN t.has_root THEN t.service_name
              WHEN excluded.has_root OR t.span_count = 0 OR excluded.start_ns < t.start_ns THEN excluded.service_name
              ELSE t.service_name END,
            has_root = t.has_root OR excluded.has_root,
            stored_at = now()
        )
        SELECT (SELECT count(*) FROM fresh)::integer AS fresh,
          COALESCE((SELECT json_agg(json_build_object('trace_id', trace_id, 'span_id', span_id)) FROM inserted),
            '[]')::text AS stored`

    /**
     * The export's traces that the store holds no row of, in one statement
     * (no transaction: a statement is one unit): each trace's row as its
     * first `cap` spans make it, those spans, the resources they name, and
     * the runs of `runs` whose span is among them. A trace that has a row,
     * or whose row another export is making (the insert waits for that one,
     * then yields), is left out: `store`, under the trace's lock, takes its
     * spans. The rows a trace is made of are known
     * before it is written (no span of it is stored), so its row is
     * inserted once, as it ends up, not made and then updated.
     */
    const storeNew = (
      projectId: string,
      rows: ReadonlyArray<SpanRow>,
      resources: ReadonlyArray<ResourceRow>,
      runs: ReadonlyArray<DerivedRunRow>,
      cap: number
    ) =>
      Effect.map(
        sql<{ made: string; stored: string; created: string }>`
        WITH input AS (
          SELECT s.*, row_number() OVER (PARTITION BY s.trace_id ORDER BY s.ord) AS n
          FROM jsonb_to_recordset(${recordsJson(rows)}::jsonb) AS s(ord integer, ${sql.literal(COLUMNS)})
        ), kept AS (
          SELECT * FROM input WHERE n <= ${cap}
        ), counted AS (
          ${sql.literal(traceFigures("kept"))}
        ), made AS (
          -- The name and service are the root span's when it is among them, else the earliest span's.
          INSERT INTO traces (project_id, trace_id, name, has_root, service_name, start_ns, end_ns, span_count, error_count)
          SELECT ${projectId}, c.trace_id, COALESCE(c.root_name, c.first_name), c.root_name IS NOT NULL,
            CASE WHEN c.root_name IS NOT NULL THEN c.root_service ELSE c.first_service END,
            c.first_start, c.last_end, c.added, c.errors
          FROM counted c ORDER BY c.trace_id
          -- A trace with a row (stored before, or being made by another export, whose end this waits for) is left out.
          ON CONFLICT DO NOTHING
          RETURNING trace_id
        ), inserted AS (
          INSERT INTO spans (project_id, ${sql.literal(SPAN_COLUMNS.join(", "))})
          SELECT ${projectId}, ${sql.literal(spanValues("k"))}
          FROM kept k WHERE k.trace_id IN (SELECT trace_id FROM made)
          ON CONFLICT DO NOTHING
          RETURNING trace_id, span_id, resource_id
        ), resources_in AS (
          INSERT INTO span_resources (project_id, id, resource, scope)
          SELECT ${projectId}, r.id, r.resource, r.scope
          FROM jsonb_to_recordset(${JSON.stringify(resources)}::jsonb) AS r(id text, resource jsonb, scope jsonb)
          WHERE r.id IN (SELECT resource_id FROM inserted)
          ON CONFLICT DO NOTHING
        ), runs_in AS (
          ${upsertDerivedSql(sql, projectId, JSON.stringify(runs), "inserted")}
        )
        SELECT COALESCE((SELECT json_agg(trace_id) FROM made), '[]')::text AS made,
          COALESCE((SELECT json_object_agg(trace_id, n)
            FROM (SELECT trace_id, count(*) AS n FROM inserted GROUP BY trace_id) AS c), '{}')::text AS stored,
          COALESCE((SELECT json_agg(json_build_object('id', id, 'trace_id', trace_id, 'span_id', span_id, 'created', true))
            FROM runs_in WHERE created), '[]')::text AS created`,
        ([outcome]): NewTracesOutcome => ({
          made: JSON.parse(outcome?.made ?? "[]") as NewTracesOutcome["made"],
          stored: JSON.parse(outcome?.stored ?? "{}") as NewTracesOutcome["stored"],
          created: JSON.parse(outcome?.created ?? "[]") as NewTracesOutcome["created"]
        })
      )

    /** The spans of these traces that play a part in a run (model calls, their steps, tool calls). */
    const runParts = (projectId: string, traceIds: ReadonlyArray<string>) =>
      sql<SpanRecord>`
        SELECT s.trace_id, s.span_id, s.parent_span_id, s.trace_state, s.name, s.kind, s.start_ns::text AS start_ns,
          s.end_ns::text AS end_ns, s.status_code, s.status_message, s.attributes, s.events, s.links,
          ${sql.literal(RESOURCE_OF)} AS resource, ${sql.literal(SCOPE_OF)} AS scope, s.convention, s.role
        FROM jsonb_array_elements_text(${JSON.stringify(traceIds)}::jsonb) AS t(id)
          -- Each trace's spans by the primary key's prefix (not flattened into a join, which may scan the table).
          CROSS JOIN LATERAL (SELECT * FROM spans s WHERE s.project_id = ${projectId} AND s.trace_id = t.id
            AND s.role IS NOT NULL OFFSET 0) s
          ${sql.literal(RESOURCE_JOIN)}`.pipe(
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
      storeNew: fn("SpansRepo.storeNew")(storeNew, Effect.orDie),
      /** Runs `effect` in one transaction (an export's spans and the runs made of them); the store's failures are defects. */
      transaction: inTransaction(sql),
      runParts: fn("SpansRepo.runParts")(runParts, Effect.orDie)
    } as const
  })
}) {}
