import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/**
 * Evaluators (docs/decisions.md "Evaluators").
 *
 * - `evaluators`: one row per evaluator of a project (at most 20, a rule of
 *   src/evaluators/Evaluators.ts), its categories as JSON, and its cursor: the
 *   (created_at, id) of the last target (run or thread) it has looked at.
 *   A new evaluator starts at its own creation, so it labels new targets only.
 * - `evaluations`: one row per evaluator and target it evaluated (the primary
 *   key is the "at most once"): scored (with the score's id), no_match,
 *   retrying (a model call failed; `next_attempt_at` after a backoff) or
 *   failed (after the last attempt, with the error). Targets left out by the
 *   sampling rate have no row.
 * - Indexes over (project_id, created_at, id) of runs and threads, which the
 *   cursors walk.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE evaluators (
      project_id text NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
      id text NOT NULL,
      name text NOT NULL,
      kind text NOT NULL,
      target text NOT NULL,
      field text NOT NULL,
      sampling_rate double precision NOT NULL,
      categories jsonb NOT NULL,
      prompt text,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      cursor_at timestamptz NOT NULL DEFAULT now(),
      cursor_id text NOT NULL DEFAULT '',
      PRIMARY KEY (project_id, id),
      UNIQUE (project_id, name)
    )`
  yield* sql`
    CREATE TABLE evaluations (
      project_id text NOT NULL,
      evaluator_id text NOT NULL,
      target_id text NOT NULL,
      status text NOT NULL,
      category text,
      score_id text,
      attempts integer NOT NULL DEFAULT 1,
      next_attempt_at timestamptz,
      last_error text,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (project_id, evaluator_id, target_id),
      FOREIGN KEY (project_id, evaluator_id) REFERENCES evaluators (project_id, id) ON DELETE CASCADE
    )`
  yield* sql`CREATE INDEX evaluations_retrying ON evaluations (project_id, evaluator_id, next_attempt_at)
    WHERE status = 'retrying'`
  yield* sql`CREATE INDEX runs_project_created ON runs (project_id, created_at, id)`
  yield* sql`CREATE INDEX threads_project_created ON threads (project_id, created_at, id)`
})
