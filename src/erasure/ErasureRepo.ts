import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import type * as Statement from "@effect/sql/Statement"
import * as Effect from "effect/Effect"
import type { ErasureCounts } from "../../schema/Erasure.js"
import { inTransaction } from "../platform/db/SqlErrors.js"
import { USER_DATA, type UserDataTableName } from "../platform/db/UserData.js"
import { fn } from "../platform/telemetry/Traced.js"

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

/** What a batch deleted (or re-keyed), by the kinds an erasure counts; a kind absent is 0. */
export type Tally = Partial<Record<keyof ErasureCounts | "usage_rows_anonymized", number>>

/** The user-data tables an erasure deletes rows of and counts (src/platform/db/UserData.ts). */
type Table = {
  [T in UserDataTableName]: (typeof USER_DATA)[T]["kind"] extends null ? never : T
}[UserDataTableName]

/** The sum of two tallies. */
export const addTally = (a: Tally, b: Tally): Tally => {
  const sum: Record<string, number> = { ...a }
  for (const [kind, n] of Object.entries(b)) sum[kind] = (sum[kind] ?? 0) + (n ?? 0)
  return sum
}

/**
 * The statements of an erasure (src/erasure/Erasure.ts), each bounded: a select of
 * at most `limit` rows by an index that leads with (project_id, ...), and
 * deletes by primary key of the rows selected. The use case loops over them,
 * one short transaction per batch (its own: these statements take none), so
 * no lock is held for long. Each delete of rows that raise webhook events
 * deletes, in the same statement, the deliveries whose object they are.
 */
