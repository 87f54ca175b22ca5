import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import { fn } from "../telemetry/Traced.js"

/** A periodic job's row: its schedule, its lease and what its last run did. */
export interface JobRow {
  readonly name: string
  readonly next_run_at: Date
  readonly lease_until: Date | null
  readonly leased_by: string | null
  readonly last_started_at: Date | null
  readonly last_finished_at: Date | null
  readonly last_items: number | null
  readonly last_error: string | null
  readonly runs: number
  readonly failures: number
  readonly items_total: number
}

/** What one run did, written back to the job's row. */
export interface RunRecord {
  readonly startedAt: Date
  readonly finishedAt: Date
  readonly items: number
  readonly error: string | null
}

const COLUMNS = `name, next_run_at, lease_until, leased_by, last_started_at, last_finished_at,
  last_items::float8 AS last_items, last_error, runs::float8 AS runs, failures::float8 AS failures,
  items_total::float8 AS items_total`

/**
 * The `jobs` table. Times come from the gateway's clock (parameters, not
 * now()), so that tests can move it and every gateway's view of "due" is
 * its own clock's.
 */
export class JobsRepo extends Effect.Service<JobsRepo>()("svc/JobsRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const columns = sql.literal(COLUMNS)
    return {
      /** A row for each job not seen before, due at `now`. */
      ensure: fn("JobsRepo.ensure")(
        (names: ReadonlyArray<string>, now: Date) =>
          Effect.forEach(
            names,
            (name) => sql`INSERT INTO jobs (name, next_run_at) VALUES (${name}, ${now}) ON CONFLICT (name) DO NOTHING`,
            { discard: true }
          ),
        Effect.orDie
      ),
      list: sql<JobRow>`SELECT ${columns} FROM jobs ORDER BY name`.pipe(Effect.orDie, Effect.withSpan("JobsRepo.list")),
      /**
       * Takes the job if it is due and nobody holds it: FOR UPDATE SKIP LOCKED
       * makes a second gateway asking at the same moment skip the row rather
       * than wait, and the lease then keeps it off until the holder finishes
       * (or the lease runs out, when the holder died).
       */
      claimDue: fn("JobsRepo.claimDue")(
        (name: string, holder: string, now: Date, leaseUntil: Date) =>
          sql<{ name: string }>`UPDATE jobs SET lease_until = ${leaseUntil}, leased_by = ${holder}
            WHERE name IN (
              SELECT name FROM jobs
              WHERE name = ${name} AND next_run_at <= ${now} AND (lease_until IS NULL OR lease_until <= ${now})
              FOR UPDATE SKIP LOCKED)
            RETURNING name`.pipe(Effect.map((rows) => rows.length > 0)),
        Effect.orDie
      ),
      /**
       * Moves the end of `holder`'s lease on the job (src/platform/jobs/Lease.ts): false
       * when the row is another holder's now. An expired lease nobody took yet
       * is still the holder's.
       */
      renew: fn("JobsRepo.renew")(
        (name: string, holder: string, leaseUntil: Date) =>
          sql<{ name: string }>`UPDATE jobs SET lease_until = ${leaseUntil}
            WHERE name = ${name} AND leased_by = ${holder}
            RETURNING name`.pipe(Effect.map((rows) => rows.length > 0)),
        Effect.orDie
      ),
      /**
       * Records a run. `release` (a scheduled run): if `holder` still holds the
       * job, its lease ends and the next run is set (a holder that lost its
       * lease leaves both to the new holder); a run on demand leaves both as
       * they are.
       */
      record: fn("JobsRepo.record")(
        (name: string, run: RunRecord, release: { readonly holder: string; readonly nextRunAt: Date } | undefined) =>
          sql`UPDATE jobs SET
              last_started_at = ${run.startedAt}, last_finished_at = ${run.finishedAt},
              last_items = ${run.items}, last_error = ${run.error},
              runs = runs + 1, failures = failures + ${run.error === null ? 0 : 1},
              items_total = items_total + ${run.items}
              ${
                release === undefined
                  ? sql``
                  : sql`, next_run_at = CASE WHEN leased_by = ${release.holder} THEN ${release.nextRunAt}
                        ELSE next_run_at END,
                      lease_until = CASE WHEN leased_by = ${release.holder} THEN NULL ELSE lease_until END,
                      leased_by = CASE WHEN leased_by = ${release.holder} THEN NULL ELSE leased_by END`
              }
            WHERE name = ${name}`.pipe(Effect.asVoid),
        Effect.orDie
      )
    } as const
  })
}) {}
