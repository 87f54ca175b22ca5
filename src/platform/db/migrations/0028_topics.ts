import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/**
 * Topics (issue 26, docs/decisions.md "Topics"): a project's topics of the
 * last full run, the model that places new threads between runs, and each
 * thread's topic on the thread itself (so that a topic's threads page over
 * one index, in the thread list's order).
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE topics (
      project_id text NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
      id text NOT NULL,
      label text NOT NULL,
      keywords jsonb NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (project_id, id)
    )`
  yield* sql`
    CREATE TABLE topic_models (
      project_id text PRIMARY KEY REFERENCES projects (id) ON DELETE CASCADE,
      computed_at timestamptz NOT NULL,
      -- the full run read threads started in [window_from, window_to)
      window_from timestamptz NOT NULL,
      window_to timestamptz NOT NULL,
      -- threads started since window_to are placed up to this position (created_at, id)
      placed_at timestamptz NOT NULL,
      placed_id text NOT NULL DEFAULT '',
      ceiling integer NOT NULL,
      threads integer NOT NULL,
      -- the centroids and term weights that place new threads (src/topics/Clustering.ts, members left out)
      model text NOT NULL
    )`
  yield* sql`ALTER TABLE threads ADD COLUMN topic_id text`
  yield* sql`CREATE INDEX threads_topic_recent ON threads (project_id, topic_id, last_message_at DESC, id DESC)
    WHERE topic_id IS NOT NULL`
  // The window's threads by start (last_message_at is the client's to set, so it cannot bound them):
  // what a full run reads, what placement walks and what a topic's figures count.
  yield* sql`CREATE INDEX threads_project_started ON threads (project_id, created_at, id)`
})
