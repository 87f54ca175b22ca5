import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { MessageListOrder } from "../../schema/Message.js"
import { foundOrFail, RowNotFound } from "../platform/db/RowNotFound.js"
import { isReferenceGone } from "../platform/db/SqlErrors.js"
import { isoTimestampSql } from "../platform/db/SqlText.js"
import type { TenantScope } from "../platform/db/TenantScope.js"
import { ALPHABET } from "../platform/Ids.js"
import { fn } from "../platform/telemetry/Traced.js"
import { tsvectorOf } from "../platform/text/SearchSql.js"
import type { IndexedFormat } from "../platform/text/SearchText.js"

export interface NewMessage {
  /** A fresh id; the message gets it unless the thread already has a larger one (then one above that: see `append`). */
  readonly id: string
  readonly threadId: string
  readonly userId: string
  readonly parentId: string | null
  /** The parent by its external_id, in place of (or beside, then it must agree with) parentId. */
  readonly parentExternalId: string | null
  /** The client's own id for the message: when the thread has it already, nothing is written. */
  readonly externalId: string | null
  readonly format: string
  /** The content, already serialized: it is stored as sent. */
  readonly contentJson: string
  /** Its searchable text (src/platform/text/SearchText.ts), empty when there is none. */
  readonly searchText: string
}

/**
 * The parent named is not a message of the thread (`field` says how it was
 * named), or parent_id and parent_external_id name different messages.
 */
export class ParentRefused extends Data.TaggedError("ParentRefused")<{
  readonly field: "parent_id" | "parent_external_id"
  readonly disagree: boolean
}> {}

/**
 * A concurrent append committed the same external_id after this statement's
 * snapshot: nothing was written, and a new statement finds that message.
 */
export class ExternalIdTaken extends Data.TaggedError("ExternalIdTaken")<{}> {}

/** The id given was not above the thread's largest: nothing was written. */
class IdNotAfterLast extends Data.TaggedError("IdNotAfterLast")<{}> {}

/**
 * What an append did: stored the message, or found the thread's message with its external_id
 * (Existing); the use case turns an Existing whose format or content differ into Replaced.
 */
export type AppendOutcome =
  | { readonly _tag: "Created"; readonly id: string }
  | { readonly _tag: "Existing"; readonly id: string }
  | { readonly _tag: "Replaced"; readonly id: string }

interface AppendRow {
  readonly thread_found: boolean
  readonly id: string | null
  readonly existing_id: string | null
  readonly stale: boolean | null
  readonly parent_found: boolean
  readonly parent_external_id: string | null
}

/** The outcome of the append statement's row (see `append`). */
const appendOutcome = (
  message: NewMessage,
  row: AppendRow | undefined
): Effect.Effect<AppendOutcome, RowNotFound | IdNotAfterLast | ParentRefused | ExternalIdTaken> => {
  if (!row?.thread_found) return Effect.fail(new RowNotFound({ what: "thread" }))
  if (row.id !== null) return Effect.succeed({ _tag: "Created", id: row.id })
  if (row.existing_id !== null) return Effect.succeed({ _tag: "Existing", id: row.existing_id })
  if (row.stale) return Effect.fail(new IdNotAfterLast())
  const byId = message.parentId !== null
  if ((byId || message.parentExternalId !== null) && !row.parent_found) {
    return Effect.fail(new ParentRefused({ field: byId ? "parent_id" : "parent_external_id", disagree: false }))
  }
  if (byId && message.parentExternalId !== null && row.parent_external_id !== message.parentExternalId) {
    return Effect.fail(new ParentRefused({ field: "parent_external_id", disagree: true }))
  }
  return Effect.fail(new ExternalIdTaken())
}

