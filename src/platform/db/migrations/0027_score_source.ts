import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/**
 * A score's `source` (docs/decisions.md "Dashboard") is `evaluator` when an
 * evaluation names it: this index answers that per score instead of a scan
 * of the project's evaluations. Partial: most evaluations score nothing.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE INDEX evaluations_score ON evaluations (project_id, score_id) WHERE score_id IS NOT NULL`
})
