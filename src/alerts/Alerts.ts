import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { Plan } from "../../schema/Admin.js"
import {
  ALERT_LIMITS,
  type AlertFiring,
  type AlertRule,
  type AlertRuleCreated,
  type AlertRuleInput
} from "../../schema/Alerts.js"
import { Conflict, invalid, notFound } from "../../schema/Errors.js"
import { AppConfig } from "../platform/Config.js"
import { ulid } from "../platform/Ids.js"
import { fn } from "../platform/telemetry/Traced.js"
import { Projects } from "../projects/Projects.js"
import { refusedHost } from "../webhooks/WebhookAddress.js"
import { newSecret } from "../webhooks/WebhookSender.js"
import { type AlertRuleRow, type AlertRuleSettings, AlertsRepo, type FiringRow } from "./AlertsRepo.js"

const now = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms))

export const ruleOf = (row: AlertRuleRow): AlertRule => ({
  rule_id: row.id,
  name: row.name,
  metric: row.metric,
  comparison: row.comparison,
  threshold: row.threshold,
  window_minutes: row.window_minutes,
  cooldown_minutes: row.cooldown_minutes,
  filters: row.filters,
  webhook_url: row.webhook_url,
  created_at: row.created_at,
  updated_at: row.updated_at,
  last_checked_at: row.last_checked_at,
  last_value: row.last_value,
  last_fired_at: row.last_fired_at
})

const firingOf = (row: FiringRow): AlertFiring => ({
  firing_id: row.id,
  rule_id: row.rule_id,
  metric: row.metric,
  comparison: row.comparison,
  threshold: row.threshold,
  value: row.value,
  window_minutes: row.window_minutes,
  window_start: row.window_start,
  window_end: row.window_end,
  fired_at: row.fired_at,
  delivery:
    row.delivery === null
      ? null
      : {
          id: row.delivery.id,
          status:
            row.delivery.status === "delivered" ? "delivered" : row.delivery.status === "failed" ? "failed" : "pending",
          attempts: row.delivery.attempts,
          attempt_log: row.delivery.attempt_log.map((entry) => ({
            at: new Date(entry.at),
            status_code: entry.status_code,
            error: entry.error,
            duration_ms: entry.duration_ms
          })),
          next_attempt_at: row.delivery.next_attempt_at,
          finished_at: row.delivery.finished_at
        }
})

const settingsOf = (input: AlertRuleInput): AlertRuleSettings => ({
  name: input.name,
  metric: input.metric,
  comparison: input.comparison,
  threshold: input.threshold,
  window_minutes: input.window_minutes,
  cooldown_minutes: input.cooldown_minutes,
  filters: input.filters ?? {},
  webhook_url: input.webhook_url
})

/** The rules a project's plan allows (an unknown plan: the smallest). */
export const rulesAllowed = (plan: string): number =>
  Schema.is(Plan)(plan) ? ALERT_LIMITS.perPlan[plan] : ALERT_LIMITS.perPlan.hobby

/**
 * Alert rules (docs/decisions.md "Alert rules"): a project's rules,
 * within its plan's count, and their history. Checking and firing is
 * the `alerts` job's (src/alerts/AlertJob.ts).
 */
export class Alerts extends Effect.Service<Alerts>()("svc/Alerts", {
  dependencies: [AlertsRepo.Default, Projects.Default],
  effect: Effect.gen(function* () {
    const repo = yield* AlertsRepo
    const projects = yield* Projects
    const allowPrivate = yield* AppConfig.webhookAllowPrivate

    const requireProject = projects.require

    /** The webhooks' rule (src/webhooks/WebhookAddress.ts): no private, loopback or link-local destination unless allowed. */
    const checkUrl = (url: string) =>
      Effect.gen(function* () {
        if (!URL.canParse(url)) return yield* Effect.fail(invalid("webhook_url is not a valid URL", "webhook_url"))
        const refused = yield* Effect.promise(() => refusedHost(new URL(url).hostname, allowPrivate))
        if (refused !== undefined) return yield* Effect.fail(invalid(`webhook_url refused: ${refused}`, "webhook_url"))
      })

    const create = fn("Alerts.create")(function* (projectId: string, input: AlertRuleInput) {
      yield* requireProject(projectId)
      yield* checkUrl(input.webhook_url)
      const secret = newSecret()
      const at = yield* now
      const row = yield* repo.withTransaction(
        Effect.gen(function* () {
          const plan = yield* repo.lockProject(projectId)
          if (Option.isNone(plan)) return yield* Effect.fail(notFound("project"))
          const allowed = rulesAllowed(plan.value)
          if ((yield* repo.count(projectId)) >= allowed) {
            return yield* Effect.fail(
              new Conflict({
                message: `the ${plan.value} plan allows ${allowed} alert rule${allowed === 1 ? "" : "s"} a project`
              })
            )
          }
          return yield* repo.insert(projectId, `alr_${ulid()}`, settingsOf(input), secret, at)
        })
      )
      if (Option.isNone(row)) return yield* Effect.dieMessage("alert rule insert returned no row")
      const created: AlertRuleCreated = { ...ruleOf(row.value), secret }
      return created
    })

    const list = fn("Alerts.list")(function* (projectId: string) {
      yield* requireProject(projectId)
      return (yield* repo.list(projectId)).map(ruleOf)
    })

    const update = fn("Alerts.update")(function* (projectId: string, ruleId: string, input: AlertRuleInput) {
      yield* requireProject(projectId)
      yield* checkUrl(input.webhook_url)
      const row = yield* repo.update(projectId, ruleId, settingsOf(input), yield* now)
      if (Option.isNone(row)) return yield* Effect.fail(notFound("alert rule"))
      return ruleOf(row.value)
    })

    const remove = fn("Alerts.remove")(function* (projectId: string, ruleId: string) {
      yield* requireProject(projectId)
      if (!(yield* repo.remove(projectId, ruleId))) return yield* Effect.fail(notFound("alert rule"))
    })

    const history = fn("Alerts.history")(function* (projectId: string, ruleId: string) {
      yield* requireProject(projectId)
      if (!(yield* repo.exists(projectId, ruleId))) return yield* Effect.fail(notFound("alert rule"))
      return (yield* repo.history(projectId, ruleId, ALERT_LIMITS.historyListed)).map(firingOf)
    })

    return { create, list, update, remove, history, count: repo.count } as const
  })
}) {}
