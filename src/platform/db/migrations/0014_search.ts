import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import { indexText, messageText } from "../../text/SearchText.js"

/** Rows read and rewritten per statement while the existing messages and titles are indexed. */
const BATCH = 500

/**
 * Full-text search (docs/decisions.md, "Search"): a tsvector beside each
 * message (its text parts) and each thread (its title, weight A), written
 * with the row from then on, and GIN indexes over them. Existing rows are
 * indexed here, a batch at a time: the indexed form is made by
 * src/platform/text/SearchText.ts (unspaced scripts character by character), not by SQL.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE messages ADD COLUMN search_tsv tsvector`
  yield* sql`ALTER TABLE threads ADD COLUMN search_tsv tsvector`

  let after: { project_id: string; thread_id: string; id: string } | undefined
  for (;;) {
    const rows = yield* sql<{
      project_id: string
      thread_id: string
      id: string
      format: string
      content: unknown
    }>`SELECT project_id, thread_id, id, format, content FROM messages
        WHERE format IN ('svc/v0', 'ai-sdk/v6')
          ${after === undefined ? sql`` : sql`AND (project_id, thread_id, id) > (${after.project_id}, ${after.thread_id}, ${after.id})`}
        ORDER BY project_id, thread_id, id LIMIT ${BATCH}`
    if (rows.length === 0) break
    const texts = rows.map((row) => ({
      project_id: row.project_id,
      thread_id: row.thread_id,
      id: row.id,
      text: indexText(messageText(row.format, row.content))
    }))
    yield* sql`UPDATE messages m SET search_tsv = to_tsvector('simple', v.text)
      FROM jsonb_to_recordset(${JSON.stringify(texts)}::jsonb) AS v(project_id text, thread_id text, id text, text text)
      WHERE m.project_id = v.project_id AND m.thread_id = v.thread_id AND m.id = v.id AND v.text <> ''`
    const last = rows[rows.length - 1]
    after = last === undefined ? undefined : { project_id: last.project_id, thread_id: last.thread_id, id: last.id }
    if (rows.length < BATCH) break
  }

  let afterThread: { project_id: string; id: string } | undefined
  for (;;) {
    const rows = yield* sql<{
      project_id: string
      id: string
      title: string
    }>`SELECT project_id, id, title FROM threads WHERE title IS NOT NULL AND btrim(title) <> ''
        ${afterThread === undefined ? sql`` : sql`AND (project_id, id) > (${afterThread.project_id}, ${afterThread.id})`}
        ORDER BY project_id, id LIMIT ${BATCH}`
    if (rows.length === 0) break
    const titles = rows.map((row) => ({ project_id: row.project_id, id: row.id, text: indexText(row.title) }))
    yield* sql`UPDATE threads t SET search_tsv = setweight(to_tsvector('simple', v.text), 'A')
      FROM jsonb_to_recordset(${JSON.stringify(titles)}::jsonb) AS v(project_id text, id text, text text)
      WHERE t.project_id = v.project_id AND t.id = v.id`
    const last = rows[rows.length - 1]
    afterThread = last === undefined ? undefined : { project_id: last.project_id, id: last.id }
    if (rows.length < BATCH) break
  }

  yield* sql`CREATE INDEX messages_search ON messages USING gin (search_tsv)`
  yield* sql`CREATE INDEX threads_search ON threads USING gin (search_tsv)`
})
