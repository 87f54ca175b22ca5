import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/**
 * Scores in the usage rollup (issue 15: an evaluator's scores are "visible
 * in the project scores API and usage"): each day's scores written, by
 * clients or evaluators, per user. Existing rows count 0 (a constant
 * default is metadata only: no row is rewritten).
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE usage_daily ADD COLUMN scores bigint NOT NULL DEFAULT 0`
})
