import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/**
 * Outgoing webhooks (docs/decisions.md, "Webhooks").
 *
 * - `webhooks`: a project's subscriptions: destination URL, the event types,
 *   and the signing secret (`whsec_` + base64), kept as is because every
 *   delivery signs with it.
 * - `webhook_deliveries`: one row per event and subscription, written in
 *   the transaction of the data that caused it. It is the delivery log and
 *   the outbox at once: due rows are claimed with FOR UPDATE SKIP LOCKED
 *   under a lease, each attempt is appended to `attempt_log`, and the row
 *   ends `delivered` (a 2xx) or `failed` (24 hours of failures). The body is
 *   kept as the exact text that is signed and sent; `user_id` and
 *   `thread_id` name the user whose object it carries and the thread it is
 *   in, so that an erasure deletes it with them.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE webhooks (
      project_id text NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
      id text NOT NULL,
      url text NOT NULL,
      events text[] NOT NULL,
      secret text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (project_id, id)
    )`
  yield* sql`
    CREATE TABLE webhook_deliveries (
      project_id text NOT NULL,
      id text NOT NULL,
      webhook_id text NOT NULL,
      event_type text NOT NULL,
      body text NOT NULL,
      user_id text,
      thread_id text,
      created_at timestamptz NOT NULL,
      status text NOT NULL DEFAULT 'pending',
      attempts integer NOT NULL DEFAULT 0,
      attempt_log jsonb NOT NULL DEFAULT '[]',
      next_attempt_at timestamptz,
      retry_until timestamptz NOT NULL,
      lease_until timestamptz,
      leased_by text,
      finished_at timestamptz,
      PRIMARY KEY (project_id, id),
      FOREIGN KEY (project_id, webhook_id) REFERENCES webhooks (project_id, id) ON DELETE CASCADE
    )`
  // The job's claim: due pending rows across projects, oldest first.
  yield* sql`CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending'`
  // An erasure's: the deliveries that carry a user's objects.
  yield* sql`CREATE INDEX webhook_deliveries_user ON webhook_deliveries (project_id, user_id) WHERE user_id IS NOT NULL`
  yield* sql`CREATE INDEX webhook_deliveries_thread ON webhook_deliveries (project_id, thread_id)
    WHERE thread_id IS NOT NULL`
  // The delivery log of one subscription, newest first.
  yield* sql`CREATE INDEX webhook_deliveries_log ON webhook_deliveries (project_id, webhook_id, id DESC)`
})
