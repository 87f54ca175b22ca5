import { randomUUID } from "node:crypto"
import * as SqlClient from "@effect/sql/SqlClient"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import { fn } from "../telemetry/Traced.js"
import { heldRows, LEASE_MS, withLease } from "./Lease.js"

/** A queued item as its handler sees it. */
export interface QueueItem {
  readonly id: number
  readonly kind: string
  readonly project_id: string | null
  readonly payload: unknown
  /** 1 on the first try. */
  readonly attempts: number
}

export interface DrainOptions {
  /** Items claimed at once (each leased to this gateway, the lease renewed until the item is done: src/platform/jobs/Lease.ts). */
  readonly batch: number
  /** Attempts before the item is kept as failed. */
  readonly maxAttempts: number
  /** The wait before attempt `attempts + 1`. */
  readonly backoffMs: (attempts: number) => number
}

export interface DrainResult {
  readonly done: number
  readonly retried: number
  readonly failed: number
}

/** Exponential: 30 s, 1 min, 2 min, ... capped at one hour. */
export const exponentialBackoff =
  (baseMs = 30_000, capMs = 3_600_000) =>
  (attempts: number): number =>
    Math.min(capMs, baseMs * 2 ** Math.max(0, attempts - 1))

const errorText = (error: unknown): string =>
  (error instanceof Error ? error.message : typeof error === "string" ? error : JSON.stringify(error)).slice(0, 1_000)

/**
 * The outbox (`job_queue`). `enqueue` runs on the caller's connection, so
 * inside the caller's transaction the item commits or rolls back with the
 * data that caused it. `drain` claims due items with FOR UPDATE SKIP LOCKED
 * under a lease (renewed on a heartbeat while the batch is handled), runs the
 * handler on each, and deletes it when done; a failure is retried after a
 * backoff, and after the last attempt the item stays with `failed_at` and
 * the error.
 */
export class Queue extends Effect.Service<Queue>()("svc/Queue", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    /** Who holds a claimed item: this process. */
    const holder = randomUUID()
    const now = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms))

    const enqueue = fn("Queue.enqueue")(function* (
      kind: string,
      projectId: string | null,
      payload: unknown,
      delayMs = 0
    ) {
      const at = yield* now
      yield* sql`INSERT INTO job_queue (kind, project_id, payload, available_at)
          VALUES (${kind}, ${projectId}, ${JSON.stringify(payload)}::jsonb, ${new Date(at.getTime() + delayMs)})`
    }, Effect.orDie)

    const claim = (kind: string, options: DrainOptions, at: Date) =>
      sql<QueueItem>`UPDATE job_queue SET lease_until = ${new Date(at.getTime() + LEASE_MS)},
          leased_by = ${holder}, attempts = attempts + 1
        WHERE id IN (
          SELECT id FROM job_queue
          WHERE kind = ${kind} AND failed_at IS NULL AND available_at <= ${at}
            AND (lease_until IS NULL OR lease_until <= ${at})
          ORDER BY available_at, id LIMIT ${options.batch}
          FOR UPDATE SKIP LOCKED)
        RETURNING id::float8 AS id, kind, project_id, payload, attempts`.pipe(Effect.orDie)

    /** Moves the leases of `items` this gateway still holds to `until`: the ids it moved. */
    const renew = (items: ReadonlyArray<QueueItem>, until: Date) =>
      sql<{ id: string }>`UPDATE job_queue SET lease_until = ${until}
        WHERE id IN ${sql.in(items.map((item) => item.id))} AND leased_by = ${holder}
        RETURNING id::text AS id`.pipe(
        Effect.map((rows) => rows.map((row) => row.id)),
        Effect.orDie
      )

    /**
     * Claims due items of `kind` once (one batch) and handles them one after
     * another, renewing the leases of those not done yet. If another gateway
     * took one (this one stalled past the lease), the batch stops there: the
     * rest is left to their leases.
     */
    const drain = <E, R>(
      kind: string,
      handle: (item: QueueItem) => Effect.Effect<void, E, R>,
      options: DrainOptions
    ): Effect.Effect<DrainResult, never, R> =>
      Effect.gen(function* () {
        const items = yield* claim(kind, options, yield* now)
        const held = heldRows(items, (item) => String(item.id))
        const result = { done: 0, retried: 0, failed: 0 }
        const handleAll = Effect.gen(function* () {
          for (const item of items) {
            const outcome = yield* Effect.either(handle(item))
            const at = yield* now
            held.done(item)
            if (outcome._tag === "Right") {
              yield* sql`DELETE FROM job_queue WHERE id = ${item.id} AND leased_by = ${holder}`.pipe(Effect.orDie)
              result.done++
            } else if (item.attempts >= options.maxAttempts) {
              yield* sql`UPDATE job_queue SET failed_at = ${at}, last_error = ${errorText(outcome.left)},
                  lease_until = NULL, leased_by = NULL
                WHERE id = ${item.id} AND leased_by = ${holder}`.pipe(Effect.orDie)
              result.failed++
            } else {
              yield* sql`UPDATE job_queue SET
                  available_at = ${new Date(at.getTime() + options.backoffMs(item.attempts))},
                  last_error = ${errorText(outcome.left)}, lease_until = NULL, leased_by = NULL
                WHERE id = ${item.id} AND leased_by = ${holder}`.pipe(Effect.orDie)
              result.retried++
            }
          }
        })
        yield* handleAll.pipe(
          withLease(`queue items (${kind})`, held.renewal(renew)),
          Effect.catchTag("LeaseLost", (lost) => Effect.logWarning(`the ${kind} batch stopped: ${lost.message}`))
        )
        return result
      }).pipe(Effect.withSpan("Queue.drain", { attributes: { kind } }))

    /** Items of `kind` waiting (not failed) and kept as failed. */
    const counts = fn("Queue.counts")(function* (kind: string) {
      const [row] = yield* sql<{ waiting: number; failed: number }>`SELECT
            count(*) FILTER (WHERE failed_at IS NULL)::int AS waiting,
            count(*) FILTER (WHERE failed_at IS NOT NULL)::int AS failed
          FROM job_queue WHERE kind = ${kind}`
      return { waiting: row?.waiting ?? 0, failed: row?.failed ?? 0 }
    }, Effect.orDie)

    return { enqueue, drain, counts, holder } as const
  })
}) {}
