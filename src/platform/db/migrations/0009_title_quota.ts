import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/**
 * Generated thread titles per project and UTC calendar month (`month` is its
 * first day), counted against the plan's quota (docs/decisions.md "Titles"). A
 * title reserves one before it is generated, atomically across gateways (a
 * conditional upsert), and gives it back if generation fails or yields nothing.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE title_quota (
      project_id text NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
      month date NOT NULL,
      used integer NOT NULL DEFAULT 0 CHECK (used >= 0),
      PRIMARY KEY (project_id, month)
    )`
})
