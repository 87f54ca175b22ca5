import { randomUUID } from "node:crypto"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import { AppConfig } from "../platform/Config.js"
import type { Job, JobResult } from "../platform/jobs/Jobs.js"
import { heldRows, LEASE_MS, withLease } from "../platform/jobs/Lease.js"
import { exponentialBackoff } from "../platform/jobs/Queue.js"
import { type AttemptResult, type ClaimedDelivery, OutboxRepo, type RecordedAttempt } from "./OutboxRepo.js"
import { deliver } from "./WebhookSender.js"

/**
 * Deliveries claimed at once, and how many of them are on the wire at a
 * time. Their attempts are recorded by statements of at most
 * RECORDED_AT_ONCE, written as attempts end (a slow address holds back
 * only the few recorded with it).
 */
const BATCH = 128
const CONCURRENCY = 32
const RECORDED_AT_ONCE = 32
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

    /** Sends one delivery: the attempt, and what follows from it (recorded by the caller). */
    const attempt = (item: ClaimedDelivery) =>
      Effect.gen(function* () {
        const startedAt = yield* nowMs
        const outcome = yield* Effect.promise(() =>
          deliver({ url: item.url, secret: item.secret, id: item.id, body: item.body, nowMs: startedAt, allowPrivate })
        )
        const at = yield* nowMs
        const next = at + webhookBackoff(item.attempts + 1)
        const result: AttemptResult =
          outcome.error === null
            ? { status: "delivered" }
            : next > item.retry_until.getTime()
              ? { status: "failed" }
              : { status: "pending", at: new Date(next) }
        const recorded: RecordedAttempt = {
          project_id: item.project_id,
          id: item.id,
          entry: {
            at: new Date(startedAt).toISOString(),
            status_code: outcome.statusCode,
            error: outcome.error,
            duration_ms: outcome.durationMs
          },
          result,
          at: new Date(at)
        }
        return recorded
      })

    /** One claim's deliveries sent and recorded: false when another gateway took some of them (the pass stops). */
    const batch = (claimed: ReadonlyArray<ClaimedDelivery>, details: Record<string, number>) => {
      const held = heldRows(claimed, keyOf)
      const ended: Array<{ readonly item: ClaimedDelivery; readonly recorded: RecordedAttempt }> = []
      // Lets the ended rows' leases go first (src/platform/jobs/Lease.ts heldRows), then records them in one statement.
      const record = Effect.suspend(() => {
        const chunk = ended.splice(0)
        if (chunk.length === 0) return Effect.void
        for (const { item } of chunk) held.done(item)
        return repo.recordAttempts(
          holder,
          chunk.map(({ recorded }) => recorded)
        )
      })
      const send = (item: ClaimedDelivery) =>
        Effect.flatMap(attempt(item), (recorded) => {
          const kind = recorded.result.status === "pending" ? "retried" : recorded.result.status
          details[kind] = (details[kind] ?? 0) + 1
          ended.push({ item, recorded })
          return ended.length >= RECORDED_AT_ONCE ? record : Effect.void
        })
      // Leases renewed while the batch is sent; if another gateway took one, the pass stops (the rest lapse to it).
      return Effect.forEach(claimed, send, { concurrency: CONCURRENCY, discard: true }).pipe(
        Effect.zipRight(record),
        withLease(
          "webhook deliveries",
          held.renewal((rows, until) => Effect.map(repo.renew(holder, rows, until), (moved) => moved.map(keyOf)))
        ),
        Effect.as(true),
        Effect.catchTag("LeaseLost", (lost) =>
          Effect.as(Effect.logWarning(`webhooks pass stopped: ${lost.message}`), false)
        )
      )
    }

    /**
     * Claims and sends until nothing is due (what became due while a batch
     * was sent is claimed by the next), or the budget is spent: then the
     * pass answers `more`, and the runner runs it again at once.
     */
    const pass = Effect.gen(function* () {
      const deadline = (yield* nowMs) + PASS_BUDGET_MS
      const details: Record<string, number> = { delivered: 0, retried: 0, failed: 0 }
      let more = false
      for (;;) {
        const at = yield* nowMs
        if (at >= deadline) {
          more = true
          break
        }
        const claimed = yield* repo.claim(holder, new Date(at), new Date(at + LEASE_MS), BATCH)
        if (claimed.length === 0 || !(yield* batch(claimed, details))) break
      }
      details.pending = yield* repo.pending
      const result: JobResult = {
        items: (details.delivered ?? 0) + (details.retried ?? 0) + (details.failed ?? 0),
        details,
        // At its deadline with nothing left pending (due or not), the pass needs no round of its own at once.
        more: more && details.pending > 0
      }
      return result
    }).pipe(Effect.withSpan("WebhookJob.pass"))

    /** Every poll of the runner (JOBS_POLL_SECONDS) finds it due. */
    const job: Job = { name: "webhooks", intervalMs: 1_000, run: pass }
    return { job } as const
  })
}) {}
