/**
 * Alert rules (docs/decisions.md "Alert rules"): a metric over a window, a
 * threshold, a cooldown, a webhook destination.
 */
import * as Schema from "effect/Schema"
import type { Plan } from "./Admin.js"
import { Timestamp } from "./Common.js"
import { EVENT_KINDS } from "./Event.js"
import { ExampleIds, exampleOf } from "./Examples.js"
import { StorableString } from "./Text.js"
import { DeliveryAttempt, DeliveryStatus, WebhookUrl } from "./Webhooks.js"

/**
 * The limits of alert rules: the count by plan, the window and the cooldown
 * (docs/decisions.md "Alert rules"); the lengths are ours.
 */
export const ALERT_LIMITS = {
  perPlan: { hobby: 1, pro: 20, startup: 100, enterprise: 100 } satisfies Record<Plan, number>,
  windowMinutes: { min: 5, max: 1_440 },
  cooldownMinutes: { min: 5, max: 10_080 },
  nameMaxLength: 255,
  filterMaxLength: 255,
  /** Firings listed at most (newest first). */
  historyListed: 100
} as const

/** The metrics computed from runs: the only ones the filters (model, tag, environment) apply to. */
export const RUN_METRICS = [
  "runs",
  "run_errors",
  "run_error_rate",
  "input_tokens",
  "output_tokens",
  "p95_duration_ms"
] as const
export const PLAIN_METRICS = [...RUN_METRICS, "negative_feedback", "active_users"] as const

const metricList = `${PLAIN_METRICS.join(", ")} or events:<kind> (a kind of ${EVENT_KINDS.join(", ")})`

/** A metric's name: one of PLAIN_METRICS, or `events:` and an event kind. */
export type AlertMetric = (typeof PLAIN_METRICS)[number] | `events:${(typeof EVENT_KINDS)[number]}`

const isAlertMetric = (text: string): text is AlertMetric =>
  (PLAIN_METRICS as ReadonlyArray<string>).includes(text) ||
  (text.startsWith("events:") && (EVENT_KINDS as ReadonlyArray<string>).includes(text.slice("events:".length)))

// One message naming every choice (a union's would name its first member only).
export const AlertMetric = Schema.String.pipe(
  Schema.filter(isAlertMetric, {
    message: () => `metric must be one of ${metricList}`,
    description: `What is measured over the window: ${metricList}.`,
    examples: ["run_errors", "events:error_shown"],
    jsonSchema: { pattern: `^(${PLAIN_METRICS.join("|")}|events:(${EVENT_KINDS.join("|")}))$` }
  })
)

export const isRunMetric = (metric: string): boolean => (RUN_METRICS as ReadonlyArray<string>).includes(metric)

export const ALERT_COMPARISONS = ["gt", "gte", "lt", "lte"] as const
export type AlertComparison = (typeof ALERT_COMPARISONS)[number]

export const AlertComparison = Schema.String.pipe(
  Schema.filter((text): text is AlertComparison => (ALERT_COMPARISONS as ReadonlyArray<string>).includes(text), {
    message: () => `comparison must be one of ${ALERT_COMPARISONS.join(", ")}`,
    description: "gt (>), gte (>=), lt (<) or lte (<=): how the value compares to the threshold when the rule fires",
    jsonSchema: { enum: ALERT_COMPARISONS }
  })
)

const text = (what: string, max: number) =>
  StorableString.pipe(
    Schema.minLength(1, { message: () => `${what} must not be empty` }),
    Schema.maxLength(max, { message: () => `${what} is at most ${max} characters` })
  )

const minutes = (what: string, { max, min }: { readonly min: number; readonly max: number }) =>
  Schema.Number.pipe(
    Schema.filter(
      (n) => (Number.isInteger(n) && n >= min && n <= max) || `${what} is a whole number from ${min} to ${max}`,
      {
        jsonSchema: { type: "integer", minimum: min, maximum: max }
      }
    )
  )

export const AlertFilters = Schema.Struct({
  model_id: Schema.optional(text("filters.model_id", ALERT_LIMITS.filterMaxLength)),
  tag: Schema.optional(text("filters.tag", ALERT_LIMITS.filterMaxLength)),
  environment: Schema.optional(text("filters.environment", ALERT_LIMITS.filterMaxLength))
}).annotations({ parseOptions: { onExcessProperty: "error" } })
export type AlertFilters = typeof AlertFilters.Type

const EXAMPLE_URL = "https://93.184.215.14/hooks/alerts"

