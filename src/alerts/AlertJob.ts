import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import { type AlertComparison, isRunMetric } from "../../schema/Alerts.js"
import { ulid } from "../platform/Ids.js"
import type { Job, JobResult } from "../platform/jobs/Jobs.js"
import { Outbox } from "../webhooks/Outbox.js"
import { AlertMetricsRepo, type Window } from "./AlertMetricsRepo.js"
import { type AlertRuleRow, AlertsRepo } from "./AlertsRepo.js"

/** Rules read and evaluated at once. */
const BATCH = 50
const CONCURRENCY = 4
/** A pass stops starting batches after this long (within the job's minute; the rest go first next time). */
const PASS_BUDGET_MS = 50_000

/** Whether `value` compares to `threshold` as the rule says; no value (no data) never fires. */
export const holds = (comparison: AlertComparison, value: number | null, threshold: number): boolean => {
  if (value === null) return false
  switch (comparison) {
    case "gt":
      return value > threshold
    case "gte":
      return value >= threshold
    case "lt":
      return value < threshold
    case "lte":
      return value <= threshold
  }
}

/**
 * The `alerts` job (docs/decisions.md "Alert rules"): every minute, each
 * rule out of its cooldown is measured over its window ending now; one whose
 * condition holds fires once, in one transaction: the guarded
 * `last_fired_at`, the history row, the delivery to the rule's webhook_url
 * and one to each webhook subscribed to alert.fired. The `webhooks` job
 * sends them.
 */
export class AlertJob extends Effect.Service<AlertJob>()("svc/AlertJob", {
  dependencies: [AlertsRepo.Default, AlertMetricsRepo.Default, Outbox.Default],
  effect: Effect.gen(function* () {
    const repo = yield* AlertsRepo
    const metrics = yield* AlertMetricsRepo
    const outbox = yield* Outbox
    const nowMs = Clock.currentTimeMillis

    /** The rule's metric over [at - window, at); null when it has no value (a rate or p95 without runs). */
    const measure = (rule: AlertRuleRow, at: Date): Effect.Effect<number | null> => {
      const window: Window = {
        projectId: rule.project_id,
        start: new Date(at.getTime() - rule.window_minutes * 60_000),
        end: at,
        filters: rule.filters
      }
      if (isRunMetric(rule.metric)) {
        return Effect.map(metrics.runs(window), (figures) => {
          switch (rule.metric) {
            case "run_error_rate":
              return figures.runs === 0 ? null : figures.run_errors / figures.runs
            case "run_errors":
              return figures.run_errors
            case "input_tokens":
              return figures.input_tokens
            case "output_tokens":
              return figures.output_tokens
            case "p95_duration_ms":
              return figures.p95_duration_ms
            default:
              return figures.runs
          }
        })
      }
      if (rule.metric === "negative_feedback") return metrics.negativeFeedback(window)
      if (rule.metric === "active_users") return metrics.activeUsers(window)
      if (rule.metric.startsWith("events:")) return metrics.events(window, rule.metric.slice("events:".length))
      return Effect.succeed(null)
    }

    /** Fires the rule (AlertsRepo.claimFiring, then the outbox): answers whether this call fired it. */
    const fire = (rule: AlertRuleRow, value: number, at: Date) => {
      const windowStart = new Date(at.getTime() - rule.window_minutes * 60_000)
      const data = {
        firing_id: `alf_${ulid()}`,
        rule_id: rule.id,
        name: rule.name,
        metric: rule.metric,
        comparison: rule.comparison,
        threshold: rule.threshold,
        value,
        window_minutes: rule.window_minutes,
        window_start: windowStart.toISOString(),
        window_end: at.toISOString(),
        filters: rule.filters,
        fired_at: at.toISOString()
      }
      return repo.withTransaction(
        Effect.gen(function* () {
          if (!(yield* repo.claimFiring(rule, at))) return false
          // The delivery to the rule's own address, the history row, then the project's subscriptions to
          // alert.fired: all in this transaction (the outbox).
          const deliveryId = yield* outbox.toAlertRule(rule.project_id, rule.id, data, at)
          yield* repo.recordFiring({ rule, firingId: data.firing_id, value, windowStart, at, deliveryId })
          yield* outbox.emit(rule.project_id, "alert.fired", data)
          return true
        })
      )
    }

    const pass = Effect.gen(function* () {
      const passStart = new Date(yield* nowMs)
      const deadline = passStart.getTime() + PASS_BUDGET_MS
      const details: Record<string, number> = { checked: 0, fired: 0, suppressed: 0, no_data: 0 }
      const count = (kind: string) => {
        details[kind] = (details[kind] ?? 0) + 1
      }
      while ((yield* nowMs) < deadline) {
        const at = new Date(yield* nowMs)
        const rules = yield* repo.due(passStart, at, BATCH)
        const checks = yield* Effect.forEach(
          rules,
          (rule) =>
            Effect.gen(function* () {
              const value = yield* measure(rule, at)
              count("checked")
              if (value === null) count("no_data")
              if (value !== null && holds(rule.comparison, value, rule.threshold)) {
                count((yield* fire(rule, value, at)) ? "fired" : "suppressed")
              }
              return { projectId: rule.project_id, id: rule.id, value }
            }),
          { concurrency: CONCURRENCY }
        )
        yield* repo.checked(checks, at)
        if (rules.length < BATCH) break
      }
      const result: JobResult = { items: details.checked ?? 0, details }
      return result
    }).pipe(Effect.withSpan("AlertJob.pass"))

    /** Checked every minute, once across every gateway on the store (the runner's claim). */
    const job: Job = { name: "alerts", intervalMs: 60_000, run: pass }
    return { job } as const
  })
}) {}
