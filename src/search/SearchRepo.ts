import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import { fn } from "../platform/telemetry/Traced.js"
import { THREAD_JSON_COLUMNS } from "../threads/ThreadColumns.js"

/**
 * Matching messages ranked per query, at most. A word in most of a large
 * project's messages would otherwise rank them all (about a second for
 * 90,000 at 8 concurrent searches, bench:mcp-search); past this many the
 * order is over the first MESSAGES_RANKED the index yields, which for a
 * query that common is no worse a guess. Titles are always all ranked.
 */
export const MESSAGES_RANKED = 10_000

export interface SearchOptions {
  readonly projectId: string
  /** The caller's workspace; undefined searches the whole project. */
  readonly workspaceId: string | undefined
  /** A query in `websearch_to_tsquery` syntax (src/platform/text/SearchText.ts parseQuery). */
  readonly tsquery: string
  /** The same syntax: what the matches are ranked by (the wanted terms, without exclusions). */
  readonly rankquery: string
  readonly isArchived: boolean | undefined
  readonly from: Date | undefined
  readonly to: Date | undefined
  readonly limit: number
  readonly offset: number
  /** Matching messages ranked, at most (MESSAGES_RANKED unless a test says less). */
  readonly messagesRanked?: number | undefined
}

/** A matching thread: its wire JSON, its score, and its best matching message (format and content as JSON text). */
export interface SearchRow {
  readonly thread: string
  readonly title: string | null
  readonly score: number
  readonly message_id: string | null
  readonly format: string | null
  readonly content: string | null
}

export class SearchRepo extends Effect.Service<SearchRepo>()("svc/SearchRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const threadJson = sql.literal(THREAD_JSON_COLUMNS)

    /**
     * Threads whose title or messages match, best first: a thread scores its
     * title's rank (weight A) plus its best message's (weight D), so a title
     * match outranks a passing mention. Both sides are GIN index lookups;
     * only the page's best messages are read in full.
     */
    const search = (options: SearchOptions) => {
      const threadFilter = sql`t.project_id = ${options.projectId}
        ${options.workspaceId === undefined ? sql`` : sql`AND t.workspace_id = ${options.workspaceId}`}
        ${options.isArchived === undefined ? sql`` : sql`AND t.is_archived = ${options.isArchived}`}
        ${options.from === undefined ? sql`` : sql`AND t.last_message_at >= ${options.from.toISOString()}::timestamptz`}
        ${options.to === undefined ? sql`` : sql`AND t.last_message_at < ${options.to.toISOString()}::timestamptz`}`
      return sql<SearchRow>`
        WITH q AS (
          -- A query without a word (punctuation only) matches nothing, not everything.
          SELECT query, websearch_to_tsquery('simple', ${options.rankquery}) AS rank_query
          FROM (SELECT websearch_to_tsquery('simple', ${options.tsquery}) AS query) w
          WHERE numnode(query) > 0
        ),
        titles AS (
          SELECT t.id, ts_rank(t.search_tsv, q.rank_query) AS rank FROM threads t, q
          WHERE ${threadFilter} AND t.search_tsv @@ q.query
        ),
        candidates AS (
          -- At most MESSAGES_RANKED matching messages are ranked (see below).
          SELECT m.thread_id, m.id, m.search_tsv
          FROM messages m JOIN threads t ON t.project_id = m.project_id AND t.id = m.thread_id, q
          WHERE m.project_id = ${options.projectId} AND m.search_tsv @@ q.query AND ${threadFilter}
          LIMIT ${options.messagesRanked ?? MESSAGES_RANKED}
        ),
        messages_hit AS (
          SELECT DISTINCT ON (c.thread_id) c.thread_id, c.id, ts_rank(c.search_tsv, q.rank_query) AS rank
          FROM candidates c, q
          ORDER BY c.thread_id, rank DESC, c.id DESC
        ),
        ranked AS (
          SELECT COALESCE(ti.id, mh.thread_id) AS id, COALESCE(ti.rank, 0) + COALESCE(mh.rank, 0) AS score,
            mh.id AS message_id
          FROM titles ti FULL JOIN messages_hit mh ON mh.thread_id = ti.id
          ORDER BY score DESC, id DESC
          LIMIT ${options.limit} OFFSET ${options.offset}
        )
        SELECT (SELECT row_to_json(j)::text FROM (SELECT ${threadJson} FROM threads
            WHERE project_id = ${options.projectId} AND id = r.id) j) AS thread,
          t.title, r.score::float8 AS score, r.message_id, m.format, m.content::text AS content
        FROM ranked r
        JOIN threads t ON t.project_id = ${options.projectId} AND t.id = r.id
        LEFT JOIN messages m ON m.project_id = ${options.projectId} AND m.thread_id = r.id AND m.id = r.message_id
        ORDER BY r.score DESC, r.id DESC`
    }

    return { search: fn("SearchRepo.search")(search, Effect.orDie) } as const
  })
}) {}