/**
 * SQL for a new id above `last` (an expression naming a prefixed ULID) that keeps the random part of `given`
 * (the id this append chose, not above `last`): `last`'s millisecond plus one, then `given`'s 80 random bits.
 * Not `last` plus one: that is the next id of the sequence of the process that made `last`, which that process
 * may give to another thread's message (the primary key is per project). Keeping `given`'s random bits lets
 * an append cut off from the store find out whether it was stored (`findAppended`).
 */
const idAboveSql = (last: string, given: string): string => `(
  SELECT v.prefix || string_agg(substr(v.digits, mod(div(v.above, 32::numeric ^ (10 - i)), 32)::int + 1, 1), ''
    ORDER BY i) || v.rest
  FROM (
    SELECT p.prefix, p.digits, p.rest, 1
      + (SELECT sum((strpos(p.digits, substr(p.body, j, 1)) - 1) * 32::numeric ^ (10 - j))
        FROM generate_series(1, 10) j) AS above
    FROM (SELECT coalesce(substring(${last} FROM '^.*_'), '') AS prefix, substring(${last} FROM '[^_]*$') AS body,
      substr(substring(${given} FROM '[^_]*$'), 11) AS rest, '${ALPHABET}'::text AS digits) p
  ) v, generate_series(1, 10) i
  GROUP BY v.prefix, v.rest)`

/**
 * A message row as JSON-ready text: content as JSON text and timestamps as
 * ISO 8601 strings formatted by the database, so a page of 200 is written out
 * without parsing and re-serializing (measured in bench/).
 */
