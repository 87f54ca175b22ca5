import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/**
 * Usage rollups (docs/decisions.md "Project read API and usage"): one row per
 * project, UTC day and user with that user's counts for the day. A day's
 * figures are a sum over its rows, and its active users are its rows, so test
 * users (by the project's prefixes, which may change) are left out at read
 * time without rescanning any data.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE projects ADD COLUMN test_user_prefixes text[] NOT NULL DEFAULT '{}'`
  yield* sql`
    CREATE TABLE usage_daily (
      project_id text NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
      day date NOT NULL,
      user_id text NOT NULL,
      threads bigint NOT NULL DEFAULT 0,
      messages bigint NOT NULL DEFAULT 0,
      runs bigint NOT NULL DEFAULT 0,
      run_errors bigint NOT NULL DEFAULT 0,
      input_tokens bigint NOT NULL DEFAULT 0,
      output_tokens bigint NOT NULL DEFAULT 0,
      events bigint NOT NULL DEFAULT 0,
      title_generations bigint NOT NULL DEFAULT 0,
      PRIMARY KEY (project_id, day, user_id)
    )`
})
