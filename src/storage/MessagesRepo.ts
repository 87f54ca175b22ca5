import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import type { IndexedFormat } from "../SearchText.js"
import { fn } from "../Traced.js"
import { foundOrFail, RowNotFound } from "./RowNotFound.js"
import { tsvectorOf } from "./SearchSql.js"
import { isReferenceGone } from "./SqlErrors.js"
import { isoTimestampSql } from "./SqlText.js"
import type { TenantScope } from "./TenantScope.js"

export interface NewMessage {
  /** A fresh id; the message gets it unless the thread already has a larger one (then the next after that). */
  readonly id: string
  readonly threadId: string
  readonly userId: string
  readonly parentId: string | null
  readonly format: string
  /** The content, already serialized: it is stored as sent. */
  readonly contentJson: string
  /** Its searchable text (src/SearchText.ts), empty when there is none. */
  readonly searchText: string
}

/** An append's id was not above its thread's largest (`last`): try again with one that is. */
export class IdNotAfterLast extends Data.TaggedError("IdNotAfterLast")<{ readonly last: string }> {}

/**
 * A message row as JSON-ready text: content as JSON text and timestamps as
 * ISO 8601 strings formatted by the database, so a page of 200 is written out
 * without parsing and re-serializing (measured in bench/).
 */
export interface MessageRow {
  readonly id: string
  readonly parent_id: string | null
  readonly height: number
  readonly created_at: string
  readonly updated_at: string
  readonly format: string
  readonly content: string
}

