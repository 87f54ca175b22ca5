/**
 * `svc alert create | list | update | delete | history` (docs/decisions.md
 * "Alert rules"), over the same service as the admin HTTP API. The rules
 * are checked and fired by the gateway's `alerts` job (or
 * `svc jobs run --job alerts`).
 */
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import { type AlertFiring, type AlertRule, AlertRuleInput, PLAIN_METRICS } from "../../schema/Alerts.js"
import { InvalidRequest, Issue } from "../../schema/Errors.js"
import { Alerts } from "../../src/alerts/Alerts.js"
import { print } from "./Output.js"

const projectId = Options.text("project").pipe(Options.withDescription("project id"))
const ruleId = Options.text("id").pipe(Options.withDescription("alert rule id (alr_...)"))

const settings = {
  name: Options.text("name").pipe(Options.withDescription("the rule's name")),
  metric: Options.text("metric").pipe(
    Options.withDescription(`${PLAIN_METRICS.join(", ")} or events:<kind> (e.g. events:error_shown)`)
  ),
  comparison: Options.choice("comparison", ["gt", "gte", "lt", "lte"]).pipe(
    Options.withDescription("fires when the value is gt, gte, lt or lte the threshold")
  ),
  threshold: Options.float("threshold").pipe(Options.withDescription("0 or more (run_error_rate: 0 to 1)")),
  windowMinutes: Options.integer("window-minutes").pipe(Options.withDescription("the window measured: 5 to 1440")),
  cooldownMinutes: Options.integer("cooldown-minutes").pipe(
    Options.withDescription("no second firing within this many minutes: 5 to 10080")
  ),
  modelId: Options.optional(Options.text("model-id").pipe(Options.withDescription("run metrics: this model only"))),
  tag: Options.optional(Options.text("tag").pipe(Options.withDescription("run metrics: runs with this tag only"))),
  environment: Options.optional(
    Options.text("environment").pipe(Options.withDescription("run metrics: this environment only"))
  ),
  webhookUrl: Options.text("webhook-url").pipe(
    Options.withDescription("where alert.fired is POSTed (http:// or https://)")
  )
}

type Given = {
  readonly name: string
  readonly metric: string
  readonly comparison: "gt" | "gte" | "lt" | "lte"
  readonly threshold: number
  readonly windowMinutes: number
  readonly cooldownMinutes: number
  readonly modelId: Option.Option<string>
  readonly tag: Option.Option<string>
  readonly environment: Option.Option<string>
  readonly webhookUrl: string
}

/** The option a field of the body came from (a filter's is its own option). */
const optionOf = (path: ReadonlyArray<PropertyKey>) =>
  path[0] === "filters"
    ? path[1] === undefined
      ? "--model-id, --tag, --environment"
      : `--${String(path[1]).replaceAll("_", "-")}`
    : `--${String(path[0] ?? "").replaceAll("_", "-")}`

/** The options as the API's body, checked by the API's schema; the message names the option. */
const inputOf = (given: Given) => {
  const filters = {
    ...Option.match(given.modelId, { onNone: () => ({}), onSome: (model_id) => ({ model_id }) }),
    ...Option.match(given.tag, { onNone: () => ({}), onSome: (tag) => ({ tag }) }),
    ...Option.match(given.environment, { onNone: () => ({}), onSome: (environment) => ({ environment }) })
  }
  const body = {
    name: given.name,
    metric: given.metric,
    comparison: given.comparison,
    threshold: given.threshold,
    window_minutes: given.windowMinutes,
    cooldown_minutes: given.cooldownMinutes,
    ...(Object.keys(filters).length > 0 ? { filters } : {}),
    webhook_url: given.webhookUrl
  }
  return Schema.decodeUnknown(AlertRuleInput, { errors: "all" })(body).pipe(
    Effect.mapError((error) => {
      const issues = ParseResult.ArrayFormatter.formatErrorSync(error)
      return new InvalidRequest({
        message: issues.map((issue) => `${optionOf(issue.path)}: ${issue.message}`).join("; "),
        issues: issues.map((issue) => new Issue({ path: issue.path.map(String).join("."), message: issue.message }))
      })
    })
  )
}

const iso = (date: Date | null) => (date === null ? "-" : date.toISOString())

const line = (rule: AlertRule) =>
  [
    rule.rule_id,
    rule.name,
    `${rule.metric} ${rule.comparison} ${rule.threshold} over ${rule.window_minutes} min`,
    `cooldown ${rule.cooldown_minutes} min`,
    Object.entries(rule.filters)
      .map(([key, value]) => `${key}=${value}`)
      .join(",") || "no filters",
    rule.webhook_url,
    `last fired ${iso(rule.last_fired_at)}`
  ].join("\t")

export const alertCreate = Command.make("create", { projectId, ...settings }, ({ projectId, ...given }) =>
  Effect.gen(function* () {
    const created = yield* (yield* Alerts).create(projectId, yield* inputOf(given))
    yield* print(created, `alert rule created: ${line(created)}\nsigning secret (shown once): ${created.secret}`)
  })
)

export const alertList = Command.make("list", { projectId }, ({ projectId }) =>
  Effect.gen(function* () {
    const rules = yield* (yield* Alerts).list(projectId)
    yield* print({ alert_rules: rules }, rules.map(line).join("\n") || "no alert rules")
  })
)

export const alertUpdate = Command.make(
  "update",
  { projectId, ruleId, ...settings },
  ({ projectId, ruleId, ...given }) =>
    Effect.gen(function* () {
      const updated = yield* (yield* Alerts).update(projectId, ruleId, yield* inputOf(given))
      yield* print(updated, line(updated))
    })
)

export const alertDelete = Command.make("delete", { projectId, ruleId }, ({ projectId, ruleId }) =>
  Effect.gen(function* () {
    yield* (yield* Alerts).remove(projectId, ruleId)
    yield* print({ deleted: ruleId }, `alert rule ${ruleId} deleted`)
  })
)

const firingLine = (firing: AlertFiring) =>
  [
    firing.firing_id,
    firing.fired_at.toISOString(),
    `${firing.metric} = ${firing.value} (${firing.comparison} ${firing.threshold}, ${firing.window_minutes} min)`,
    firing.delivery === null
      ? "no delivery"
      : `delivery ${firing.delivery.status}, attempts ${firing.delivery.attempts}`
  ].join("\t")

export const alertHistory = Command.make("history", { projectId, ruleId }, ({ projectId, ruleId }) =>
  Effect.gen(function* () {
    const history = yield* (yield* Alerts).history(projectId, ruleId)
    yield* print({ history }, history.map(firingLine).join("\n") || "no firings")
  })
)
