import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/** A project's own identity provider, trusted beside the service's tokens. */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE project_issuers (
      project_id text PRIMARY KEY REFERENCES projects (id) ON DELETE CASCADE,
      issuer text NOT NULL,
      jwks_url text NOT NULL,
      audience text NOT NULL,
      user_claim text NOT NULL,
      workspace_claim text,
      updated_at timestamptz NOT NULL DEFAULT now()
    )`
})
