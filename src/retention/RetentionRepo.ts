import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { inTransaction } from "../platform/db/SqlErrors.js"
import { type AgedTable, USER_DATA } from "../platform/db/UserData.js"
import { fn } from "../platform/telemetry/Traced.js"

export interface RetentionRow {
  readonly days: number | null
  readonly prior_days: number | null
  readonly effective_at: Date | null
}

/** The kinds a batch of threads counts: the threads and the rows in them. */
export const THREAD_KINDS = ["threads", "messages", "feedback", "runs", "scores", "events"] as const

/** What a batch of threads took with it. */
export interface ThreadBatch {
  readonly threads: number
  readonly messages: number
  readonly feedback: number
  readonly runs: number
  readonly scores: number
  readonly events: number
  /** Message contents that name an attachment of the project (for its blobs). */
  readonly contents: ReadonlyArray<string>
}

/**
 * The retention setting (projects) and the deletions of the retention job,
 * each batch in one short transaction: rows are picked with FOR UPDATE SKIP
 * LOCKED, so two gateways running the job at once never pick the same row
 * and a writer waits at most one batch.
 */
export class RetentionRepo extends Effect.Service<RetentionRepo>()("svc/RetentionRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const count = (rows: ReadonlyArray<{ n: number }>) => rows[0]?.n ?? 0

    return {
      /** The setting, for update inside `transaction` (none: no such project). */
      get: fn("RetentionRepo.get")(
        (projectId: string) =>
          sql<RetentionRow>`SELECT retention_days AS days, retention_prior_days AS prior_days,
              retention_effective_at AS effective_at
            FROM projects WHERE id = ${projectId} FOR UPDATE`.pipe(Effect.map((rows) => Option.fromNullable(rows[0]))),
        Effect.orDie
      ),
      set: fn("RetentionRepo.set")(
        (projectId: string, row: RetentionRow) =>
          sql`UPDATE projects SET retention_days = ${row.days}, retention_prior_days = ${row.prior_days},
              retention_effective_at = ${row.effective_at}
            WHERE id = ${projectId}`.pipe(Effect.asVoid),
        Effect.orDie
      ),
      /** Runs `effect` in a transaction; its own failures (a project not found) stay, the store's are defects. */
      transaction: inTransaction(sql),
      /** Projects with a retention in effect at `now`, and its days. */
      inEffect: fn("RetentionRepo.inEffect")(
        (now: Date) =>
          sql<{ id: string; days: number }>`SELECT id, days FROM (
              SELECT id, CASE WHEN retention_effective_at IS NULL OR retention_effective_at <= ${now}
                THEN retention_days ELSE retention_prior_days END AS days
              FROM projects) p
            WHERE days IS NOT NULL ORDER BY id`,
        Effect.orDie
      ),
      /**
       * Deletes at most `limit` threads of the project whose last message is
       * before `cutoff`, with (by cascade) their messages, feedback, runs,
       * scores and events; counted before they go.
       */
      deleteThreads: fn("RetentionRepo.deleteThreads")(
        (projectId: string, cutoff: Date, limit: number, onContents: (batch: ThreadBatch) => Effect.Effect<void>) =>
          sql
            .withTransaction(
              Effect.gen(function* () {
                const picked = yield* sql<{ id: string }>`SELECT id FROM threads
                  WHERE project_id = ${projectId} AND last_message_at < ${cutoff}
                  ORDER BY last_message_at LIMIT ${limit} FOR UPDATE SKIP LOCKED`
                const empty: ThreadBatch = {
                  threads: 0,
                  messages: 0,
                  feedback: 0,
                  runs: 0,
                  scores: 0,
                  events: 0,
                  contents: []
                }
                if (picked.length === 0) return empty
                const ids = sql.in(picked.map((row) => row.id))
                const n = <Row extends { n: number }>(statement: Effect.Effect<ReadonlyArray<Row>, unknown>) =>
                  Effect.map(statement, count)
                const messages = yield* n(
                  sql<{ n: number }>`SELECT count(*)::int AS n FROM messages
                    WHERE project_id = ${projectId} AND thread_id IN ${ids}`
                )
                const feedback = yield* n(
                  sql<{ n: number }>`SELECT count(*)::int AS n FROM message_feedback
                    WHERE project_id = ${projectId} AND thread_id IN ${ids}`
                )
                const runs = yield* n(
                  sql<{ n: number }>`SELECT count(*)::int AS n FROM runs
                    WHERE project_id = ${projectId} AND thread_id IN ${ids}`
                )
                const scores = yield* n(
                  sql<{ n: number }>`SELECT count(*)::int AS n FROM scores s WHERE s.project_id = ${projectId} AND (
                    s.thread_id IN ${ids}
                    OR s.message_id IN (SELECT id FROM messages WHERE project_id = ${projectId} AND thread_id IN ${ids})
                    OR s.run_id IN (SELECT id FROM runs WHERE project_id = ${projectId} AND thread_id IN ${ids}))`
                )
                const events = yield* n(
                  sql<{ n: number }>`SELECT count(*)::int AS n FROM events
                    WHERE project_id = ${projectId} AND thread_id IN ${ids}`
                )
                const contents = yield* sql<{ text: string }>`SELECT content::text AS text FROM messages
                  WHERE project_id = ${projectId} AND thread_id IN ${ids} AND content::text LIKE ${`%${projectId}/%`}`
                const deleted = yield* sql<{ id: string }>`DELETE FROM threads
                  WHERE project_id = ${projectId} AND id IN ${ids} RETURNING id`
                const batch: ThreadBatch = {
                  threads: deleted.length,
                  messages,
                  feedback,
                  runs,
                  scores,
                  events,
                  contents: contents.map((row) => row.text)
                }
                // In the same transaction: what must follow the deletion (the blobs) is queued with it.
                yield* onContents(batch)
                return batch
              })
            )
            .pipe(Effect.orDie)
      ),
      /** Deletes at most `limit` rows of `table` without a thread older than `cutoff`. */
      deleteAged: fn("RetentionRepo.deleteAged")((table: AgedTable, projectId: string, cutoff: Date, limit: number) => {
        const aging = USER_DATA[table].retention
        const column = sql(aging.column)
        const only = !("only" in aging)
          ? sql``
          : aging.only === "threadless"
            ? sql`AND thread_id IS NULL`
            : sql`AND status <> 'pending'`
        return sql<{ n: number }>`WITH doomed AS (
              SELECT ctid FROM ${sql(table)}
              WHERE project_id = ${projectId} AND ${column} < ${cutoff} ${only}
              LIMIT ${limit} FOR UPDATE SKIP LOCKED),
            gone AS (DELETE FROM ${sql(table)} WHERE ctid IN (SELECT ctid FROM doomed) RETURNING 1)
            SELECT count(*)::int AS n FROM gone`.pipe(Effect.map(count))
      }, Effect.orDie)
    } as const
  })
}) {}
