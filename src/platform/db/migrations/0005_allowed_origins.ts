import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/** The browser origins a project's frontend base URL answers (CORS). */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE project_origins (
      project_id text NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
      origin text NOT NULL,
      PRIMARY KEY (project_id, origin)
    )`
})
