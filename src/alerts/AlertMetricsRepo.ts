import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import type { AlertFilters } from "../../schema/Alerts.js"
import { idFloor } from "../platform/Ids.js"
import { fn } from "../platform/telemetry/Traced.js"

/**
 * Ids are made by the gateway and the timestamps by the database: a row's id
 * may be a little older than its created_at when their clocks differ. The
 * id bound (for the primary key's index) is this much wider than the window;
 * the window itself is on created_at.
 */
const ID_SLACK_MS = 10 * 60_000

/** What one measurement is over: a project, a window [start, end), the filters of run metrics. */
export interface Window {
  readonly projectId: string
  readonly start: Date
  readonly end: Date
  readonly filters: AlertFilters
}

/** The run figures of a window, all at once (one scan). */
export interface RunFigures {
  readonly runs: number
  readonly run_errors: number
  readonly input_tokens: number
  readonly output_tokens: number
  /** null: no run in the window had a duration. */
  readonly p95_duration_ms: number | null
}

/**
 * The figures alert rules measure, from the rows themselves (the usage
 * rollups are by day, too coarse for a 5-minute window). Users whose id
 * starts with one of the project's test user prefixes are left out, as in
 * usage (docs/decisions.md "Project read API and usage").
 */
export class AlertMetricsRepo extends Effect.Service<AlertMetricsRepo>()("svc/AlertMetricsRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const prefixes = (projectId: string) =>
      sql`prefixes AS MATERIALIZED (SELECT unnest(test_user_prefixes) AS prefix FROM projects WHERE id = ${projectId})`
    const notTestUser = (column: string) =>
      sql`NOT EXISTS (SELECT 1 FROM prefixes WHERE starts_with(${sql.literal(column)}, prefix))`

    const runs = (window: Window) => {
      const conditions = [
        sql`r.project_id = ${window.projectId}`,
        sql`r.created_at >= ${window.start}`,
        sql`r.created_at < ${window.end}`,
        notTestUser("r.user_id")
      ]
      if (window.filters.model_id !== undefined) conditions.push(sql`r.model_id = ${window.filters.model_id}`)
      if (window.filters.tag !== undefined) conditions.push(sql`${window.filters.tag} = ANY (r.tags)`)
      if (window.filters.environment !== undefined) {
        conditions.push(sql`r.environment = ${window.filters.environment}`)
      }
      return sql<{
        runs: number
        run_errors: number
        input_tokens: number
        output_tokens: number
        p95_duration_ms: number | null
      }>`WITH ${prefixes(window.projectId)}
        SELECT count(*)::float8 AS runs, (count(*) FILTER (WHERE r.status = 'error'))::float8 AS run_errors,
          coalesce(sum(r.input_tokens), 0)::float8 AS input_tokens,
          coalesce(sum(r.output_tokens), 0)::float8 AS output_tokens,
          (percentile_cont(0.95) WITHIN GROUP (ORDER BY r.duration_ms::float8))::float8 AS p95_duration_ms
        FROM runs r WHERE ${sql.and(conditions)}`.pipe(
        Effect.map(
          ([row]): RunFigures => ({
            runs: Number(row?.runs ?? 0),
            run_errors: Number(row?.run_errors ?? 0),
            input_tokens: Number(row?.input_tokens ?? 0),
            output_tokens: Number(row?.output_tokens ?? 0),
            p95_duration_ms:
              row?.p95_duration_ms === null || row?.p95_duration_ms === undefined ? null : Number(row.p95_duration_ms)
          })
        )
      )
    }

    const value = Effect.map(([row]: ReadonlyArray<{ readonly value: number }>) => Number(row?.value ?? 0))

    /** Feedback that is negative and was given (or turned negative) in the window. */
    const negativeFeedback = (window: Window) =>
      sql<{ value: number }>`WITH ${prefixes(window.projectId)}
        SELECT count(*)::float8 AS value FROM message_feedback f
        WHERE f.project_id = ${window.projectId} AND f.type = 'negative'
          AND f.updated_at >= ${window.start} AND f.updated_at < ${window.end} AND ${notTestUser("f.user_id")}`.pipe(
        value
      )

    /** Engagement events of one kind (rows, not their `value`). */
    const events = (window: Window, kind: string) =>
      sql<{ value: number }>`WITH ${prefixes(window.projectId)}
        SELECT count(*)::float8 AS value FROM events e
        WHERE e.project_id = ${window.projectId} AND e.id >= ${idFloor("evt", window.start.getTime() - ID_SLACK_MS)}
          AND e.kind = ${kind} AND e.created_at >= ${window.start} AND e.created_at < ${window.end}
          AND ${notTestUser("e.user_id")}`.pipe(value)

    /** Distinct users (not "", not test users) with a message, a run or an event in the window. */
    const activeUsers = (window: Window) => {
      const from = window.start.getTime() - ID_SLACK_MS
      return sql<{ value: number }>`WITH ${prefixes(window.projectId)}
        SELECT count(DISTINCT u.user_id)::float8 AS value FROM (
          SELECT user_id FROM messages
          WHERE project_id = ${window.projectId} AND id >= ${idFloor("msg", from)}
            AND created_at >= ${window.start} AND created_at < ${window.end}
          UNION ALL
          SELECT user_id FROM runs
          WHERE project_id = ${window.projectId} AND created_at >= ${window.start} AND created_at < ${window.end}
          UNION ALL
          SELECT user_id FROM events
          WHERE project_id = ${window.projectId} AND id >= ${idFloor("evt", from)}
            AND created_at >= ${window.start} AND created_at < ${window.end}
        ) u
        WHERE u.user_id <> '' AND ${notTestUser("u.user_id")}`.pipe(value)
    }

    return {
      runs: fn("AlertMetricsRepo.runs")(runs, Effect.orDie),
      negativeFeedback: fn("AlertMetricsRepo.negativeFeedback")(negativeFeedback, Effect.orDie),
      events: fn("AlertMetricsRepo.events")(events, Effect.orDie),
      activeUsers: fn("AlertMetricsRepo.activeUsers")(activeUsers, Effect.orDie)
    } as const
  })
}) {}
