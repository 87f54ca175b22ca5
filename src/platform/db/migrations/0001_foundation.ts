import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/**
 * Projects, API keys, threads, messages, feedback and the SDK client list.
 * Every table carries project_id and leads its keys with it: tenant isolation,
 * and the shard key should a deployment outgrow one PostgreSQL.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE projects (
      id text PRIMARY KEY,
      name text NOT NULL,
      plan text NOT NULL DEFAULT 'hobby',
      created_at timestamptz NOT NULL DEFAULT now()
    )`
  yield* sql`
    CREATE TABLE api_keys (
      project_id text NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
      id text NOT NULL,
      name text,
      prefix text NOT NULL,
      key_hash text NOT NULL UNIQUE,
      created_at timestamptz NOT NULL DEFAULT now(),
      expires_at timestamptz,
      revoked_at timestamptz,
      PRIMARY KEY (project_id, id)
    )`
  yield* sql`
    CREATE TABLE threads (
      project_id text NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
      id text NOT NULL,
      workspace_id text NOT NULL,
      user_id text NOT NULL,
      title text,
      external_id text,
      metadata jsonb NOT NULL DEFAULT '{}',
      is_archived boolean NOT NULL DEFAULT false,
      last_message_at timestamptz NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (project_id, id)
    )`
  // GET /v1/threads: newest activity first, optionally by archive flag.
  yield* sql`CREATE INDEX threads_workspace_recent ON threads (project_id, workspace_id, last_message_at DESC, id DESC)`
  yield* sql`CREATE INDEX threads_workspace_archived_recent ON threads (project_id, workspace_id, is_archived, last_message_at DESC, id DESC)`
  // The project read API lists a whole project.
  yield* sql`CREATE INDEX threads_project_recent ON threads (project_id, last_message_at DESC, id DESC)`
  // A deleted thread's place in the list, so that `after=<its id>` still pages
  // correctly (docs/decisions.md "Wire"). Kept 30 days.
  yield* sql`
    CREATE TABLE thread_tombstones (
      project_id text NOT NULL,
      id text NOT NULL,
      workspace_id text NOT NULL,
      last_message_at timestamptz NOT NULL,
      deleted_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (project_id, id)
    )`
  yield* sql`CREATE INDEX thread_tombstones_age ON thread_tombstones (project_id, deleted_at)`
  yield* sql`
    CREATE TABLE messages (
      project_id text NOT NULL,
      thread_id text NOT NULL,
      id text NOT NULL,
      parent_id text,
      user_id text NOT NULL,
      height integer NOT NULL,
      format text NOT NULL,
      content jsonb NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (project_id, id),
      FOREIGN KEY (project_id, thread_id) REFERENCES threads (project_id, id) ON DELETE CASCADE
    )`
  // Ids are time-sortable, so (thread, id) is creation order.
  yield* sql`CREATE INDEX messages_thread_order ON messages (project_id, thread_id, id)`
  yield* sql`CREATE INDEX messages_thread_format_order ON messages (project_id, thread_id, format, id)`
  yield* sql`CREATE INDEX messages_parent ON messages (project_id, thread_id, parent_id)`
  yield* sql`
    CREATE TABLE message_feedback (
      project_id text NOT NULL,
      id text NOT NULL,
      thread_id text NOT NULL,
      message_id text NOT NULL,
      user_id text NOT NULL,
      type text NOT NULL,
      comment text,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (project_id, id),
      UNIQUE (project_id, message_id, user_id),
      FOREIGN KEY (project_id, message_id) REFERENCES messages (project_id, id) ON DELETE CASCADE
    )`
  yield* sql`
    CREATE TABLE sdk_clients (
      project_id text NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
      name text NOT NULL,
      version text NOT NULL,
      first_seen_at timestamptz NOT NULL DEFAULT now(),
      last_seen_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (project_id, name, version)
    )`
})
