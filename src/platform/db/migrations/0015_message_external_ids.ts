import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/**
 * A message's external_id (docs/decisions.md, "Later 0.2 client calls"): the
 * client's own id for it, unique in its thread, so a retried create finds the
 * first and a child can name its parent by it. Messages stored before have
 * none (null), and the unique index leaves them out. The search vector
 * (0014) is not touched: a new nullable column rewrites no row.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE messages ADD COLUMN external_id text`
  yield* sql`CREATE UNIQUE INDEX messages_thread_external ON messages (project_id, thread_id, external_id)
    WHERE external_id IS NOT NULL`
})
