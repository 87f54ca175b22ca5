import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/**
 * Erasure of one user's data (docs/decisions.md, "Erasure of one user").
 *
 * - `user_erasures`: the audit record of each erasure: who asked, when it
 *   started and ended, and the counts deleted per kind. No content, and not
 *   the user id either: its SHA-256 (hex), so one can check whether a given
 *   id was erased without the record keeping it.
 * - Indexes that lead with (project_id, user_id) on every table an erasure
 *   reads by user, so that it never scans a whole project's rows: threads,
 *   messages (the user's messages in other users' threads), feedback, runs,
 *   scores, events and refresh tokens.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE user_erasures (
      project_id text NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
      id text NOT NULL,
      user_sha256 text NOT NULL,
      requested_by text NOT NULL,
      started_at timestamptz NOT NULL,
      finished_at timestamptz NOT NULL DEFAULT now(),
      counts jsonb NOT NULL,
      PRIMARY KEY (project_id, id)
    )`
  yield* sql`CREATE INDEX threads_user ON threads (project_id, user_id)`
  yield* sql`CREATE INDEX messages_user ON messages (project_id, user_id)`
  yield* sql`CREATE INDEX message_feedback_user ON message_feedback (project_id, user_id)`
  yield* sql`CREATE INDEX runs_user ON runs (project_id, user_id) WHERE user_id IS NOT NULL`
  yield* sql`CREATE INDEX scores_user ON scores (project_id, user_id)`
  yield* sql`CREATE INDEX events_user ON events (project_id, user_id)`
  yield* sql`CREATE INDEX refresh_tokens_user ON refresh_tokens (project_id, user_id)`
})
