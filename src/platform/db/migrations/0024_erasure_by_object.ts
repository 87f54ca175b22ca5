import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/**
 * Erasure of one user, by object and resumable (docs/decisions.md, "Erasure
 * of one user").
 *
 * - `webhook_deliveries.object_id`: the id of the object a delivery carries
 *   (the thread, message, run, score or feedback; none for alert.fired),
 *   written with the delivery. An erasure deletes the deliveries of exactly
 *   the objects it deletes, whoever wrote them: another user's reply erased
 *   as a descendant of the user's message goes with its deliveries. The rows
 *   there get it from their bodies (`data.id`). The indexes by user and by
 *   thread served the former matching only, and cost every delivery insert.
 * - `user_erasures.finished_at` is null while an erasure runs: the record is
 *   written when it starts, and its counts grow with each batch in the
 *   batch's transaction. An erasure cut short (a crash, a failure) leaves it
 *   unfinished, and the next erasure of that user continues it: one
 *   unfinished record per user and project (a partial unique index).
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE webhook_deliveries ADD COLUMN object_id text`
  yield* sql`UPDATE webhook_deliveries SET object_id = body::jsonb -> 'data' ->> 'id'
    WHERE event_type IN ('thread.created', 'message.created', 'run.created', 'score.created', 'feedback.created')`
  yield* sql`CREATE INDEX webhook_deliveries_object ON webhook_deliveries (project_id, object_id)
    WHERE object_id IS NOT NULL`
  yield* sql`DROP INDEX webhook_deliveries_user`
  yield* sql`DROP INDEX webhook_deliveries_thread`
  yield* sql`ALTER TABLE user_erasures ALTER COLUMN finished_at DROP NOT NULL, ALTER COLUMN finished_at DROP DEFAULT`
  yield* sql`CREATE UNIQUE INDEX user_erasures_unfinished ON user_erasures (project_id, user_sha256)
    WHERE finished_at IS NULL`
})
