import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/**
 * Alert rules (docs/decisions.md, "Alert rules").
 *
 * - `alert_rules`: a project's rules (as many as its plan allows, a rule of
 *   src/alerts/Alerts.ts), the signing secret of their own deliveries (kept as is,
 *   as webhook secrets are), the last evaluation and the last firing. The
 *   firing is guarded by a conditional UPDATE of `last_fired_at`, so it
 *   happens once per cooldown whatever the number of gateways.
 * - `alert_history`: one row per firing (value, threshold, window; no
 *   content), written in the transaction that sets `last_fired_at`, with the
 *   id of the delivery written beside it.
 * - `webhook_deliveries` rows belong to a webhook or to an alert rule (exactly
 *   one of the two), so a firing's delivery is in the same outbox, claimed,
 *   retried and logged by the `webhooks` job like any other.
 * - Negative feedback is counted by `updated_at` (a replaced feedback counts
 *   when it turns negative): a small partial index for it. Runs have
 *   (project_id, created_at, id) already (0021); events and messages are
 *   bounded by their time-sortable primary key, so they need none.
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE alert_rules (
      project_id text NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
      id text NOT NULL,
      name text NOT NULL,
      metric text NOT NULL,
      comparison text NOT NULL,
      threshold double precision NOT NULL,
      window_minutes integer NOT NULL,
      cooldown_minutes integer NOT NULL,
      filters jsonb NOT NULL DEFAULT '{}',
      webhook_url text NOT NULL,
      secret text NOT NULL,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      last_checked_at timestamptz,
      last_value double precision,
      last_fired_at timestamptz,
      PRIMARY KEY (project_id, id)
    )`
  // The job's pass: every rule, the least recently checked first.
  yield* sql`CREATE INDEX alert_rules_check ON alert_rules (last_checked_at NULLS FIRST)`
  yield* sql`
    CREATE TABLE alert_history (
      project_id text NOT NULL,
      id text NOT NULL,
      rule_id text NOT NULL,
      metric text NOT NULL,
      comparison text NOT NULL,
      threshold double precision NOT NULL,
      value double precision NOT NULL,
      window_minutes integer NOT NULL,
      window_start timestamptz NOT NULL,
      window_end timestamptz NOT NULL,
      fired_at timestamptz NOT NULL,
      delivery_id text,
      PRIMARY KEY (project_id, id),
      FOREIGN KEY (project_id, rule_id) REFERENCES alert_rules (project_id, id) ON DELETE CASCADE
    )`
  yield* sql`CREATE INDEX alert_history_rule ON alert_history (project_id, rule_id, id DESC)`
  yield* sql`
    ALTER TABLE webhook_deliveries
      ALTER COLUMN webhook_id DROP NOT NULL,
      ADD COLUMN alert_rule_id text,
      ADD CONSTRAINT webhook_deliveries_alert_rule FOREIGN KEY (project_id, alert_rule_id)
        REFERENCES alert_rules (project_id, id) ON DELETE CASCADE,
      ADD CONSTRAINT webhook_deliveries_one_owner CHECK ((webhook_id IS NULL) <> (alert_rule_id IS NULL))`
  // A rule's deliveries: its history's join, and the cascade when it is deleted.
  yield* sql`CREATE INDEX webhook_deliveries_alert_rule ON webhook_deliveries (project_id, alert_rule_id)
    WHERE alert_rule_id IS NOT NULL`
  yield* sql`CREATE INDEX message_feedback_negative ON message_feedback (project_id, updated_at)
    WHERE type = 'negative'`
})
