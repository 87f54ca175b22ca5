import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/**
 * Which workspace an anonymous workspace was claimed into. Attachment keys
 * carry the uploader's workspace (hashed); after a claim the new owner may
 * still download them.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE workspace_claims (
      project_id text NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
      -- The key segment of the claimed workspace: base64url SHA-256 of its id.
      from_segment text NOT NULL,
      to_workspace text NOT NULL,
      claimed_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (project_id, from_segment)
    )`
})
