import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/**
 * Fixed-window request counters, shared by every gateway on the store. Unlogged
 * on PostgreSQL: counters are worth no WAL, and a crash merely resets them.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE UNLOGGED TABLE rate_limit_counters (
      key text NOT NULL,
      window_start bigint NOT NULL,
      hits integer NOT NULL,
      PRIMARY KEY (key, window_start)
    )`
  yield* sql`CREATE INDEX rate_limit_counters_age ON rate_limit_counters (window_start)`
})
