import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/**
 * Dashboard sessions (docs/dashboard.md "Sign-in and session"): only the
 * SHA-256 of the cookie's secret is stored. A project session names the API
 * key that opened it, so that revoking the key ends it; an admin session
 * keeps the hash of the ADMIN_TOKEN it was opened with, so that changing
 * the token ends it. `last_used_at` drives the idle expiry.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE dashboard_sessions (
      id_hash text PRIMARY KEY,
      kind text NOT NULL CHECK (kind IN ('admin', 'project')),
      project_id text REFERENCES projects (id) ON DELETE CASCADE,
      api_key_id text,
      admin_token_hash text,
      created_at timestamptz NOT NULL DEFAULT now(),
      last_used_at timestamptz NOT NULL DEFAULT now(),
      CHECK ((kind = 'admin') = (project_id IS NULL))
    )`
  yield* sql`CREATE INDEX dashboard_sessions_idle ON dashboard_sessions (last_used_at)`
})
