/**
 * Migration 0014 indexes what a gateway stored before search existed: every
 * svc/v0 and ai-sdk/v6 message (in batches of 500) and every titled thread,
 * unspaced scripts a character a word, other formats left out. Later
 * migrations of the messages table leave those vectors as they are.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { describe, expect, it } from "vitest"
import * as Database from "../../../src/platform/db/Database.js"
import searchMigration from "../../../src/platform/db/migrations/0014_search.js"
import messageExternalIds from "../../../src/platform/db/migrations/0015_message_external_ids.js"
import { stores } from "../../support/layers.js"

describe.each(stores)("search migration ($name)", (storeUnderTest) => {
  it("indexes the messages and titles stored before it, across batches", async () => {
    const { store, drop } = await storeUnderTest.make()
    try {
      const counts = await Effect.runPromise(
        Effect.scoped(
          Effect.gen(function* () {
            const context = yield* Layer.build(Database.layerFor(store, 2))
            const sql = Effect.runSync(Effect.provide(SqlClient.SqlClient, context))
            // Back to the schema before 0014 (the columns go with their indexes), with rows in it.
            yield* sql`ALTER TABLE messages DROP COLUMN search_tsv`
            yield* sql`ALTER TABLE threads DROP COLUMN search_tsv`
            yield* sql`INSERT INTO projects (id, name) VALUES ('proj_m', 'migrated')`
            yield* sql`INSERT INTO threads (project_id, id, workspace_id, user_id, title, last_message_at)
              SELECT 'proj_m', 'thread_' || i, 'ws', 'u', CASE WHEN i % 2 = 0 THEN '北京 trip ' || i END, now()
              FROM generate_series(1, 3) AS i`
            yield* sql`INSERT INTO messages (project_id, thread_id, id, user_id, height, format, content)
              SELECT 'proj_m', 'thread_' || (1 + i % 3), 'msg_' || lpad(i::text, 5, '0'), 'u', 0,
                CASE i % 3 WHEN 0 THEN 'svc/v0' WHEN 1 THEN 'ai-sdk/v6' ELSE 'custom/v1' END,
                CASE i % 3
                  WHEN 0 THEN jsonb_build_object('role', 'user', 'content', '我们去上海 number' || i)
                  WHEN 1 THEN jsonb_build_object('role', 'user', 'parts',
                    jsonb_build_array(jsonb_build_object('type', 'text', 'text', 'wombat ' || i)))
                  ELSE jsonb_build_object('text', 'wombat hidden') END
              FROM generate_series(1, 1200) AS i`
            yield* searchMigration.pipe(Effect.provideService(SqlClient.SqlClient, sql))
            const [row] = yield* sql<{ indexed: number; shanghai: number; wombat: number; titles: number }>`
              SELECT
                (SELECT count(*)::int FROM messages WHERE search_tsv IS NOT NULL) AS indexed,
                (SELECT count(*)::int FROM messages
                  WHERE search_tsv @@ websearch_to_tsquery('simple', '"上 海"')) AS shanghai,
                (SELECT count(*)::int FROM messages WHERE search_tsv @@ websearch_to_tsquery('simple', 'wombat')) AS wombat,
                (SELECT count(*)::int FROM threads
                  WHERE search_tsv @@ websearch_to_tsquery('simple', '"北 京" trip')) AS titles`
            return row
          })
        )
      )
      // 400 svc/v0 and 400 ai-sdk/v6 messages; the 400 custom/v1 ones are not indexed.
      expect(counts).toEqual({ indexed: 800, shanghai: 400, wombat: 400, titles: 1 })
    } finally {
      await drop()
    }
  })

  it("0015 (message external ids) leaves the search vectors of the messages stored before it as they were", async () => {
    const { store, drop } = await storeUnderTest.make()
    try {
      const [before, after] = await Effect.runPromise(
        Effect.scoped(
          Effect.gen(function* () {
            const context = yield* Layer.build(Database.layerFor(store, 2))
            const sql = Effect.runSync(Effect.provide(SqlClient.SqlClient, context))
            // Back to the schema before 0015 (the index goes with the column), with indexed rows in it.
            yield* sql`ALTER TABLE messages DROP COLUMN external_id`
            yield* sql`INSERT INTO projects (id, name) VALUES ('proj_e', 'external')`
            yield* sql`INSERT INTO threads (project_id, id, workspace_id, user_id, last_message_at)
              VALUES ('proj_e', 'thread_e', 'ws', 'u', now())`
            yield* sql`INSERT INTO messages (project_id, thread_id, id, user_id, height, format, content, search_tsv)
              SELECT 'proj_e', 'thread_e', 'msg_' || lpad(i::text, 4, '0'), 'u', 0, 'svc/v0', '{}',
                to_tsvector('simple', 'wombat ' || i)
              FROM generate_series(1, 50) AS i`
            const state = sql<{ vectors: string; wombat: number }>`
              SELECT string_agg(search_tsv::text, '|' ORDER BY id) AS vectors,
                count(*) FILTER (WHERE search_tsv @@ websearch_to_tsquery('simple', 'wombat'))::int AS wombat
              FROM messages WHERE project_id = 'proj_e'`
            const [before] = yield* state
            yield* messageExternalIds.pipe(Effect.provideService(SqlClient.SqlClient, sql))
            const [after] = yield* state
            const [added] = yield* sql<{ external_ids: number; unique_index: number }>`
              SELECT (SELECT count(external_id)::int FROM messages) AS external_ids,
                (SELECT count(*)::int FROM pg_indexes
                  WHERE indexname = 'messages_thread_external' AND indexdef LIKE 'CREATE UNIQUE INDEX%') AS unique_index`
            expect(added).toEqual({ external_ids: 0, unique_index: 1 })
            return [before, after]
          })
        )
      )
      expect(before?.wombat).toBe(50)
      expect(after).toEqual(before)
    } finally {
      await drop()
    }
  })
})
