import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/** Anonymous sessions: refresh tokens, stored only as hashes. */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE refresh_tokens (
      project_id text NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
      id text NOT NULL,
      token_hash text NOT NULL UNIQUE,
      user_id text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      expires_at timestamptz NOT NULL,
      revoked_at timestamptz,
      PRIMARY KEY (project_id, id)
    )`
})
