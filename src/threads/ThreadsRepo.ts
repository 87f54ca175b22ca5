import * as SqlClient from "@effect/sql/SqlClient"
import type * as Statement from "@effect/sql/Statement"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { Thread } from "../../schema/Thread.js"
import { ProjectThread } from "../../schema/Topic.js"
import { foundOrFail } from "../platform/db/RowNotFound.js"
import type { TenantScope } from "../platform/db/TenantScope.js"
import { fn } from "../platform/telemetry/Traced.js"
import { tsvectorOf } from "../platform/text/SearchSql.js"
import { THREAD_JSON_COLUMNS } from "./ThreadColumns.js"

interface ThreadRow {
  readonly id: string
  readonly project_id: string
  readonly workspace_id: string
  readonly created_at: Date
  readonly updated_at: Date
  readonly title: string | null
  readonly last_message_at: Date
  readonly is_archived: boolean
  readonly external_id: string | null
  readonly metadata: unknown
}

// Rows come from our own migrations, so they are mapped, not re-validated.
const toThread = (row: ThreadRow): Thread => Thread.make(row, { disableValidation: true })
const toProjectThread = (row: ThreadRow & { readonly topic_id: string | null }): ProjectThread =>
  ProjectThread.make(row, { disableValidation: true })

export interface NewThread {
  readonly id: string
  readonly userId: string
  readonly lastMessageAt: Date
  readonly title: string | undefined
  readonly metadata: unknown
  readonly externalId: string | undefined
}

export interface ThreadChanges {
  readonly title?: string | undefined
  readonly lastMessageAt?: Date | undefined
  readonly metadata?: unknown
  readonly isArchived?: boolean | undefined
}

export interface ListOptions {
  readonly limit: number
  readonly isArchived: boolean | undefined
  /** The position of the last thread of the previous page. */
  readonly after: ThreadPosition | undefined
}

const COLUMNS =
  "id, project_id, workspace_id, created_at, updated_at, title, last_message_at, is_archived, external_id, metadata"
/** The project API's thread: the same and its topic. */
const PROJECT_COLUMNS = `${COLUMNS}, topic_id`

/** Where a thread sits in the list order (or sat, when deleted: its tombstone). */
export interface ThreadPosition {
  /**
   * As the database's text, to the microsecond: an append moves last_message_at to its commit time
   * (microseconds), and a cursor cut to a Date's milliseconds would skip the threads of the same
   * millisecond that sort after it.
   */
  readonly last_message_at: string
  readonly id: string
}

