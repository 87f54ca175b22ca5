import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/**
 * A span's resource and scope, stored once per export and distinct value
 * instead of once per span (docs/decisions.md "Traces (OTLP/HTTP)"): a
 * 16 KB resource shared by the 80,000 tiny spans a 4 MB export can carry
 * would otherwise be 1.3 GB of rows (and as much memory to write them).
 *
 * - `span_resources` rows are made by the export that stores their spans,
 *   in its transaction, and never referenced by a later export: so nothing
 *   can come to reference a row the retention job or an erasure is deleting.
 *   Their `stored_at` is their spans' (one transaction's `now()`), so the
 *   retention job deletes them by age right after the spans.
 * - `spans.resource_id` names the row; (project_id, resource_id) is indexed
 *   so that an erasure can tell which rows its deleted spans left unused.
 * - Existing spans move over: one row per project and distinct (resource,
 *   scope), named by the MD5 of the pair's jsonb text, with its newest span's
 *   `stored_at` (retention must not delete it while newer spans use it).
 *   This rewrites every span row once; on a large table, plan the upgrade's
 *   start time accordingly (docs/operations: upgrades).
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE span_resources (
      project_id text NOT NULL,
      id text NOT NULL,
      resource jsonb NOT NULL,
      scope jsonb NOT NULL,
      stored_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (project_id, id)
    )`
  yield* sql`CREATE INDEX span_resources_retention ON span_resources (project_id, stored_at)`
  yield* sql`ALTER TABLE spans ADD COLUMN resource_id text`
  yield* sql`
    INSERT INTO span_resources (project_id, id, resource, scope, stored_at)
    SELECT project_id, md5(jsonb_build_array(resource, scope)::text), resource, scope, max(stored_at)
    FROM spans GROUP BY project_id, resource, scope
    ON CONFLICT DO NOTHING`
  yield* sql`UPDATE spans SET resource_id = md5(jsonb_build_array(resource, scope)::text)`
  yield* sql`ALTER TABLE spans ALTER COLUMN resource_id SET NOT NULL`
  yield* sql`ALTER TABLE spans DROP COLUMN resource`
  yield* sql`ALTER TABLE spans DROP COLUMN scope`
  yield* sql`CREATE INDEX spans_resource ON spans (project_id, resource_id)`
})
