import { randomUUID } from "node:crypto"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import { AppConfig } from "../platform/Config.js"
import type { Job, JobResult } from "../platform/jobs/Jobs.js"
import { heldRows, LEASE_MS, withLease } from "../platform/jobs/Lease.js"
import { exponentialBackoff } from "../platform/jobs/Queue.js"
import { type AttemptResult, type ClaimedDelivery, OutboxRepo } from "./OutboxRepo.js"
import { deliver } from "./WebhookSender.js"

/** Deliveries claimed at once, and sent at once. */
const BATCH = 20
const CONCURRENCY = 10
/** A pass stops claiming after this long (so that the gateway's other jobs, run one after another, get their turn). */
const PASS_BUDGET_MS = 60_000
/** After failed attempt n: 30 s, 1 min, 2 min, ... at most an hour, until the delivery's 24 hours are over. */
export const webhookBackoff = exponentialBackoff(30_000, 3_600_000)

/**
 * The `webhooks` job: sends due deliveries (the outbox rows written with
 * the events), records each attempt in the delivery log, and schedules the
 * next one after a failure, or gives up once its 24 hours are over.
 */
export class WebhookJob extends Effect.Service<WebhookJob>()("svc/WebhookJob", {
  dependencies: [OutboxRepo.Default],
  effect: Effect.gen(function* () {
    const repo = yield* OutboxRepo
    const allowPrivate = yield* AppConfig.webhookAllowPrivate
    const holder = randomUUID()
    const nowMs = Clock.currentTimeMillis

    const keyOf = (row: { readonly project_id: string; readonly id: string }) => `${row.project_id}/${row.id}`

    /** Sends one delivery and records the attempt; `done` lets its lease go first (src/platform/jobs/Lease.ts heldRows). */
    const attempt = (item: ClaimedDelivery, done: (item: ClaimedDelivery) => void, details: Record<string, number>) =>
      Effect.gen(function* () {
        const startedAt = yield* nowMs
        const outcome = yield* Effect.promise(() =>
          deliver({ url: item.url, secret: item.secret, id: item.id, body: item.body, nowMs: startedAt, allowPrivate })
        )
        const at = yield* nowMs
        const attempts = item.attempts + 1
        const next = at + webhookBackoff(attempts)
        const result: AttemptResult =
          outcome.error === null
            ? { _tag: "Delivered" }
            : next > item.retry_until.getTime()
              ? { _tag: "Failed" }
              : { _tag: "Retry", at: new Date(next) }
        done(item)
        yield* repo.recordAttempt(
          item.project_id,
          item.id,
          holder,
          {
            at: new Date(startedAt).toISOString(),
            status_code: outcome.statusCode,
            error: outcome.error,
            duration_ms: outcome.durationMs
          },
          result,
          new Date(at)
        )
        const kind = result._tag === "Delivered" ? "delivered" : result._tag === "Failed" ? "failed" : "retried"
        details[kind] = (details[kind] ?? 0) + 1
      })

    const pass = Effect.gen(function* () {
      const deadline = (yield* nowMs) + PASS_BUDGET_MS
      const details: Record<string, number> = { delivered: 0, retried: 0, failed: 0 }
      while ((yield* nowMs) < deadline) {
        const at = yield* nowMs
        const claimed = yield* repo.claim(holder, new Date(at), new Date(at + LEASE_MS), BATCH)
        const held = heldRows(claimed, keyOf)
        // Leases renewed while the batch is sent; if another gateway took one, this pass stops (the rest lapse to it).
        const sent = yield* Effect.forEach(claimed, (item) => attempt(item, held.done, details), {
          concurrency: CONCURRENCY,
          discard: true
        }).pipe(
          withLease(
            "webhook deliveries",
            held.renewal((rows, until) => Effect.map(repo.renew(holder, rows, until), (moved) => moved.map(keyOf)))
          ),
          Effect.as(true),
          Effect.catchTag("LeaseLost", (lost) =>
            Effect.as(Effect.logWarning(`webhooks pass stopped: ${lost.message}`), false)
          )
        )
        if (!sent || claimed.length < BATCH) break
      }
      details.pending = yield* repo.pending
      const result: JobResult = {
        items: (details.delivered ?? 0) + (details.retried ?? 0) + (details.failed ?? 0),
        details
      }
      return result
    }).pipe(Effect.withSpan("WebhookJob.pass"))

    /** Every poll of the runner (JOBS_POLL_SECONDS) finds it due. */
    const job: Job = { name: "webhooks", intervalMs: 1_000, run: pass }
    return { job } as const
  })
}) {}
