/**
 * How the schema would be sharded by project on a distributed PostgreSQL
 * (Citus or similar; issue 28, docs/operations.md "Sharding by project").
 * Every table is distributed by `project_id` except those named here:
 * its primary key and every unique key start with `project_id`, which is
 * not null, and every foreign key includes it, so each project's rows live
 * on one shard and a project's statements stay on it.
 * test/unit/platform/distribution.test.ts reads the catalogue and fails on a
 * table that breaks this.
 */

/**
 * "reference": small, read by key from every project's statements (a
 * request's API key, the project's settings, the signing keys), so copied
 * to every node. "coordinator": the gateway's own work across projects
 * (job leases, the job queue, rate-limit windows keyed by client address,
 * dashboard sign-ins looked up by cookie, the migrations' record), kept on
 * the coordinator.
 */
export type Placement = "reference" | "coordinator"

export const UNDISTRIBUTED_TABLES: Readonly<Record<string, Placement>> = {
  projects: "reference",
  api_keys: "reference",
  signing_keys: "reference",
  blob_signing_secret: "reference",
  jobs: "coordinator",
  job_queue: "coordinator",
  rate_limit_counters: "coordinator",
  dashboard_sessions: "coordinator",
  effect_sql_migrations: "coordinator"
}