export class MessagesRepo extends Effect.Service<MessagesRepo>()("svc/MessagesRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    /**
     * One statement: checks the thread is in scope and the parent is in the
     * thread, inserts at parent height + 1, and moves the thread's
     * last_message_at forward.
     *
     * The id must be above the thread's largest so far (checked under the
     * thread's row lock), so within a thread ids grow in commit order: an id
     * made before another but committed after it (concurrent appends) would
     * otherwise sort before a message a reader has already paged past. When
     * it is not, nothing is written and IdNotAfterLast says what to beat.
     */
    const append = (
      scope: TenantScope,
      message: NewMessage
    ): Effect.Effect<string, RowNotFound | IdNotAfterLast | SqlError> =>
      sql<{ thread_found: boolean; id: string | null; last_id: string | null; stale: boolean | null }>`
        WITH t AS (
          -- The thread row first (the bump below updates it anyway), then the
          -- parent: the order a thread delete takes them, so the two cannot deadlock.
          SELECT id, last_message_id FROM threads
          WHERE project_id = ${scope.projectId} AND workspace_id = ${scope.workspaceId} AND id = ${message.threadId}
          FOR NO KEY UPDATE
        ), p AS (
          SELECT height FROM messages
          WHERE project_id = ${scope.projectId} AND thread_id = ${message.threadId} AND id = ${message.parentId}
          -- A parent being deleted meanwhile is waited for, then not found.
          FOR KEY SHARE
        ), ins AS (
          INSERT INTO messages (project_id, thread_id, id, parent_id, user_id, height, format, content, search_tsv)
          SELECT ${scope.projectId}, t.id, ${message.id}, ${message.parentId}, ${message.userId},
            COALESCE((SELECT height + 1 FROM p), 0), ${message.format}, ${message.contentJson}::jsonb,
            ${tsvectorOf(sql, message.searchText)}
          FROM t
          WHERE (${message.parentId}::text IS NULL OR EXISTS (SELECT 1 FROM p))
            AND (t.last_message_id IS NULL OR ${message.id}::text > t.last_message_id)
          RETURNING id, created_at
        ), bump AS (
          UPDATE threads SET last_message_at = GREATEST(threads.last_message_at, ins.created_at),
            updated_at = ins.created_at, last_message_id = ins.id
          FROM ins
          WHERE threads.project_id = ${scope.projectId} AND threads.id = ${message.threadId}
        )
        SELECT EXISTS (SELECT 1 FROM t) AS thread_found, (SELECT id FROM ins) AS id,
          (SELECT last_message_id FROM t) AS last_id,
          (SELECT last_message_id IS NOT NULL AND NOT (${message.id}::text > last_message_id) FROM t) AS stale`.pipe(
        Effect.flatMap(
          ([row]): Effect.Effect<string, RowNotFound | IdNotAfterLast> =>
            !row?.thread_found
              ? Effect.fail(new RowNotFound({ what: "thread" }))
              : row.id !== null
                ? Effect.succeed(row.id)
                : row.stale && row.last_id !== null
                  ? Effect.fail(new IdNotAfterLast({ last: row.last_id }))
                  : Effect.fail(new RowNotFound({ what: "parent" }))
        ),
        // The thread was deleted between the check and the insert.
        Effect.catchIf(isReferenceGone, () => Effect.fail(new RowNotFound({ what: "thread" })))
      )

    const list = (
      projectId: string,
      threadId: string,
      options: { readonly limit: number; readonly format: string | undefined; readonly after: string | undefined }
    ) =>
      sql<MessageRow>`SELECT id, parent_id, height,
          ${sql.literal(isoTimestampSql("created_at"))} AS created_at,
          ${sql.literal(isoTimestampSql("updated_at"))} AS updated_at,
          format, content::text AS content
        FROM messages
        WHERE project_id = ${projectId} AND thread_id = ${threadId}
          ${options.format === undefined ? sql`` : sql`AND format = ${options.format}`}
          ${options.after === undefined ? sql`` : sql`AND id > ${options.after}`}
        ORDER BY id LIMIT ${options.limit}`

    /**
     * RowNotFound when the message is not in the thread. The searchable text
     * depends on the stored format, so it comes as one text per indexed
     * format and the row's format picks.
     */
    const updateContent = (
      projectId: string,
      threadId: string,
      id: string,
      contentJson: string,
      searchTexts: Readonly<Record<IndexedFormat, string>>
    ) =>
      sql`UPDATE messages SET content = ${contentJson}::jsonb, updated_at = now(),
          search_tsv = CASE format
            WHEN 'svc/v0' THEN ${tsvectorOf(sql, searchTexts["svc/v0"])}
            WHEN 'ai-sdk/v6' THEN ${tsvectorOf(sql, searchTexts["ai-sdk/v6"])}
            ELSE NULL END
        WHERE project_id = ${projectId} AND thread_id = ${threadId} AND id = ${id}
        RETURNING id`.pipe(Effect.flatMap(foundOrFail("message")))

    /** Deletes the messages and every descendant; answers how many rows went. */
    const removeWithDescendants = (projectId: string, threadId: string, ids: ReadonlyArray<string>) =>
      sql<{ deleted: number }>`
        WITH RECURSIVE doomed AS (
          SELECT id FROM messages
          WHERE project_id = ${projectId} AND thread_id = ${threadId} AND id IN ${sql.in(ids)}
          UNION
          SELECT m.id FROM messages m JOIN doomed d ON m.parent_id = d.id
          WHERE m.project_id = ${projectId} AND m.thread_id = ${threadId}
        ), gone AS (
          DELETE FROM messages WHERE project_id = ${projectId} AND thread_id = ${threadId}
            AND id IN (SELECT id FROM doomed)
          RETURNING 1
        )
        SELECT count(*)::int AS deleted FROM gone`.pipe(Effect.map(([row]) => row?.deleted ?? 0))

    return {
      append: fn("MessagesRepo.append")(append, Effect.catchTag("SqlError", Effect.die)),
      list: fn("MessagesRepo.list")(list, Effect.orDie),
      updateContent: fn("MessagesRepo.updateContent")(updateContent, Effect.catchTag("SqlError", Effect.die)),
      removeWithDescendants: fn("MessagesRepo.removeWithDescendants")(removeWithDescendants, Effect.orDie)
    } as const
  })
}) {}
