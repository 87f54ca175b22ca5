import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import type { ErasureCounts } from "../../schema/Erasure.js"
import { fn } from "../Traced.js"

/** A row whose content may name attachments: its id and its JSON as text. */
export interface ContentRow {
  readonly id: string
  readonly content: string
}

export interface RunRef {
  readonly id: string
  readonly trace_id: string | null
}

export interface ErasureRow {
  readonly id: string
  readonly user_sha256: string
  readonly requested_by: string
  readonly started_at: Date
  readonly finished_at: Date
  readonly counts: unknown
}

/**
 * The statements of an erasure (src/Erasure.ts), each bounded: a select of
 * at most `limit` rows by an index that leads with (project_id, ...), and
 * deletes by primary key of the rows selected. The use case loops over them,
 * one short transaction per batch, so no lock is held for long.
 */
export class ErasureRepo extends Effect.Service<ErasureRepo>()("svc/ErasureRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const counted = (statement: Effect.Effect<ReadonlyArray<{ readonly n: number }>, unknown>) =>
      Effect.map(statement, ([row]) => Number(row?.n ?? 0))

    /** Deletes the project's rows of `table` whose `column` is one of `values`; the count deleted. */
    const deleteWhereIn = (
      table: "message_feedback" | "scores" | "messages" | "runs" | "threads" | "spans" | "traces",
      column: "id" | "message_id" | "run_id" | "trace_id",
      projectId: string,
      values: ReadonlyArray<string>
    ) =>
      counted(sql`WITH gone AS (
          DELETE FROM ${sql(table)} WHERE project_id = ${projectId} AND ${sql(column)} IN ${sql.in(values)} RETURNING 1
        ) SELECT count(*)::int AS n FROM gone`)

    /** The user's threads (any workspace of the project), with their metadata, `limit` at a time. */
    const threadsOf = (projectId: string, userId: string, limit: number) =>
      sql<ContentRow>`SELECT id, metadata::text AS content FROM threads
        WHERE project_id = ${projectId} AND user_id = ${userId} LIMIT ${limit}`

    /** Messages of these threads, `limit` at a time (in no order: what is selected is deleted). */
    const messagesOfThreads = (projectId: string, threadIds: ReadonlyArray<string>, limit: number) =>
      sql<ContentRow>`SELECT id, content::text AS content FROM messages
        WHERE project_id = ${projectId} AND thread_id IN ${sql.in(threadIds)}
        LIMIT ${limit}`

    /**
     * The user's messages in threads of other users, each with its
     * descendants (a branch cannot stand without its root), `limit` roots at a time.
     */
    const messagesOfUserElsewhere = (projectId: string, userId: string, limit: number) =>
      sql<ContentRow>`
        WITH RECURSIVE roots AS (
          SELECT id, thread_id FROM messages
          WHERE project_id = ${projectId} AND user_id = ${userId}
          LIMIT ${limit}
        ), doomed AS (
          SELECT id, thread_id FROM roots
          UNION
          SELECT m.id, m.thread_id FROM messages m JOIN doomed d
            ON m.project_id = ${projectId} AND m.thread_id = d.thread_id AND m.parent_id = d.id
        )
        SELECT m.id, m.content::text AS content FROM messages m JOIN doomed d
          ON m.project_id = ${projectId} AND m.id = d.id`

    /** Deletes messages by id with their feedback and the scores on them; the counts of each. */
    const deleteMessages = (projectId: string, ids: ReadonlyArray<string>) =>
      Effect.gen(function* () {
        const feedback = yield* deleteWhereIn("message_feedback", "message_id", projectId, ids)
        const scores = yield* deleteWhereIn("scores", "message_id", projectId, ids)
        const messages = yield* deleteWhereIn("messages", "id", projectId, ids)
        return { feedback, scores, messages }
      }).pipe(sql.withTransaction)

    /** Runs of these threads, or of the user (outside them), `limit` at a time. */
    const runsOfThreads = (projectId: string, threadIds: ReadonlyArray<string>, limit: number) =>
      sql<RunRef>`SELECT id, trace_id FROM runs
        WHERE project_id = ${projectId} AND thread_id IN ${sql.in(threadIds)} LIMIT ${limit}`
    const runsOfUser = (projectId: string, userId: string, limit: number) =>
      sql<RunRef>`SELECT id, trace_id FROM runs
        WHERE project_id = ${projectId} AND user_id = ${userId} LIMIT ${limit}`

    /** Deletes runs by id with the scores on them. */
    const deleteRuns = (projectId: string, ids: ReadonlyArray<string>) =>
      Effect.gen(function* () {
        const scores = yield* deleteWhereIn("scores", "run_id", projectId, ids)
        const runs = yield* deleteWhereIn("runs", "id", projectId, ids)
        return { scores, runs }
      }).pipe(sql.withTransaction)

    /** One batch of a table's rows in these threads; the count deleted. */
    const deleteInThreads = (
      table: "scores" | "events" | "webhook_deliveries",
      projectId: string,
      threadIds: ReadonlyArray<string>,
      limit: number
    ) =>
      counted(sql`WITH doomed AS (
          SELECT id FROM ${sql(table)} WHERE project_id = ${projectId} AND thread_id IN ${sql.in(threadIds)} LIMIT ${limit}
        ), gone AS (
          DELETE FROM ${sql(table)} WHERE project_id = ${projectId} AND id IN (SELECT id FROM doomed) RETURNING 1
        ) SELECT count(*)::int AS n FROM gone`)

    /** One batch of a table's rows of the user; the count deleted. */
    const deleteOfUser = (
      table: "scores" | "events" | "message_feedback" | "refresh_tokens" | "webhook_deliveries",
      projectId: string,
      userId: string,
      limit: number
    ) =>
      counted(sql`WITH doomed AS (
          SELECT id FROM ${sql(table)} WHERE project_id = ${projectId} AND user_id = ${userId} LIMIT ${limit}
        ), gone AS (
          DELETE FROM ${sql(table)} WHERE project_id = ${projectId} AND id IN (SELECT id FROM doomed) RETURNING 1
        ) SELECT count(*)::int AS n FROM gone`)

    /** Deletes these threads (their rows deleted before: nothing cascades). */
    const deleteThreads = (projectId: string, ids: ReadonlyArray<string>) =>
      deleteWhereIn("threads", "id", projectId, ids)

    /** Deletes the spans of these traces and the traces' rows. */
    const deleteTraces = (projectId: string, traceIds: ReadonlyArray<string>) =>
      Effect.gen(function* () {
        const spans = yield* deleteWhereIn("spans", "trace_id", projectId, traceIds)
        const traces = yield* deleteWhereIn("traces", "trace_id", projectId, traceIds)
        return { spans, traces }
      }).pipe(sql.withTransaction)

    /**
     * The user's anonymous workspace claimed into another (its key segment),
     * and workspaces claimed into the user's own (its workspace is its id).
     */
    const deleteWorkspaceClaims = (projectId: string, userId: string, segment: string) =>
      counted(sql`WITH gone AS (
          DELETE FROM workspace_claims
          WHERE project_id = ${projectId} AND (from_segment = ${segment} OR to_workspace = ${userId}) RETURNING 1
        ) SELECT count(*)::int AS n FROM gone`)

    /**
     * The user's daily usage rows: moved under `anonymousId` (the day's
     * figures and active users stay as they were), or deleted when the user
     * is a test user by the project's prefixes (left out of usage anyway).
     */
    const anonymizeUsage = (projectId: string, userId: string, anonymousId: string) =>
      Effect.gen(function* () {
        const [test] = yield* sql<{ test: boolean }>`SELECT EXISTS (
            SELECT 1 FROM projects p, unnest(p.test_user_prefixes) AS prefix
            WHERE p.id = ${projectId} AND starts_with(${userId}, prefix)) AS test`
        if (test?.test === true) {
          return yield* counted(sql`WITH gone AS (
              DELETE FROM usage_daily WHERE project_id = ${projectId} AND user_id = ${userId} RETURNING 1
            ) SELECT count(*)::int AS n FROM gone`)
        }
        return yield* counted(sql`WITH moved AS (
            UPDATE usage_daily SET user_id = ${anonymousId}
            WHERE project_id = ${projectId} AND user_id = ${userId} RETURNING 1
          ) SELECT count(*)::int AS n FROM moved`)
      }).pipe(sql.withTransaction)

    const record = (row: {
      readonly projectId: string
      readonly id: string
      readonly userSha256: string
      readonly requestedBy: string
      readonly startedAt: Date
      readonly counts: ErasureCounts & { readonly usage_rows_anonymized: number }
    }) =>
      sql<ErasureRow>`INSERT INTO user_erasures (project_id, id, user_sha256, requested_by, started_at, counts)
        VALUES (${row.projectId}, ${row.id}, ${row.userSha256}, ${row.requestedBy}, ${row.startedAt.toISOString()},
          ${JSON.stringify(row.counts)}::jsonb)
        RETURNING id, user_sha256, requested_by, started_at, finished_at, counts`.pipe(
        Effect.flatMap(([stored]) => (stored ? Effect.succeed(stored) : Effect.dieMessage("no row returned")))
      )

    /** The project's erasures, newest first. */
    const list = (projectId: string, limit: number) =>
      sql<ErasureRow>`SELECT id, user_sha256, requested_by, started_at, finished_at, counts FROM user_erasures
        WHERE project_id = ${projectId} ORDER BY id DESC LIMIT ${limit}`

    return {
      threadsOf: fn("ErasureRepo.threadsOf")(threadsOf, Effect.orDie),
      messagesOfThreads: fn("ErasureRepo.messagesOfThreads")(messagesOfThreads, Effect.orDie),
      messagesOfUserElsewhere: fn("ErasureRepo.messagesOfUserElsewhere")(messagesOfUserElsewhere, Effect.orDie),
      deleteMessages: fn("ErasureRepo.deleteMessages")(deleteMessages, Effect.orDie),
      runsOfThreads: fn("ErasureRepo.runsOfThreads")(runsOfThreads, Effect.orDie),
      runsOfUser: fn("ErasureRepo.runsOfUser")(runsOfUser, Effect.orDie),
      deleteRuns: fn("ErasureRepo.deleteRuns")(deleteRuns, Effect.orDie),
      deleteInThreads: fn("ErasureRepo.deleteInThreads")(deleteInThreads, Effect.orDie),
      deleteOfUser: fn("ErasureRepo.deleteOfUser")(deleteOfUser, Effect.orDie),
      deleteThreads: fn("ErasureRepo.deleteThreads")(deleteThreads, Effect.orDie),
      deleteTraces: fn("ErasureRepo.deleteTraces")(deleteTraces, Effect.orDie),
      deleteWorkspaceClaims: fn("ErasureRepo.deleteWorkspaceClaims")(deleteWorkspaceClaims, Effect.orDie),
      anonymizeUsage: fn("ErasureRepo.anonymizeUsage")(anonymizeUsage, Effect.orDie),
      record: fn("ErasureRepo.record")(record, Effect.orDie),
      list: fn("ErasureRepo.list")(list, Effect.orDie)
    } as const
  })
}) {}
