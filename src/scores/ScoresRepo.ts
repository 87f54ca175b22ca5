import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { Score, type ScoreSource as ScoreSourceSchema } from "../../schema/Score.js"
import { RowNotFound } from "../platform/db/RowNotFound.js"
import { isReferenceGone } from "../platform/db/SqlErrors.js"
import type { TenantScope } from "../platform/db/TenantScope.js"
import { fn } from "../platform/telemetry/Traced.js"

export interface NewScore {
  readonly id: string
  readonly userId: string
  readonly name: string
  readonly dataType: string
  readonly value: number | null
  readonly stringValue: string | null
  readonly comment: string | null
  readonly threadId: string | null
  readonly messageId: string | null
  readonly runId: string | null
}

/**
 * Which of the given targets exist in the caller's workspace, and the thread each belongs to. A message
 * or run is in the workspace its thread is in now (a claim moves threads, not the rows that hang off them).
 */
export interface TargetThreads {
  readonly thread: string | null
  readonly message_thread: string | null
  readonly run_thread: string | null
}

export interface ScoreFilters {
  readonly limit: number
  readonly after: string | undefined
  readonly name: string | undefined
  readonly threadId: string | undefined
  readonly messageId: string | undefined
  readonly runId: string | undefined
  readonly dataType: string | undefined
  readonly source: ScoreSource | undefined
}

const COLUMNS =
  "id, name, data_type, value, string_value, comment, thread_id, message_id, run_id, workspace_id, user_id, created_at"

type ScoreRow = ConstructorParameters<typeof Score>[0]

/** Where a score came from: an evaluator when an evaluation names it, else the API. */
export type ScoreSource = typeof ScoreSourceSchema.Type

/**
 * The condition that the score `s` came from `source`: an evaluator's score is the one an
 * `evaluations` row names by score_id.
 */
export const sourceCondition = (sql: SqlClient.SqlClient, source: ScoreSource) => {
  const byEvaluator = sql`EXISTS (SELECT 1 FROM evaluations e WHERE e.project_id = s.project_id AND e.score_id = s.id)`
  return source === "evaluator" ? byEvaluator : sql`NOT ${byEvaluator}`
}

export class ScoresRepo extends Effect.Service<ScoresRepo>()("svc/ScoresRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const cols = sql.literal(COLUMNS)

    const targets = (scope: TenantScope, given: { threadId?: string; messageId?: string; runId?: string }) =>
      sql<TargetThreads>`SELECT
          (SELECT id FROM threads
            WHERE project_id = ${scope.projectId} AND workspace_id = ${scope.workspaceId}
              AND id = ${given.threadId ?? null}) AS thread,
          (SELECT m.thread_id FROM messages m
            JOIN threads t ON t.project_id = m.project_id AND t.id = m.thread_id
            WHERE m.project_id = ${scope.projectId} AND m.id = ${given.messageId ?? null}
              AND t.workspace_id = ${scope.workspaceId}) AS message_thread,
          (SELECT r.thread_id FROM runs r
            JOIN threads t ON t.project_id = r.project_id AND t.id = r.thread_id
            WHERE r.project_id = ${scope.projectId} AND r.id = ${given.runId ?? null}
              AND t.workspace_id = ${scope.workspaceId}) AS run_thread`.pipe(
        Effect.map((rows) => rows[0] ?? { thread: null, message_thread: null, run_thread: null })
      )

    /** RowNotFound when a target went away between the check and the insert. */
    const insert = (scope: TenantScope, score: NewScore) =>
      sql`INSERT INTO scores (project_id, id, workspace_id, user_id, name, data_type, value, string_value, comment,
          thread_id, message_id, run_id)
        VALUES (${scope.projectId}, ${score.id}, ${scope.workspaceId}, ${score.userId}, ${score.name},
          ${score.dataType}, ${score.value}, ${score.stringValue}, ${score.comment}, ${score.threadId},
          ${score.messageId}, ${score.runId})`.pipe(
        Effect.asVoid,
        Effect.catchIf(isReferenceGone, () => Effect.fail(new RowNotFound({ what: "target" })))
      )

    /** A project's scores, newest first. */
    const list = (projectId: string, filters: ScoreFilters) => {
      const conditions = [sql`s.project_id = ${projectId}`]
      if (filters.after !== undefined) conditions.push(sql`s.id < ${filters.after}`)
      if (filters.name !== undefined) conditions.push(sql`s.name = ${filters.name}`)
      if (filters.threadId !== undefined) conditions.push(sql`s.thread_id = ${filters.threadId}`)
      if (filters.messageId !== undefined) conditions.push(sql`s.message_id = ${filters.messageId}`)
      if (filters.runId !== undefined) conditions.push(sql`s.run_id = ${filters.runId}`)
      if (filters.dataType !== undefined) conditions.push(sql`s.data_type = ${filters.dataType}`)
      if (filters.source !== undefined) conditions.push(sourceCondition(sql, filters.source))
      return sql<ScoreRow>`SELECT ${cols} FROM scores s WHERE ${sql.and(conditions)}
        ORDER BY s.id DESC LIMIT ${filters.limit}`.pipe(
        Effect.map((rows) => rows.map((row) => Score.make(row, { disableValidation: true })))
      )
    }

    /** Whether the score `id` is stored: for a create cut off from the store (Scores.create). */
    const stored = (projectId: string, id: string) =>
      sql<{ id: string }>`SELECT id FROM scores WHERE project_id = ${projectId} AND id = ${id}`.pipe(
        Effect.map((rows): Option.Option<void> => (rows.length > 0 ? Option.some(undefined) : Option.none()))
      )

    return {
      targets: fn("ScoresRepo.targets")(targets, Effect.orDie),
      stored: fn("ScoresRepo.stored")(stored, Effect.orDie),
      insert: fn("ScoresRepo.insert")(insert, Effect.catchTag("SqlError", Effect.die)),
      list: fn("ScoresRepo.list")(list, Effect.orDie)
    } as const
  })
}) {}