export class ThreadsRepo extends Effect.Service<ThreadsRepo>()("svc/ThreadsRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const cols = sql.literal(COLUMNS)
    const projectCols = sql.literal(PROJECT_COLUMNS)
    const threadJson = sql.literal(THREAD_JSON_COLUMNS)
    const projectThreadJson = sql.literal(`${THREAD_JSON_COLUMNS}, topic_id`)
    const first = <A>(rows: ReadonlyArray<A>): Option.Option<A> => Option.fromNullable(rows[0])
    const insertColumns = sql.literal(
      "(project_id, id, workspace_id, user_id, title, external_id, metadata, last_message_at, search_tsv)"
    )
    /** A new thread's values, in insertColumns' order. */
    const insertValues = (scope: TenantScope, thread: NewThread) =>
      sql`${scope.projectId}, ${thread.id}, ${scope.workspaceId}, ${thread.userId}, ${thread.title ?? null},
        ${thread.externalId ?? null}, ${JSON.stringify(thread.metadata === undefined ? {} : thread.metadata)},
        ${thread.lastMessageAt.toISOString()}, ${tsvectorOf(sql, thread.title, "A")}`

    /** A thread of any workspace of the project as JSON text of `columns`. */
    const jsonInProject = (columns: Statement.Fragment, projectId: string, id: string) =>
      sql<{ json: string }>`SELECT row_to_json(t)::text AS json FROM (SELECT ${columns} FROM threads
        WHERE project_id = ${projectId} AND id = ${id}) t`.pipe(
        Effect.map((rows) => Option.map(first(rows), (row) => row.json))
      )

    /** One page's WHERE clause and order, in list order; `scope` is the clause that bounds the tenant. */
    const pageOf = (scope: Statement.Fragment, options: ListOptions) => {
      const archived = options.isArchived === undefined ? sql`` : sql`AND is_archived = ${options.isArchived}`
      const cursor =
        options.after === undefined
          ? sql``
          : sql`AND (last_message_at, id) < (${options.after.last_message_at}::timestamptz, ${options.after.id})`
      return sql`WHERE ${scope} ${archived} ${cursor} ORDER BY last_message_at DESC, id DESC LIMIT ${options.limit}`
    }
    const page = (scope: Statement.Fragment, options: ListOptions) =>
      sql<ThreadRow>`SELECT ${cols} FROM threads ${pageOf(scope, options)}`.pipe(
        Effect.map((rows) => rows.map(toThread))
      )
    /** The same page as the project API writes it (with each thread's topic). */
    const projectPage = (scope: Statement.Fragment, options: ListOptions) =>
      sql<ThreadRow & { topic_id: string | null }>`SELECT ${projectCols} FROM threads ${pageOf(scope, options)}`.pipe(
        Effect.map((rows) => rows.map(toProjectThread))
      )

    return {
      /** Where a thread of the workspace sits (or sat, if deleted) in the list order. */
      position: fn("ThreadsRepo.position")(
        (scope: TenantScope, id: string) =>
          sql<ThreadPosition>`
            SELECT last_message_at::text AS last_message_at, id FROM threads
            WHERE project_id = ${scope.projectId} AND workspace_id = ${scope.workspaceId} AND id = ${id}
            UNION ALL
            SELECT last_message_at::text AS last_message_at, id FROM thread_tombstones
            WHERE project_id = ${scope.projectId} AND workspace_id = ${scope.workspaceId} AND id = ${id}`.pipe(
            Effect.map(first)
          ),
        Effect.orDie
      ),

      list: fn("ThreadsRepo.list")(
        (scope: TenantScope, options: ListOptions) =>
          page(sql`project_id = ${scope.projectId} AND workspace_id = ${scope.workspaceId}`, options),
        Effect.orDie
      ),

      /** The project read API: where a thread of any workspace sits (or sat). */
      positionInProject: fn("ThreadsRepo.positionInProject")(
        (projectId: string, id: string) =>
          sql<ThreadPosition>`
            SELECT last_message_at::text AS last_message_at, id FROM threads WHERE project_id = ${projectId} AND id = ${id}
            UNION ALL
            SELECT last_message_at::text AS last_message_at, id FROM thread_tombstones WHERE project_id = ${projectId} AND id = ${id}`.pipe(
            Effect.map(first)
          ),
        Effect.orDie
      ),

      /** The project read API: the same list over every workspace of the project. */
      listProject: fn("ThreadsRepo.listProject")(
        (projectId: string, options: ListOptions) => projectPage(sql`project_id = ${projectId}`, options),
        Effect.orDie
      ),

      /** A topic's threads started since `since`, in the list's order (threads_topic_recent). */
      listTopic: fn("ThreadsRepo.listTopic")(
        (projectId: string, topicId: string, since: Date, options: Omit<ListOptions, "isArchived">) =>
          projectPage(
            sql`project_id = ${projectId} AND topic_id = ${topicId} AND created_at >= ${since.toISOString()}::timestamptz`,
            { ...options, isArchived: undefined }
          ),
        Effect.orDie
      ),

      /** The workspace and user of each of these ids that is a thread of the project. */
      ownersInProject: fn("ThreadsRepo.ownersInProject")(
        (projectId: string, ids: ReadonlyArray<string>) =>
          sql<{ id: string; workspace_id: string; user_id: string }>`
            SELECT id, workspace_id, user_id FROM threads
            WHERE project_id = ${projectId}
              AND id IN (SELECT jsonb_array_elements_text(${JSON.stringify(ids)}::jsonb))`,
        Effect.orDie
      ),
      existsInProject: fn("ThreadsRepo.existsInProject")(
        (projectId: string, id: string) =>
          sql`SELECT 1 AS one FROM threads WHERE project_id = ${projectId} AND id = ${id}`.pipe(
            Effect.map((rows) => rows.length > 0)
          ),
        Effect.orDie
      ),

      /** The thread as wire JSON text (THREAD_JSON_COLUMNS). */
      getJson: fn("ThreadsRepo.getJson")(
        (scope: TenantScope, id: string) =>
          sql<{ json: string }>`SELECT row_to_json(t)::text AS json FROM (SELECT ${threadJson} FROM threads
            WHERE project_id = ${scope.projectId} AND workspace_id = ${scope.workspaceId} AND id = ${id}) t`.pipe(
            Effect.map((rows) => Option.map(first(rows), (row) => row.json))
          ),
        Effect.orDie
      ),

      /** The project read API: a thread of any workspace of the project, as wire JSON text. */
      getJsonInProject: fn("ThreadsRepo.getJsonInProject")(
        (projectId: string, id: string) => jsonInProject(threadJson, projectId, id),
        Effect.orDie
      ),

      /** The same with the thread's topic, as the project API writes it (ProjectThread). */
      getProjectJson: fn("ThreadsRepo.getProjectJson")(
        (projectId: string, id: string) => jsonInProject(projectThreadJson, projectId, id),
        Effect.orDie
      ),

      get: fn("ThreadsRepo.get")(
        (scope: TenantScope, id: string) =>
          sql<ThreadRow>`SELECT ${cols} FROM threads
            WHERE project_id = ${scope.projectId} AND workspace_id = ${scope.workspaceId} AND id = ${id}`.pipe(
            Effect.map((rows) => Option.map(first(rows), toThread))
          ),
        Effect.orDie
      ),

      insert: fn("ThreadsRepo.insert")(
        (scope: TenantScope, thread: NewThread) =>
          sql`INSERT INTO threads ${insertColumns} VALUES (${insertValues(scope, thread)})`.pipe(Effect.asVoid),
        Effect.orDie
      ),

      /**
       * The workspace's thread with this external_id (the oldest, should
       * creates without upsert have made several), else the thread inserted.
       * Upserts of one external_id take turns on an advisory lock held to
       * the commit, and each looks after taking it: the second of two
       * concurrent ones finds the first's thread instead of adding one.
       */
      insertOrFind: fn("ThreadsRepo.insertOrFind")(
        (scope: TenantScope, thread: NewThread & { readonly externalId: string }) =>
          sql.withTransaction(
            Effect.gen(function* () {
              yield* sql`SELECT pg_advisory_xact_lock(hashtext(${scope.projectId} || '/' || ${scope.workspaceId}),
                hashtext(${thread.externalId}))`
              const [row] = yield* sql<{ existing_id: string | null; created_id: string | null }>`
                WITH existing AS (
                  SELECT id FROM threads
                  WHERE project_id = ${scope.projectId} AND workspace_id = ${scope.workspaceId}
                    AND external_id = ${thread.externalId}
                  ORDER BY id LIMIT 1
                ), ins AS (
                  INSERT INTO threads ${insertColumns}
                  SELECT ${insertValues(scope, thread)} WHERE NOT EXISTS (SELECT 1 FROM existing)
                  RETURNING id
                )
                SELECT (SELECT id FROM existing) AS existing_id, (SELECT id FROM ins) AS created_id`
              if (row?.created_id) return { id: row.created_id, created: true }
              if (row?.existing_id) return { id: row.existing_id, created: false }
              return yield* Effect.dieMessage("a thread upsert neither found nor inserted a thread")
            })
          ),
        Effect.orDie
      ),

      /** Fails RowNotFound when the thread is not in scope. */
      update: fn("ThreadsRepo.update")(
        (scope: TenantScope, id: string, changes: ThreadChanges) => {
          const sets = [sql`updated_at = now()`]
          if (changes.title !== undefined) {
            sets.push(sql`title = ${changes.title}`, sql`search_tsv = ${tsvectorOf(sql, changes.title, "A")}`)
          }
          if (changes.lastMessageAt !== undefined) {
            sets.push(sql`last_message_at = ${changes.lastMessageAt.toISOString()}`)
          }
          if (changes.metadata !== undefined) sets.push(sql`metadata = ${JSON.stringify(changes.metadata)}`)
          if (changes.isArchived !== undefined) sets.push(sql`is_archived = ${changes.isArchived}`)
          return sql`UPDATE threads SET ${sql.csv(sets)}
            WHERE project_id = ${scope.projectId} AND workspace_id = ${scope.workspaceId} AND id = ${id}
            RETURNING id`.pipe(Effect.flatMap(foundOrFail("thread")))
        },
        Effect.catchTag("SqlError", Effect.die)
      ),

      /** Deletes the thread (messages and feedback cascade) and leaves its tombstone; RowNotFound when not in scope. */
      remove: fn("ThreadsRepo.remove")(
        (scope: TenantScope, id: string) =>
          sql<{ id: string }>`
            WITH gone AS (
              DELETE FROM threads
              WHERE project_id = ${scope.projectId} AND workspace_id = ${scope.workspaceId} AND id = ${id}
              RETURNING project_id, id, workspace_id, last_message_at
            ), tombstone AS (
              INSERT INTO thread_tombstones (project_id, id, workspace_id, last_message_at)
              SELECT project_id, id, workspace_id, last_message_at FROM gone
              ON CONFLICT (project_id, id) DO NOTHING
            ), expired AS (
              DELETE FROM thread_tombstones
              WHERE project_id = ${scope.projectId} AND deleted_at < now() - interval '30 days'
            )
            SELECT id FROM gone`.pipe(Effect.flatMap(foundOrFail("thread"))),
        Effect.catchTag("SqlError", Effect.die)
      ),

      /** Sets the title only while the thread has none (null or blank); true when it was set. */
      setTitleIfUntitled: fn("ThreadsRepo.setTitleIfUntitled")(
        (scope: TenantScope, id: string, title: string) =>
          sql`UPDATE threads SET title = ${title}, updated_at = now(), search_tsv = ${tsvectorOf(sql, title, "A")}
            WHERE project_id = ${scope.projectId} AND workspace_id = ${scope.workspaceId} AND id = ${id}
              AND (title IS NULL OR btrim(title) = '')
            RETURNING id`.pipe(Effect.map((rows) => rows.length > 0)),
        Effect.orDie
      ),

      exists: fn("ThreadsRepo.exists")(
        (scope: TenantScope, id: string) =>
          sql`SELECT 1 AS one FROM threads
            WHERE project_id = ${scope.projectId} AND workspace_id = ${scope.workspaceId} AND id = ${id}`.pipe(
            Effect.map((rows) => rows.length > 0)
          ),
        Effect.orDie
      ),

      /**
       * Moves every thread of one workspace to another workspace and user, with
       * the user's messages and the threads' runs, scores and events; answers
       * how many threads moved.
       */
      moveAll: fn("ThreadsRepo.moveAll")(
        (projectId: string, from: { workspaceId: string; userId: string }, to: TenantScope & { userId: string }) =>
          sql<{ n: number }>`
            WITH moved AS (
              UPDATE threads SET workspace_id = ${to.workspaceId}, user_id = ${to.userId}, updated_at = now()
              WHERE project_id = ${projectId} AND workspace_id = ${from.workspaceId}
              RETURNING id
            ), authored AS (
              UPDATE messages SET user_id = ${to.userId}
              WHERE project_id = ${projectId} AND user_id = ${from.userId} AND thread_id IN (SELECT id FROM moved)
            ), runs_moved AS (
              -- An idempotency key the new workspace already holds is dropped from the moved run
              -- (the check sees the data as it was before this statement).
              UPDATE runs SET workspace_id = ${to.workspaceId},
                user_id = CASE WHEN user_id = ${from.userId} THEN ${to.userId} ELSE user_id END,
                idempotency_key = CASE WHEN EXISTS (
                  SELECT 1 FROM runs held WHERE held.project_id = ${projectId} AND held.workspace_id = ${to.workspaceId}
                    AND held.idempotency_key = runs.idempotency_key) THEN NULL ELSE idempotency_key END
              WHERE project_id = ${projectId} AND thread_id IN (SELECT id FROM moved)
            ), scores_moved AS (
              UPDATE scores SET workspace_id = ${to.workspaceId},
                user_id = CASE WHEN user_id = ${from.userId} THEN ${to.userId} ELSE user_id END
              WHERE project_id = ${projectId} AND thread_id IN (SELECT id FROM moved)
            ), events_moved AS (
              -- Likewise an event id the new user already sent.
              UPDATE events SET workspace_id = ${to.workspaceId},
                user_id = CASE WHEN user_id = ${from.userId} THEN ${to.userId} ELSE user_id END,
                client_id = CASE WHEN user_id = ${from.userId} AND EXISTS (
                  SELECT 1 FROM events held WHERE held.project_id = ${projectId} AND held.user_id = ${to.userId}
                    AND held.client_id = events.client_id) THEN NULL ELSE client_id END
              WHERE project_id = ${projectId} AND thread_id IN (SELECT id FROM moved)
            )
            SELECT count(*)::int AS n FROM moved`.pipe(Effect.map(([row]) => row?.n ?? 0)),
        Effect.orDie
      )
    } as const
  })
}) {}
