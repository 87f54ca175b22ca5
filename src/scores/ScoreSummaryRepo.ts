/**
 * Score distributions per name, made by the database in three statements at
 * most: the names with their counts (numbers' min and max, booleans' true
 * and false counts), then the categorical names' most frequent values, then
 * how many of each numeric name's values fall in each bucket of given
 * bounds.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import { fn } from "../platform/telemetry/Traced.js"
import { type ScoreSource, sourceCondition } from "./ScoresRepo.js"

export interface SummaryFilters {
  readonly name: string | undefined
  readonly dataType: string | undefined
  readonly source: ScoreSource | undefined
  readonly threadId: string | undefined
  readonly messageId: string | undefined
  readonly runId: string | undefined
}

/** One name and data type: how many scores, their least and largest value, how many are true (1) and false (0). */
export interface NameRow {
  readonly name: string
  readonly data_type: "numeric" | "categorical" | "boolean"
  readonly count: number
  readonly min: number | null
  readonly max: number | null
  readonly true_count: number
  readonly false_count: number
}

export interface CategoryRow {
  readonly name: string
  readonly value: string
  readonly count: number
}

/** How many of a numeric name's values fall in one (non-empty) bucket, 0-based. */
export interface BucketRow {
  readonly name: string
  readonly bucket: number
  readonly count: number
}

/** A numeric name and the inner bounds of its buckets, ascending: bucket i holds thresholds[i-1] <= v < thresholds[i]. */
export interface Thresholds {
  readonly name: string
  readonly thresholds: ReadonlyArray<number>
}

export class ScoreSummaryRepo extends Effect.Service<ScoreSummaryRepo>()("svc/ScoreSummaryRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    /** The scores the filters select, as the WHERE clause over `scores s`. */
    const where = (projectId: string, filters: SummaryFilters) => {
      const conditions = [sql`s.project_id = ${projectId}`]
      if (filters.name !== undefined) conditions.push(sql`s.name = ${filters.name}`)
      if (filters.dataType !== undefined) conditions.push(sql`s.data_type = ${filters.dataType}`)
      if (filters.source !== undefined) conditions.push(sourceCondition(sql, filters.source))
      if (filters.threadId !== undefined) conditions.push(sql`s.thread_id = ${filters.threadId}`)
      if (filters.messageId !== undefined) conditions.push(sql`s.message_id = ${filters.messageId}`)
      if (filters.runId !== undefined) conditions.push(sql`s.run_id = ${filters.runId}`)
      return sql.and(conditions)
    }

    /** The `max` most scored names (and data types), most scored first. */
    const names = (projectId: string, filters: SummaryFilters, max: number) =>
      sql<NameRow>`SELECT s.name, s.data_type, count(*)::int AS count,
          min(s.value) AS min, max(s.value) AS max,
          count(CASE WHEN s.data_type = 'boolean' AND s.value = 1 THEN 1 END)::int AS true_count,
          count(CASE WHEN s.data_type = 'boolean' AND s.value = 0 THEN 1 END)::int AS false_count
        FROM scores s WHERE ${where(projectId, filters)}
        GROUP BY s.name, s.data_type
        ORDER BY count DESC, s.name, s.data_type
        LIMIT ${max}`

    /** The `perName` most frequent values of each of these categorical names, most frequent first. */
    const categories = (projectId: string, filters: SummaryFilters, of: ReadonlyArray<string>, perName: number) =>
      sql<CategoryRow>`SELECT name, value, count FROM (
          SELECT s.name, s.string_value AS value, count(*)::int AS count,
            row_number() OVER (PARTITION BY s.name ORDER BY count(*) DESC, s.string_value) AS rank
          FROM scores s
          WHERE ${where(projectId, filters)} AND s.data_type = 'categorical' AND s.string_value IS NOT NULL
            AND s.name IN ${sql.in(of)}
          GROUP BY s.name, s.string_value
        ) ranked
        WHERE rank <= ${perName}
        ORDER BY name, rank`

    /**
     * The non-empty buckets of each of these numeric names. width_bucket with an array counts the
     * thresholds at or below the value: comparisons only, so no bounds (however far apart, however
     * small their difference) overflow or underflow a double. Each name's array is cast once (the
     * CTE); the thresholds travel as PostgreSQL array text inside one JSON parameter.
     */
    const histograms = (projectId: string, filters: SummaryFilters, of: ReadonlyArray<Thresholds>) =>
      sql<BucketRow>`WITH bounds AS (
          SELECT b.name, b.thresholds::float8[] AS thresholds
          FROM jsonb_to_recordset(${JSON.stringify(
            of.map((name) => ({ name: name.name, thresholds: `{${name.thresholds.map(String).join(",")}}` }))
          )}::jsonb) AS b(name text, thresholds text)
        )
        SELECT s.name, width_bucket(s.value, b.thresholds) AS bucket, count(*)::int AS count
        FROM scores s JOIN bounds b ON b.name = s.name
        WHERE ${where(projectId, filters)} AND s.data_type = 'numeric' AND s.value IS NOT NULL
        GROUP BY s.name, bucket
        ORDER BY s.name, bucket`

    return {
      names: fn("ScoreSummaryRepo.names")(names, Effect.orDie),
      categories: fn("ScoreSummaryRepo.categories")(categories, Effect.orDie),
      histograms: fn("ScoreSummaryRepo.histograms")(histograms, Effect.orDie)
    } as const
  })
}) {}
