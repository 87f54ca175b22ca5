import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as Effect from "effect/Effect"
import { Api } from "../../schema/Api.js"
import { Alerts } from "../../src/alerts/Alerts.js"

export const AlertsLive = HttpApiBuilder.group(Api, "alerts", (handlers) =>
  Effect.gen(function* () {
    const alerts = yield* Alerts
    return handlers
      .handle("createAlertRule", ({ path, payload }) => alerts.create(path.project_id, payload))
      .handle("listAlertRules", ({ path }) =>
        Effect.map(alerts.list(path.project_id), (list) => ({ alert_rules: list }))
      )
      .handle("updateAlertRule", ({ path, payload }) => alerts.update(path.project_id, path.rule_id, payload))
      .handle("deleteAlertRule", ({ path }) => alerts.remove(path.project_id, path.rule_id))
      .handle("alertRuleHistory", ({ path }) =>
        Effect.map(alerts.history(path.project_id, path.rule_id), (history) => ({ history }))
      )
  })
)
