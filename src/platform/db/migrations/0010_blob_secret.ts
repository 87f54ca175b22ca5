import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/**
 * The HMAC key of the local blob store's signed URLs, when BLOB_SIGNING_SECRET
 * is not set: one row, so every gateway on one store signs alike.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE blob_signing_secret (
      id smallint PRIMARY KEY CHECK (id = 1),
      secret text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    )`
})