export interface MessageRow {
  readonly id: string
  readonly parent_id: string | null
  readonly external_id: string | null
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
     * thread (named by id or by external_id), inserts at parent height + 1,
     * and moves the thread's last_message_at forward. When the thread already
     * has a message with the external_id, nothing is written and that
     * message is the outcome.
     *
     * The id must be above the thread's largest so far
     * (`threads.last_message_id`, checked under the thread's row lock), so
     * within a thread ids grow in commit order: an id made before another but
     * committed after it (concurrent appends) would otherwise sort before a
     * message a reader has already paged past. The first statement writes
     * the id given when it is above; when it is not (another append committed
     * a later one first, or another gateway's clock runs ahead), nothing is
     * written and a second statement takes the lock again and has the
     * database make the id above the largest while it holds it, so an append
     * never loses to others twice. Only the second carries that expression:
     * PostgreSQL parses and plans it on every statement, which would slow
     * every append for the few that need it.
     *
     * Appends with one external_id queue on the same lock, but the second's
     * snapshot predates the first's commit: the unique index stops its
     * insert, and ExternalIdTaken asks for a new statement, which sees it.
     */
    const appendStatement = (
      scope: TenantScope,
      message: NewMessage,
      idUnderLock: boolean
    ): Effect.Effect<AppendOutcome, RowNotFound | IdNotAfterLast | ParentRefused | ExternalIdTaken | SqlError> => {
      const id = idUnderLock ? sql`next.id` : sql`${message.id}::text`
      // t's row is locked (and re-read if another append changed it while this one waited), so its
      // last_message_id stays the thread's largest until this transaction ends.
      const next = idUnderLock
        ? sql`, next AS (
            SELECT CASE WHEN t.last_message_id IS NULL OR ${message.id}::text > t.last_message_id THEN ${message.id}::text
              ELSE ${sql.literal(idAboveSql("t.last_message_id", "g.given"))} END AS id
            FROM t, (SELECT ${message.id}::text AS given) g
          )`
        : sql``
      const withNext = idUnderLock ? sql`, next` : sql``
      return sql<AppendRow>`
        WITH t AS (
          -- The thread row first (the bump below updates it anyway), then the
          -- parent: the order a thread delete takes them, so the two cannot deadlock.
          SELECT id, last_message_id FROM threads
          WHERE project_id = ${scope.projectId} AND workspace_id = ${scope.workspaceId} AND id = ${message.threadId}
          FOR NO KEY UPDATE
        ), dup AS (
          SELECT m.id FROM messages m JOIN t ON m.thread_id = t.id
          WHERE m.project_id = ${scope.projectId} AND m.external_id = ${message.externalId}::text
        ), p AS (
          SELECT id, height, external_id FROM messages
          WHERE project_id = ${scope.projectId} AND thread_id = ${message.threadId}
            AND id = COALESCE(${message.parentId}::text, (SELECT id FROM messages
              WHERE project_id = ${scope.projectId} AND thread_id = ${message.threadId}
                AND external_id = ${message.parentExternalId}::text))
          -- A parent being deleted meanwhile is waited for, then not found.
          FOR KEY SHARE
        )${next}, ins AS (
          INSERT INTO messages (project_id, thread_id, id, parent_id, user_id, height, format, content, search_tsv,
            external_id)
          SELECT ${scope.projectId}, t.id, ${id}, (SELECT id FROM p), ${message.userId},
            COALESCE((SELECT height + 1 FROM p), 0), ${message.format}, ${message.contentJson}::jsonb,
            ${tsvectorOf(sql, message.searchText)}, ${message.externalId}
          FROM t${withNext}
          WHERE NOT EXISTS (SELECT 1 FROM dup)
            AND ((${message.parentId}::text IS NULL AND ${message.parentExternalId}::text IS NULL)
              OR EXISTS (SELECT 1 FROM p WHERE ${message.parentExternalId}::text IS NULL
                OR p.external_id = ${message.parentExternalId}::text))
            AND (t.last_message_id IS NULL OR ${id} > t.last_message_id)
          ON CONFLICT (project_id, thread_id, external_id) WHERE external_id IS NOT NULL DO NOTHING
          RETURNING id, created_at
        ), bump AS (
          UPDATE threads SET last_message_at = GREATEST(threads.last_message_at, ins.created_at),
            updated_at = ins.created_at, last_message_id = ins.id
          FROM ins
          WHERE threads.project_id = ${scope.projectId} AND threads.id = ${message.threadId}
        )
        SELECT EXISTS (SELECT 1 FROM t) AS thread_found, (SELECT id FROM ins) AS id,
          (SELECT id FROM dup) AS existing_id,
          (SELECT t.last_message_id IS NOT NULL AND NOT (${id} > t.last_message_id) FROM t${withNext}) AS stale,
          EXISTS (SELECT 1 FROM p) AS parent_found, (SELECT external_id FROM p) AS parent_external_id`.pipe(
        Effect.flatMap(([row]) => appendOutcome(message, row)),
        // The thread was deleted between the check and the insert.
        Effect.catchIf(isReferenceGone, () => Effect.fail(new RowNotFound({ what: "thread" })))
      )
    }

    /** See appendStatement: the id given, else one made under the thread's lock. */
    const append = (scope: TenantScope, message: NewMessage) =>
      appendStatement(scope, message, false).pipe(
        Effect.catchTag("IdNotAfterLast", () => appendStatement(scope, message, true)),
        // The id made under the lock is above the largest by construction.
        Effect.catchTag("IdNotAfterLast", () => Effect.dieMessage("no message id above the last"))
      )

    /**
     * A page of a thread's messages, oldest first, or newest first with `order: "desc"` (by id, which
     * grows in commit order within a thread: see `append`); `after` is a keyset cursor in that order.
     * With maxBytes, the page ends at the first message that takes the page's content past maxBytes
     * (that one included): the database still measures up to `limit` rows, but a reader that cuts pages
     * to a size receives no more than it can keep (decisions.md "MCP").
     */
    const list = (
      projectId: string,
      threadId: string,
      options: {
        readonly limit: number
        readonly format: string | undefined
        readonly after: string | undefined
        readonly order?: MessageListOrder | undefined
        readonly maxBytes?: number | undefined
      }
    ) => {
      const desc = options.order === "desc"
      // Both orders walk the primary key (project_id, thread_id, id), forwards or backwards.
      const direction = desc ? sql.literal("DESC") : sql.literal("ASC")
      const cursor =
        options.after === undefined ? sql`` : desc ? sql`AND id < ${options.after}` : sql`AND id > ${options.after}`
      const page = sql<MessageRow>`SELECT id, parent_id, external_id, height,
          ${sql.literal(isoTimestampSql("created_at"))} AS created_at,
          ${sql.literal(isoTimestampSql("updated_at"))} AS updated_at,
          format, content::text AS content
        FROM messages
        WHERE project_id = ${projectId} AND thread_id = ${threadId}
          ${options.format === undefined ? sql`` : sql`AND format = ${options.format}`}
          ${cursor}
        ORDER BY id ${direction} LIMIT ${options.limit}`
      if (options.maxBytes === undefined) return page
      return sql<MessageRow>`SELECT id, parent_id, external_id, height, created_at, updated_at, format, content
        FROM (SELECT page.*, sum(octet_length(page.content)) OVER (ORDER BY page.id ${direction} ROWS UNBOUNDED PRECEDING)
            - octet_length(page.content) AS read_before
          FROM (${page}) AS page) AS counted
        WHERE read_before <= ${options.maxBytes}
        ORDER BY id ${direction}`
    }

    /**
     * A re-post of a message by its external_id (`append` found it): its format, content and
     * searchable text become the request's when they differ (jsonb equality: key order and spacing
     * do not count), and `updated_at` moves; an identical re-post writes nothing. `found` is false
     * when the message went (deleted) since the append looked.
     */
    const replaceIfChanged = (
      projectId: string,
      threadId: string,
      id: string,
      message: Pick<NewMessage, "format" | "contentJson" | "searchText">
    ) =>
      sql<{ found: boolean; replaced: boolean }>`
        WITH m AS (
          SELECT id, format, content FROM messages
          WHERE project_id = ${projectId} AND thread_id = ${threadId} AND id = ${id}
          FOR NO KEY UPDATE
        ), upd AS (
          UPDATE messages SET format = ${message.format}, content = ${message.contentJson}::jsonb,
            search_tsv = ${tsvectorOf(sql, message.searchText)}, updated_at = now()
          FROM m
          WHERE messages.project_id = ${projectId} AND messages.thread_id = ${threadId} AND messages.id = m.id
            AND (m.format <> ${message.format} OR m.content <> ${message.contentJson}::jsonb)
          RETURNING 1
        )
        SELECT EXISTS (SELECT 1 FROM m) AS found, EXISTS (SELECT 1 FROM upd) AS replaced`.pipe(
        Effect.map(([row]) => ({ found: row?.found ?? false, replaced: row?.replaced ?? false }))
      )

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

    /**
     * The message an append that chose `givenId` stored, if any: `givenId` itself, or the id made under
     * the thread's lock, which is above it and keeps its random part (idAboveSql). For an append cut off
     * from the store (Messages.create).
     */
    const findAppended = (projectId: string, threadId: string, givenId: string) =>
      sql<{ id: string }>`SELECT id FROM messages
        WHERE project_id = ${projectId} AND thread_id = ${threadId} AND id >= ${givenId}
          AND right(id, 16) = right(${givenId}, 16)
        ORDER BY id LIMIT 1`.pipe(Effect.map(([row]) => Option.fromNullable(row?.id)))

    return {
      append: fn("MessagesRepo.append")(append, Effect.catchTag("SqlError", Effect.die)),
      findAppended: fn("MessagesRepo.findAppended")(findAppended, Effect.orDie),
      list: fn("MessagesRepo.list")(list, Effect.orDie),
      replaceIfChanged: fn("MessagesRepo.replaceIfChanged")(replaceIfChanged, Effect.orDie),
      updateContent: fn("MessagesRepo.updateContent")(updateContent, Effect.catchTag("SqlError", Effect.die)),
      removeWithDescendants: fn("MessagesRepo.removeWithDescendants")(removeWithDescendants, Effect.orDie)
    } as const
  })
}) {}
