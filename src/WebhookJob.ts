import { randomUUID } from "node:crypto"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import { AppConfig } from "./Config.js"
import type { Job, JobResult } from "./jobs/Jobs.js"
import { exponentialBackoff } from "./jobs/Queue.js"
import { type AttemptResult, type ClaimedDelivery, WebhooksRepo } from "./storage/WebhooksRepo.js"
import { ATTEMPT_TIMEOUT_MS, deliver } from "./WebhookSender.js"

/** Deliveries claimed at once, and sent at once. */
const BATCH = 20
const CONCURRENCY = 10
/** A claimed delivery is this gateway's for this long (every attempt of a batch ends within ATTEMPT_TIMEOUT_MS). */
const LEASE_MS = 6 * ATTEMPT_TIMEOUT_MS
/** A pass stops claiming after this long (it stays well within the job lease). */
const PASS_BUDGET_MS = 60_000
/** After failed attempt n: 30 s, 1 min, 2 min, ... at most an hour, until the delivery's 24 hours are over. */
export const webhookBackoff = exponentialBackoff(30_000, 3_600_000)

/**
 * The `webhooks` job: sends due deliveries (the outbox rows written with
 * the events), records each attempt in the delivery log, and schedules the
 * next one after a failure, or gives up once its 24 hours are over.
 */
export class WebhookJob extends Effect.Service<WebhookJob>()("svc/WebhookJob", {
  dependencies: [WebhooksRepo.Default],
  effect: Effect.gen(function* () {
    const repo = yield* WebhooksRepo
    const allowPrivate = yield* AppConfig.webhookAllowPrivate
    const holder = randomUUID()
    const nowMs = Clock.currentTimeMillis

    const attempt = (item: ClaimedDelivery) =>
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
        return result._tag
      })

    const pass = Effect.gen(function* () {
      const deadline = (yield* nowMs) + PASS_BUDGET_MS
      const details: Record<string, number> = { delivered: 0, retried: 0, failed: 0 }
      while ((yield* nowMs) < deadline) {
        const at = yield* nowMs
        const claimed = yield* repo.claim(holder, new Date(at), new Date(at + LEASE_MS), BATCH)
        const tags = yield* Effect.forEach(claimed, attempt, { concurrency: CONCURRENCY })
        for (const tag of tags) {
          const kind = tag === "Delivered" ? "delivered" : tag === "Failed" ? "failed" : "retried"
          details[kind] = (details[kind] ?? 0) + 1
        }
        if (claimed.length < BATCH) break
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
