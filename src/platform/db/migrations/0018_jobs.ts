import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/**
 * The job runner (src/platform/jobs/) and the settings it acts on.
 *
 * - `jobs`: one row per periodic job: when it runs next, who holds it (a
 *   lease, so a gateway that dies mid-run lets another take it after the
 *   lease), and what its last run did. Gateways on one store claim a due
 *   row with FOR UPDATE SKIP LOCKED, so each run happens once.
 * - `job_queue`: the outbox. Items are written in the same transaction as
 *   the data that caused them, claimed with SKIP LOCKED under a lease,
 *   retried with backoff, and kept as failed (failed_at) after the last
 *   attempt.
 * - projects: the retention setting (days, null: forever) with the value
 *   that holds until a shorter one takes effect, and the topic ceiling.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE jobs (
      name text PRIMARY KEY,
      next_run_at timestamptz NOT NULL,
      lease_until timestamptz,
      leased_by text,
      last_started_at timestamptz,
      last_finished_at timestamptz,
      last_items bigint,
      last_error text,
      runs bigint NOT NULL DEFAULT 0,
      failures bigint NOT NULL DEFAULT 0,
      items_total bigint NOT NULL DEFAULT 0
    )`
  yield* sql`
    CREATE TABLE job_queue (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      kind text NOT NULL,
      project_id text,
      payload jsonb NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      available_at timestamptz NOT NULL,
      attempts integer NOT NULL DEFAULT 0,
      lease_until timestamptz,
      leased_by text,
      last_error text,
      failed_at timestamptz
    )`
  yield* sql`CREATE INDEX job_queue_due ON job_queue (kind, available_at) WHERE failed_at IS NULL`
  yield* sql`ALTER TABLE projects ADD COLUMN retention_days integer, ADD COLUMN retention_prior_days integer,
    ADD COLUMN retention_effective_at timestamptz, ADD COLUMN topic_ceiling integer NOT NULL DEFAULT 30`
  // Retention finds what is past the cutoff without a thread (thread rows cascade).
  yield* sql`CREATE INDEX runs_threadless_age ON runs (project_id, created_at) WHERE thread_id IS NULL`
  yield* sql`CREATE INDEX events_threadless_age ON events (project_id, created_at) WHERE thread_id IS NULL`
})