export class ErasureRepo extends Effect.Service<ErasureRepo>()("svc/ErasureRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const counted = (statement: Effect.Effect<ReadonlyArray<{ readonly n: number }>, SqlError>) =>
      Effect.map(statement, ([row]) => Number(row?.n ?? 0))

    /**
     * Deletes the project's rows of `table` that `which` selects (a condition
     * on the table's columns), and the webhook deliveries whose object is one
     * of them (matched by id and event type: whoever wrote the row, the
     * delivery carries its content); what went, by kind.
     */
    const remove = (table: Table, projectId: string, which: Statement.Fragment): Effect.Effect<Tally, SqlError> => {
      const { kind, event } = USER_DATA[table]
      const statement =
        event === null
          ? sql<{ n: number; deliveries: number }>`WITH gone AS (
              DELETE FROM ${sql(table)} WHERE project_id = ${projectId} AND ${which} RETURNING 1
            ) SELECT count(*)::int AS n, 0 AS deliveries FROM gone`
          : sql<{ n: number; deliveries: number }>`WITH gone AS (
              DELETE FROM ${sql(table)} WHERE project_id = ${projectId} AND ${which} RETURNING id
            ), deliveries AS (
              DELETE FROM webhook_deliveries WHERE project_id = ${projectId} AND event_type = ${event}
                AND object_id IN (SELECT id FROM gone) RETURNING 1
            ) SELECT (SELECT count(*)::int FROM gone) AS n, (SELECT count(*)::int FROM deliveries) AS deliveries`
      return Effect.map(statement, ([row]) => ({
        [kind]: Number(row?.n ?? 0),
        webhook_deliveries: Number(row?.deliveries ?? 0)
      }))
    }

    /** At most `limit` of the project's rows of `table` whose `column` is one of `values`. */
    const someWhereIn = (
      table: Table,
      column: "thread_id" | "user_id",
      projectId: string,
      values: ReadonlyArray<string>,
      limit: number
    ) =>
      sql`id IN (SELECT id FROM ${sql(table)} WHERE project_id = ${projectId} AND ${sql(column)} IN ${sql.in(values)}
        LIMIT ${limit})`

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

    /** Deletes messages by id with their feedback and the scores on them (and all their deliveries). */
    const deleteMessages = (projectId: string, ids: ReadonlyArray<string>) =>
      Effect.gen(function* () {
        const feedback = yield* remove("message_feedback", projectId, sql`message_id IN ${sql.in(ids)}`)
        const scores = yield* remove("scores", projectId, sql`message_id IN ${sql.in(ids)}`)
        const messages = yield* remove("messages", projectId, sql`id IN ${sql.in(ids)}`)
        return addTally(addTally(feedback, scores), messages)
      })

    /** Runs of these threads, or of the user (outside them), `limit` at a time. */
    const runsOfThreads = (projectId: string, threadIds: ReadonlyArray<string>, limit: number) =>
      sql<RunRef>`SELECT id, trace_id FROM runs
        WHERE project_id = ${projectId} AND thread_id IN ${sql.in(threadIds)} LIMIT ${limit}`
    const runsOfUser = (projectId: string, userId: string, limit: number) =>
      sql<RunRef>`SELECT id, trace_id FROM runs
        WHERE project_id = ${projectId} AND user_id = ${userId} LIMIT ${limit}`

    /** Deletes runs by id with the scores on them (and their deliveries). */
    const deleteRuns = (projectId: string, ids: ReadonlyArray<string>) =>
      Effect.gen(function* () {
        const scores = yield* remove("scores", projectId, sql`run_id IN ${sql.in(ids)}`)
        const runs = yield* remove("runs", projectId, sql`id IN ${sql.in(ids)}`)
        return addTally(scores, runs)
      })

    /** One batch of a table's rows in these threads. */
    const deleteInThreads = (
      table: "scores" | "events",
      projectId: string,
      threadIds: ReadonlyArray<string>,
      limit: number
    ) => remove(table, projectId, someWhereIn(table, "thread_id", projectId, threadIds, limit))

    /** One batch of a table's rows of the user. */
    const deleteOfUser = (
      table: "scores" | "events" | "message_feedback" | "refresh_tokens",
      projectId: string,
      userId: string,
      limit: number
    ) => remove(table, projectId, someWhereIn(table, "user_id", projectId, [userId], limit))

    /** Deletes these threads (their rows deleted before: nothing cascades). */
    const deleteThreads = (projectId: string, ids: ReadonlyArray<string>) =>
      remove("threads", projectId, sql`id IN ${sql.in(ids)}`)

    /**
     * Deletes the spans of these traces, the resource rows only they used
     * (a row is one export's, and may be shared with spans of other traces),
     * and the traces' rows.
     */
    const deleteTraces = (projectId: string, traceIds: ReadonlyArray<string>) =>
      Effect.gen(function* () {
        const spans = yield* counted(sql`WITH gone AS (
            DELETE FROM spans WHERE project_id = ${projectId} AND trace_id IN ${sql.in(traceIds)} RETURNING resource_id
          ), unused AS (
            -- The statement's snapshot still shows the spans it deletes: other traces' spans are what keep a row.
            DELETE FROM span_resources r
            WHERE r.project_id = ${projectId} AND r.id IN (SELECT DISTINCT resource_id FROM gone)
              AND NOT EXISTS (SELECT 1 FROM spans s WHERE s.project_id = ${projectId} AND s.resource_id = r.id
                AND s.trace_id NOT IN ${sql.in(traceIds)})
          ) SELECT count(*)::int AS n FROM gone`)
        return addTally({ spans }, yield* remove("traces", projectId, sql`trace_id IN ${sql.in(traceIds)}`))
      })

    /**
     * The user's anonymous workspace claimed into another (its key segment),
     * and workspaces claimed into the user's own (its workspace is its id).
     */
    const deleteWorkspaceClaims = (projectId: string, userId: string, segment: string) =>
      remove("workspace_claims", projectId, sql`(from_segment = ${segment} OR to_workspace = ${userId})`)

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
        const n = yield* test?.test === true
          ? counted(sql`WITH gone AS (
              DELETE FROM usage_daily WHERE project_id = ${projectId} AND user_id = ${userId} RETURNING 1
            ) SELECT count(*)::int AS n FROM gone`)
          : counted(sql`WITH moved AS (
              UPDATE usage_daily SET user_id = ${anonymousId}
              WHERE project_id = ${projectId} AND user_id = ${userId} RETURNING 1
            ) SELECT count(*)::int AS n FROM moved`)
        const tally: Tally = { usage_rows_anonymized: n }
        return tally
      })

    /**
     * The record of an erasure of this user about to run: the unfinished one
     * an erasure cut short left (it goes on), or a new one (started now, no
     * counts). Two at once share one (the partial unique index on unfinished
     * records); a record that finished between the insert and the read makes
     * a new one on the next try.
     */
    const open = (row: {
      readonly projectId: string
      readonly id: string
      readonly userSha256: string
      readonly requestedBy: string
      readonly startedAt: Date
    }) =>
      Effect.gen(function* () {
        for (let attempt = 0; attempt < 3; attempt++) {
          const [created] = yield* sql<{ id: string }>`INSERT INTO user_erasures
              (project_id, id, user_sha256, requested_by, started_at, counts)
            VALUES (${row.projectId}, ${row.id}, ${row.userSha256}, ${row.requestedBy},
              ${row.startedAt.toISOString()}, '{}'::jsonb)
            ON CONFLICT (project_id, user_sha256) WHERE finished_at IS NULL DO NOTHING
            RETURNING id`
          if (created !== undefined) return created.id
          const [unfinished] = yield* sql<{ id: string }>`SELECT id FROM user_erasures
            WHERE project_id = ${row.projectId} AND user_sha256 = ${row.userSha256} AND finished_at IS NULL`
          if (unfinished !== undefined) return unfinished.id
        }
        return yield* Effect.dieMessage("no erasure record could be opened")
      })

    /** Adds what a batch deleted to the record's counts (call it in the batch's transaction). */
    const tally = (projectId: string, id: string, added: Tally) => {
      const nonZero = Object.fromEntries(Object.entries(added).filter(([, n]) => n !== undefined && n > 0))
      if (Object.keys(nonZero).length === 0) return Effect.void
      return sql`UPDATE user_erasures SET counts = (
          SELECT jsonb_object_agg(kind, coalesce((counts ->> kind)::bigint, 0)
            + coalesce((${JSON.stringify(nonZero)}::jsonb ->> kind)::bigint, 0))
          FROM jsonb_object_keys(counts || ${JSON.stringify(nonZero)}::jsonb) AS kind)
        WHERE project_id = ${projectId} AND id = ${id}`.pipe(Effect.asVoid)
    }

    /** Marks the record finished; the record, with the counts of every run that went into it. */
    const finish = (projectId: string, id: string) =>
      sql<ErasureRow>`UPDATE user_erasures SET finished_at = now() WHERE project_id = ${projectId} AND id = ${id}
        RETURNING id, user_sha256, requested_by, started_at, finished_at, counts`.pipe(
        Effect.flatMap(([stored]) => (stored ? Effect.succeed(stored) : Effect.dieMessage("no row returned")))
      )

    /** The project's finished erasures, newest first (one still running, or cut short, is not listed). */
    const list = (projectId: string, limit: number) =>
      sql<ErasureRow>`SELECT id, user_sha256, requested_by, started_at, finished_at, counts FROM user_erasures
        WHERE project_id = ${projectId} AND finished_at IS NOT NULL ORDER BY id DESC LIMIT ${limit}`

    /**
     * `columns` of the project's rows of `table` whose `column` is the `key`
     * of a row of the CTE `from` (and that `also` holds for). The set goes in
     * as one array: `column` leads an index after project_id, so each of its
     * values is one probe; or, where the planner takes the table to be
     * small, the project's rows are read once against the array (hashed).
     * Never the whole set once per row of the table, which `IN (SELECT ...)`
     * turned into on the embedded store (it keeps no statistics, and took
     * each index scan for one row): 1.1 s to match 500 scores against 2,400
     * messages.
     */
    const probe = (
      projectId: string,
      from: string,
      table: Table,
      column: "id" | "thread_id" | "message_id" | "run_id" | "trace_id" | "object_id",
      options: {
        readonly key?: "id" | "trace_id"
        readonly columns?: ReadonlyArray<string>
        readonly also?: Statement.Fragment
      } = {}
    ) => sql`SELECT ${sql.csv((options.columns ?? ["id"]).map((name) => sql`${sql(name)}`))} FROM ${sql(table)}
      WHERE project_id = ${projectId}
        AND ${sql(column)} = ANY ((SELECT array_agg(${sql(options.key ?? "id")}) FROM ${sql(from)})::text[])
        AND ${options.also ?? sql`TRUE`}`

    /**
     * The rows an erasure of the user would select, as CTEs (after `WITH
     * RECURSIVE`), by the rules of the statements above (docs/decisions.md
     * "Erasure of one user"): `doomed_threads` the user's threads (threadsOf),
     * `elsewhere` the user's messages outside them with their descendants
     * (messagesOfUserElsewhere: once the threads are gone, their messages
     * are not the user's "elsewhere"), `doomed_messages` both
     * (messagesOfThreads, messagesOfUserElsewhere), `doomed_runs` the runs of
     * the threads and of the user (runsOfThreads, runsOfUser). UNION keeps
     * each row once.
     */
    const doomed = (projectId: string, userId: string) => sql`
      doomed_threads AS (
        SELECT id FROM threads WHERE project_id = ${projectId} AND user_id = ${userId}
      ), elsewhere AS (
        SELECT id, thread_id FROM messages
        WHERE project_id = ${projectId} AND user_id = ${userId}
          AND thread_id NOT IN (SELECT id FROM doomed_threads)
        UNION
        SELECT m.id, m.thread_id FROM messages m JOIN elsewhere d
          ON m.project_id = ${projectId} AND m.thread_id = d.thread_id AND m.parent_id = d.id
      ), doomed_messages AS (
        ${probe(projectId, "doomed_threads", "messages", "thread_id")}
        UNION
        SELECT id FROM elsewhere
      ), doomed_runs AS (
        ${probe(projectId, "doomed_threads", "runs", "thread_id", { columns: ["id", "trace_id"] })}
        UNION
        SELECT id, trace_id FROM runs WHERE project_id = ${projectId} AND user_id = ${userId}
      )`

    /** The number of rows `rows` selects, as an expression. */
    const countOf = (rows: Statement.Fragment) => sql`(SELECT count(*)::int FROM (${rows}) AS counted)`

    /** How many of the deliveries of `table`'s event have their object in the CTE `from` (as `remove` deletes them). */
    const deliveriesOf = (
      projectId: string,
      table: "threads" | "messages" | "runs" | "scores" | "message_feedback",
      from: string
    ) =>
      countOf(
        probe(projectId, from, "webhook_deliveries", "object_id", { also: sql`event_type = ${USER_DATA[table].event}` })
      )

    /** How many rows of `table` (spans or traces) the traces in the CTE doomed_traces have. */
    const ofDoomedTraces = (projectId: string, table: "spans" | "traces") =>
      countOf(probe(projectId, "doomed_traces", table, "trace_id", { key: "trace_id", columns: ["trace_id"] }))

    /**
     * What an erasure of the user would delete, row kinds only (attachments
     * are blobs: attachmentKeysNamed), counted in one statement and nothing
     * held but the counts. The same selection as the erasure's statements:
     * feedback and scores on the doomed messages (deleteMessages), scores on
     * the doomed runs (deleteRuns), the threads' scores and events
     * (deleteInThreads), the user's own elsewhere (deleteOfUser), every span
     * and trace row of the traces the doomed runs name (deleteTraces), the
     * user's refresh tokens and workspace claims, and the deliveries whose
     * object is a doomed thread, message, run, score or feedback (`remove`).
     */
    const countsOf = (projectId: string, userId: string, segment: string) =>
      sql<Omit<ErasureCounts, "attachments">>`WITH RECURSIVE ${doomed(projectId, userId)},
        doomed_feedback AS (
          ${probe(projectId, "doomed_messages", "message_feedback", "message_id")}
          UNION
          SELECT id FROM message_feedback WHERE project_id = ${projectId} AND user_id = ${userId}
        ), doomed_scores AS (
          ${probe(projectId, "doomed_messages", "scores", "message_id")}
          UNION
          ${probe(projectId, "doomed_runs", "scores", "run_id")}
          UNION
          ${probe(projectId, "doomed_threads", "scores", "thread_id")}
          UNION
          SELECT id FROM scores WHERE project_id = ${projectId} AND user_id = ${userId}
        ), doomed_events AS (
          ${probe(projectId, "doomed_threads", "events", "thread_id")}
          UNION
          SELECT id FROM events WHERE project_id = ${projectId} AND user_id = ${userId}
        ), doomed_traces AS (
          SELECT DISTINCT trace_id FROM doomed_runs WHERE trace_id IS NOT NULL
        )
        SELECT
          (SELECT count(*)::int FROM doomed_threads) AS threads,
          (SELECT count(*)::int FROM doomed_messages) AS messages,
          (SELECT count(*)::int FROM doomed_feedback) AS feedback,
          (SELECT count(*)::int FROM doomed_runs) AS runs,
          (SELECT count(*)::int FROM doomed_scores) AS scores,
          (SELECT count(*)::int FROM doomed_events) AS events,
          ${ofDoomedTraces(projectId, "spans")} AS spans,
          ${ofDoomedTraces(projectId, "traces")} AS traces,
          (SELECT count(*)::int FROM refresh_tokens
            WHERE project_id = ${projectId} AND user_id = ${userId}) AS refresh_tokens,
          (SELECT count(*)::int FROM workspace_claims
            WHERE project_id = ${projectId} AND (from_segment = ${segment} OR to_workspace = ${userId})) AS workspace_claims,
          ${deliveriesOf(projectId, "threads", "doomed_threads")}
            + ${deliveriesOf(projectId, "messages", "doomed_messages")}
            + ${deliveriesOf(projectId, "runs", "doomed_runs")}
            + ${deliveriesOf(projectId, "scores", "doomed_scores")}
            + ${deliveriesOf(projectId, "message_feedback", "doomed_feedback")} AS webhook_deliveries`.pipe(
        Effect.flatMap(([row]) => (row ? Effect.succeed(row) : Effect.dieMessage("no row returned")))
      )

    /**
     * The distinct matches of `pattern` (Erasure.ts KEY_IN_TEXT's source: the
     * expression reads the same in PostgreSQL's regular expressions, its
     * lookbehind included) that start with `prefix` (the project's id and
     * `/`) in the strings and object keys of the doomed threads' metadata and
     * messages' content: what Erasure.attachmentKeysIn finds in them, of this
     * project. The strings are the decoded ones (jsonpath `strict $.**`
     * visits every value at every depth, as attachmentKeysIn does), not the
     * JSON text, where an escape (`\n`) may stand right before a key. A
     * document's strings are matched joined by spaces: a space ends a key
     * and may start one, as a string's ends do, and no key holds one, so the
     * matches are those of each string alone; one call per document also
     * keeps the planner's estimate small (one call per string was estimated
     * at millions of rows, and PostgreSQL's JIT spent 1.5 s compiling it).
     * Only documents, and strings, that hold `prefix` are read (a key of the
     * project holds it as is, in the JSON text too), and only the keys are
     * answered, never the documents. The expression costs about 0.1 ms a key
     * found on PostgreSQL and 0.2 ms on the embedded store (4,000 keys in 0.4
     * and 0.8 s; V8 takes 0.01 ms): what a preview of a user with many
     * attachments costs.
     */
    const attachmentKeysNamed = (projectId: string, userId: string, prefix: string, pattern: string) =>
      sql<{ key: string }>`WITH RECURSIVE ${doomed(projectId, userId)},
        docs AS (
          SELECT metadata AS doc FROM threads
          WHERE project_id = ${projectId} AND user_id = ${userId} AND strpos(metadata::text, ${prefix}) > 0
          UNION ALL
          ${probe(projectId, "doomed_messages", "messages", "id", {
            columns: ["content"],
            also: sql`strpos(content::text, ${prefix}) > 0`
          })}
        ), texts AS (
          SELECT (SELECT string_agg(strings.value, ' ') FROM (
            SELECT jsonb_path_query(doc, 'strict $.** ? (@.type() == "string")') #>> '{}'
            UNION ALL
            SELECT jsonb_path_query(doc, 'strict $.** ? (@.type() == "object").keyvalue().key') #>> '{}'
          ) AS strings(value) WHERE strpos(strings.value, ${prefix}) > 0) AS text
          FROM docs
        )
        SELECT DISTINCT found.match[1] AS key
        FROM texts CROSS JOIN LATERAL regexp_matches(texts.text, ${pattern}, 'g') AS found(match)
        WHERE starts_with(found.match[1], ${prefix})`.pipe(Effect.map((rows) => rows.map((row) => row.key)))

    return {
      countsOf: fn("ErasureRepo.countsOf")(countsOf, Effect.orDie),
      attachmentKeysNamed: fn("ErasureRepo.attachmentKeysNamed")(attachmentKeysNamed, Effect.orDie),
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
      open: fn("ErasureRepo.open")(open, Effect.orDie),
      tally: fn("ErasureRepo.tally")(tally, Effect.orDie),
      finish: fn("ErasureRepo.finish")(finish, Effect.orDie),
      list: fn("ErasureRepo.list")(list, Effect.orDie),
      /** `effect` in a transaction; the store's own failures are defects, the effect's errors stay. */
      withTransaction: inTransaction(sql)
    } as const
  })
}) {}
