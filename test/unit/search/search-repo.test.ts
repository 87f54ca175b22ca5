/**
 * SearchRepo ranks at most `messagesRanked` matching messages per query (a
 * word in most of a large project's messages would otherwise rank them all),
 * counted after the tenant and thread filters, so a capped search still
 * only answers the caller's threads.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { describe, expect, it } from "vitest"
import * as Database from "../../../src/platform/db/Database.js"
import { SearchRepo } from "../../../src/search/SearchRepo.js"
import { stores } from "../../support/layers.js"

describe.each(stores)("search ranking cap ($name)", (storeUnderTest) => {
  it("ranks at most messagesRanked matches, after the workspace filter", async () => {
    const { store, drop } = await storeUnderTest.make()
    try {
      const found = await Effect.runPromise(
        Effect.scoped(
          Effect.gen(function* () {
            const context = yield* Layer.build(Layer.provideMerge(SearchRepo.Default, Database.layerFor(store, 2)))
            const sql = Effect.runSync(Effect.provide(SqlClient.SqlClient, context))
            const repo = Effect.runSync(Effect.provide(SearchRepo, context))
            yield* sql`INSERT INTO projects (id, name) VALUES ('proj_cap', 'cap')`
            // 12 threads in ws-a and 12 in ws-b, one matching message each.
            yield* sql`INSERT INTO threads (project_id, id, workspace_id, user_id, last_message_at)
              SELECT 'proj_cap', 'thread_' || lpad(i::text, 3, '0'), CASE WHEN i % 2 = 0 THEN 'ws-a' ELSE 'ws-b' END,
                'u', now()
              FROM generate_series(1, 24) AS i`
            yield* sql`INSERT INTO messages (project_id, thread_id, id, user_id, height, format, content, search_tsv)
              SELECT 'proj_cap', 'thread_' || lpad(i::text, 3, '0'), 'msg_' || lpad(i::text, 3, '0'), 'u', 0, 'svc/v0',
                '{"role":"user","content":"capybara"}', to_tsvector('simple', 'capybara')
              FROM generate_series(1, 24) AS i`
            const search = (workspaceId: string | undefined, messagesRanked: number | undefined) =>
              repo.search({
                projectId: "proj_cap",
                workspaceId,
                tsquery: "capybara",
                rankquery: "capybara",
                isArchived: undefined,
                from: undefined,
                to: undefined,
                limit: 100,
                offset: 0,
                messagesRanked
              })
            return {
              all: (yield* search(undefined, undefined)).length,
              capped: (yield* search(undefined, 5)).length,
              cappedInWorkspace: (yield* search("ws-a", 5)).map((row) => JSON.parse(row.thread).workspace_id)
            }
          })
        )
      )
      expect(found.all).toBe(24)
      expect(found.capped).toBe(5)
      expect(found.cappedInWorkspace).toEqual(["ws-a", "ws-a", "ws-a", "ws-a", "ws-a"])
    } finally {
      await drop()
    }
  })
})
