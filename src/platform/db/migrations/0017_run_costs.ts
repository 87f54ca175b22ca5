import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/**
 * What later 0.2 clients report on runs (docs/decisions.md, "Later 0.2
 * client calls"): the cost in US dollars, the trace's root span and the user
 * message answered, as columns a run list can show (cost_details goes in the
 * run's detail, like attributes); and each day's cost in the usage rollup.
 * Existing runs have none (null); existing rollup rows cost 0. Neither
 * column rewrites a row (a constant default is metadata only).
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE runs ADD COLUMN cost_usd double precision, ADD COLUMN root_span_id text,
    ADD COLUMN user_message_id text`
  yield* sql`ALTER TABLE usage_daily ADD COLUMN cost_usd double precision NOT NULL DEFAULT 0`
})
