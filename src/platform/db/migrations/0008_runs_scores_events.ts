import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/**
 * Run reports, scores and engagement events. Each belongs to a thread where it
 * names one, and goes with it (docs/decisions.md "Tenancy"). Ids are
 * time-sortable, so (project, id DESC) is newest first and every project list
 * filter has an index that leads with it.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE runs (
      project_id text NOT NULL,
      id text NOT NULL,
      thread_id text NOT NULL,
      workspace_id text NOT NULL,
      user_id text NOT NULL,
      message_id text,
      status text NOT NULL,
      outcome_type text,
      model_id text,
      provider text,
      provider_type text,
      input_tokens bigint,
      output_tokens bigint,
      reasoning_tokens bigint,
      cached_input_tokens bigint,
      duration_ms bigint,
      first_token_ms bigint,
      total_steps integer,
      tool_call_count integer NOT NULL DEFAULT 0,
      error text,
      error_code text,
      trace_id text,
      tags text[] NOT NULL DEFAULT '{}',
      environment text,
      release text,
      -- attributes, metadata, steps, tool_calls, sampling_calls, output_text
      detail jsonb NOT NULL,
      idempotency_key text,
      request_hash text,
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (project_id, id),
      FOREIGN KEY (project_id, thread_id) REFERENCES threads (project_id, id) ON DELETE CASCADE
    )`
  yield* sql`CREATE UNIQUE INDEX runs_idempotency ON runs (project_id, workspace_id, idempotency_key) WHERE idempotency_key IS NOT NULL`
  yield* sql`CREATE INDEX runs_project_recent ON runs (project_id, id DESC)`
  yield* sql`CREATE INDEX runs_project_thread ON runs (project_id, thread_id, id DESC)`
  yield* sql`CREATE INDEX runs_project_status ON runs (project_id, status, id DESC)`
  yield* sql`CREATE INDEX runs_project_model ON runs (project_id, model_id, id DESC)`
  yield* sql`CREATE INDEX runs_project_trace ON runs (project_id, trace_id) WHERE trace_id IS NOT NULL`
  yield* sql`
    CREATE TABLE scores (
      project_id text NOT NULL,
      id text NOT NULL,
      workspace_id text NOT NULL,
      user_id text NOT NULL,
      name text NOT NULL,
      data_type text NOT NULL,
      value double precision,
      string_value text,
      comment text,
      thread_id text,
      message_id text,
      run_id text,
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (project_id, id),
      FOREIGN KEY (project_id, thread_id) REFERENCES threads (project_id, id) ON DELETE CASCADE,
      FOREIGN KEY (project_id, message_id) REFERENCES messages (project_id, id) ON DELETE CASCADE,
      FOREIGN KEY (project_id, run_id) REFERENCES runs (project_id, id) ON DELETE CASCADE
    )`
  yield* sql`CREATE INDEX scores_project_recent ON scores (project_id, id DESC)`
  yield* sql`CREATE INDEX scores_project_name ON scores (project_id, name, id DESC)`
  yield* sql`CREATE INDEX scores_project_thread ON scores (project_id, thread_id, id DESC)`
  yield* sql`CREATE INDEX scores_project_message ON scores (project_id, message_id, id DESC)`
  yield* sql`CREATE INDEX scores_project_run ON scores (project_id, run_id, id DESC)`
  yield* sql`
    CREATE TABLE events (
      project_id text NOT NULL,
      id text NOT NULL,
      workspace_id text NOT NULL,
      user_id text NOT NULL,
      kind text NOT NULL,
      client_id text,
      thread_id text,
      message_id text,
      run_id text,
      value bigint,
      props jsonb,
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (project_id, id),
      FOREIGN KEY (project_id, thread_id) REFERENCES threads (project_id, id) ON DELETE CASCADE
    )`
  // An event id sent again (a keepalive retried by the browser) is stored once.
  yield* sql`CREATE UNIQUE INDEX events_client_id ON events (project_id, user_id, client_id) WHERE client_id IS NOT NULL`
  yield* sql`CREATE INDEX events_project_thread ON events (project_id, thread_id) WHERE thread_id IS NOT NULL`
})
