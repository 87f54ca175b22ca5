import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/**
 * OTLP spans and their traces (docs/decisions.md "Traces (OTLP/HTTP)").
 *
 * - `spans` is keyed by (project, trace, span): a re-exported span is stored
 *   once. `stored_at` is the gateway's clock, not the exporter's, and the
 *   retention job deletes a project's spans by it: (project_id, stored_at)
 *   makes that a range delete in bounded batches, never a scan. Time
 *   partitions were not chosen: retention is per project, so no partition
 *   could ever be dropped whole.
 * - `traces` holds one row per trace: what the trace list shows and filters
 *   on, and the count of spans kept, which the 500-span cap reads under the
 *   row's lock so that concurrent exports of one trace take turns.
 * - Runs made from model-call spans carry that span's id; one run per span.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE spans (
      project_id text NOT NULL,
      trace_id text NOT NULL,
      span_id text NOT NULL,
      parent_span_id text,
      trace_state text NOT NULL,
      name text NOT NULL,
      kind smallint NOT NULL,
      start_ns bigint NOT NULL,
      end_ns bigint NOT NULL,
      status_code smallint NOT NULL,
      status_message text NOT NULL,
      service_name text,
      attributes jsonb NOT NULL,
      events jsonb NOT NULL,
      links jsonb NOT NULL,
      resource jsonb NOT NULL,
      scope jsonb NOT NULL,
      -- the convention recognised (gen_ai, ai_sdk, openinference) and the span's role in it
      convention text,
      role text,
      stored_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (project_id, trace_id, span_id)
    )`
  yield* sql`CREATE INDEX spans_retention ON spans (project_id, stored_at)`
  yield* sql`
    CREATE TABLE traces (
      project_id text NOT NULL,
      trace_id text NOT NULL,
      name text NOT NULL,
      has_root boolean NOT NULL DEFAULT false,
      service_name text,
      start_ns bigint NOT NULL,
      end_ns bigint NOT NULL,
      span_count integer NOT NULL DEFAULT 0,
      error_count integer NOT NULL DEFAULT 0,
      stored_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (project_id, trace_id)
    )`
  yield* sql`CREATE INDEX traces_recent ON traces (project_id, start_ns DESC, trace_id DESC)`
  yield* sql`CREATE INDEX traces_service ON traces (project_id, service_name, start_ns DESC, trace_id DESC)`
  yield* sql`CREATE INDEX traces_retention ON traces (project_id, stored_at)`
  // Derived runs may name no thread, so no workspace or user either.
  yield* sql`ALTER TABLE runs ALTER COLUMN thread_id DROP NOT NULL`
  yield* sql`ALTER TABLE runs ALTER COLUMN workspace_id DROP NOT NULL`
  yield* sql`ALTER TABLE runs ALTER COLUMN user_id DROP NOT NULL`
  yield* sql`ALTER TABLE runs ADD COLUMN span_id text`
  yield* sql`CREATE UNIQUE INDEX runs_span ON runs (project_id, trace_id, span_id) WHERE span_id IS NOT NULL`
})