const AlertRuleFields = Schema.Struct({
  name: text("name", ALERT_LIMITS.nameMaxLength),
  metric: AlertMetric,
  comparison: AlertComparison,
  threshold: Schema.Number.pipe(
    Schema.filter((n) => (Number.isFinite(n) && n >= 0) || "threshold is a number, 0 or more", {
      description: "0 or more (run_error_rate: a fraction, 0 to 1)"
    })
  ),
  window_minutes: minutes("window_minutes", ALERT_LIMITS.windowMinutes),
  cooldown_minutes: minutes("cooldown_minutes", ALERT_LIMITS.cooldownMinutes),
  filters: Schema.optional(AlertFilters),
  webhook_url: WebhookUrl
}).annotations({
  parseOptions: { onExcessProperty: "error" },
  examples: [
    {
      name: "errors on gpt-4.1",
      metric: "run_errors",
      comparison: "gte",
      threshold: 10,
      window_minutes: 15,
      cooldown_minutes: 60,
      filters: { model_id: "gpt-4.1", environment: "production" },
      webhook_url: EXAMPLE_URL
    }
  ]
})

/**
 * POST /alert-rules and PUT /alert-rules/{rule_id} (a PUT replaces the whole
 * rule; its secret stays). Across fields: an error rate is a fraction, and
 * the filters are for the run metrics.
 */
export const AlertRuleInput = AlertRuleFields.pipe(
  Schema.filter(
    (rule) => {
      if (rule.metric === "run_error_rate" && rule.threshold > 1) {
        return { path: ["threshold"], message: "threshold of run_error_rate is a fraction from 0 to 1" }
      }
      const filtered = Object.keys(rule.filters ?? {}).length > 0
      if (filtered && !isRunMetric(rule.metric)) {
        return {
          path: ["filters"],
          message: `filters apply to the run metrics only (${RUN_METRICS.join(", ")}), not to ${rule.metric}`
        }
      }
      return true
    },
    { identifier: "AlertRuleInput", jsonSchema: {} }
  )
)
export type AlertRuleInput = typeof AlertRuleInput.Type
export type AlertRuleInputEncoded = typeof AlertRuleInput.Encoded

export const AlertRule = Schema.Struct({
  rule_id: Schema.String,
  name: Schema.String,
  metric: Schema.String,
  comparison: AlertComparison,
  threshold: Schema.Number,
  window_minutes: Schema.Number,
  cooldown_minutes: Schema.Number,
  filters: AlertFilters,
  webhook_url: Schema.String,
  created_at: Timestamp,
  updated_at: Timestamp,
  last_checked_at: Schema.NullOr(Timestamp).annotations({ description: "the last evaluation by the alerts job" }),
  last_value: Schema.NullOr(Schema.Number).annotations({
    description: "the metric's value then (null: no data, e.g. an error rate without runs)"
  }),
  last_fired_at: Schema.NullOr(Timestamp)
})
export type AlertRule = typeof AlertRule.Type

export const AlertRuleCreated = Schema.Struct({
  ...AlertRule.fields,
  secret: Schema.String.annotations({
    description:
      "`whsec_` + base64: the Standard Webhooks secret that signs this rule's `alert.fired` deliveries. Shown once, here."
  })
})
export type AlertRuleCreated = typeof AlertRuleCreated.Type

export const AlertRuleList = Schema.Struct({ alert_rules: Schema.Array(AlertRule) })

export const ALERT_RULE_EXAMPLE_ID = "alr_01M80KEP26YA9DZXRJENQJN9YP"

export const AlertRulePath = Schema.Struct({
  project_id: StorableString.annotations(exampleOf(ExampleIds.project)),
  rule_id: StorableString.pipe(Schema.maxLength(64)).annotations(exampleOf(ALERT_RULE_EXAMPLE_ID))
})

/** The delivery of one firing to the rule's own webhook_url, as the delivery log shows it. */
export const AlertDelivery = Schema.Struct({
  id: Schema.String.annotations({ description: "the `webhook-id` header: the same on every attempt" }),
  status: DeliveryStatus,
  attempts: Schema.Number,
  attempt_log: Schema.Array(DeliveryAttempt),
  next_attempt_at: Schema.NullOr(Timestamp),
  finished_at: Schema.NullOr(Timestamp)
})

/** One firing: what was measured, against what, when; no content. */
export const AlertFiring = Schema.Struct({
  firing_id: Schema.String,
  rule_id: Schema.String,
  metric: Schema.String,
  comparison: AlertComparison,
  threshold: Schema.Number,
  value: Schema.Number,
  window_minutes: Schema.Number,
  window_start: Timestamp,
  window_end: Timestamp,
  fired_at: Timestamp,
  delivery: Schema.NullOr(AlertDelivery)
})
export type AlertFiring = typeof AlertFiring.Type

export const AlertHistory = Schema.Struct({ history: Schema.Array(AlertFiring) })
