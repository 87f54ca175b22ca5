import * as Migrator from "@effect/sql/Migrator"
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as Schedule from "effect/Schedule"
import foundation from "./migrations/0001_foundation.js"
import signingKeys from "./migrations/0002_signing_keys.js"
import anonymousSessions from "./migrations/0003_anonymous_sessions.js"
import rateLimits from "./migrations/0004_rate_limits.js"
import allowedOrigins from "./migrations/0005_allowed_origins.js"
import externalIssuers from "./migrations/0006_external_issuers.js"
import usage from "./migrations/0007_usage.js"
import runsScoresEvents from "./migrations/0008_runs_scores_events.js"
import titleQuota from "./migrations/0009_title_quota.js"
import blobSecret from "./migrations/0010_blob_secret.js"
import workspaceClaims from "./migrations/0011_workspace_claims.js"
import messageOrder from "./migrations/0012_message_order.js"
import traces from "./migrations/0013_traces.js"
import search from "./migrations/0014_search.js"
import messageExternalIds from "./migrations/0015_message_external_ids.js"
import threadExternalIds from "./migrations/0016_thread_external_ids.js"
import runCosts from "./migrations/0017_run_costs.js"
import jobs from "./migrations/0018_jobs.js"
import userErasures from "./migrations/0019_user_erasures.js"
import webhooks from "./migrations/0020_webhooks.js"
import evaluators from "./migrations/0021_evaluators.js"
import alertRules from "./migrations/0022_alert_rules.js"
import usageScores from "./migrations/0023_usage_scores.js"
import erasureByObject from "./migrations/0024_erasure_by_object.js"
import spanResources from "./migrations/0025_span_resources.js"
import dashboardSessions from "./migrations/0026_dashboard_sessions.js"
import scoreSource from "./migrations/0027_score_source.js"
import topics from "./migrations/0028_topics.js"
import refreshTokenKey from "./migrations/0029_refresh_token_key.js"

// Static imports: Migrator.fromFileSystem imports .ts natively and fails under vitest.
const migrations = {
  "0001_foundation": foundation,
  "0002_signing_keys": signingKeys,
  "0003_anonymous_sessions": anonymousSessions,
  "0004_rate_limits": rateLimits,
  "0005_allowed_origins": allowedOrigins,
  "0006_external_issuers": externalIssuers,
  "0007_usage": usage,
  "0008_runs_scores_events": runsScoresEvents,
  "0009_title_quota": titleQuota,
  "0010_blob_secret": blobSecret,
  "0011_workspace_claims": workspaceClaims,
  "0012_message_order": messageOrder,
  "0013_traces": traces,
  "0014_search": search,
  "0015_message_external_ids": messageExternalIds,
  "0016_thread_external_ids": threadExternalIds,
  "0017_run_costs": runCosts,
  "0018_jobs": jobs,
  "0019_user_erasures": userErasures,
  "0020_webhooks": webhooks,
  "0021_evaluators": evaluators,
  "0022_alert_rules": alertRules,
  "0023_usage_scores": usageScores,
  "0024_erasure_by_object": erasureByObject,
  "0025_span_resources": spanResources,
  "0026_dashboard_sessions": dashboardSessions,
  "0027_score_source": scoreSource,
  "0028_topics": topics,
  "0029_refresh_token_key": refreshTokenKey
}

/** How many migrations there are: a store they have all run on records this many. */
export const MIGRATION_COUNT = Object.keys(migrations).length

const loader = Migrator.fromRecord(migrations)

const TABLE = "effect_sql_migrations"

/**
 * Runs pending migrations. The migrator serializes concurrent runners with a
 * table lock, which needs the table; gateways starting together could race to
 * create it, so it is created here first (same shape as the migrator's),
 * retried (twice at most) should a concurrent CREATE collide.
 */
export const migrate = Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`CREATE TABLE IF NOT EXISTS ${sql(TABLE)} (
    migration_id integer primary key,
    created_at timestamp with time zone not null default now(),
    name text not null
  )`.pipe(Effect.retry(Schedule.recurs(2)))
  return yield* Migrator.make({})({ loader, table: TABLE })
})
