import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/**
 * `POST /v1/threads` with `upsert: true` looks a thread up by its workspace
 * and external_id (docs/decisions.md, "Later 0.2 client calls"). Not a
 * unique index: a create without upsert may still give a workspace two
 * threads with one external_id, as it always could, and stores may hold such
 * pairs already. Upserts of one external_id take turns on an advisory lock
 * instead (ThreadsRepo.insertOrFind).
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE INDEX threads_workspace_external ON threads (project_id, workspace_id, external_id)
    WHERE external_id IS NOT NULL`
})
