import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as OpenApi from "@effect/platform/OpenApi"
import { ProjectPath } from "../Admin.js"
import { AlertHistory, AlertRule, AlertRuleCreated, AlertRuleInput, AlertRuleList, AlertRulePath } from "../Alerts.js"
import { Conflict, NotFound } from "../Errors.js"
import { ServedOn } from "./RouteRules.js"
import { AdminAuth } from "./Security.js"

/** The alerts routes' endpoints, shared by the admin API and the dashboard (schema/Api/DashboardOperate.ts). */
export const AlertsEndpoints = {
  createAlertRule: HttpApiEndpoint.post("createAlertRule", "/projects/:project_id/alert-rules")
    .setPath(ProjectPath)
    .setPayload(AlertRuleInput)
    .addSuccess(AlertRuleCreated, { status: 201 })
    .addError(NotFound)
    .addError(Conflict)
    .annotateContext(
      OpenApi.annotations({
        summary: "Create an alert rule",
        description:
          "Every minute the alerts job measures `metric` over the last `window_minutes` (5 to 1440) and, when it compares to `threshold` as `comparison` says and the rule has not fired within its `cooldown_minutes` (5 to 10080), fires once: a history entry, and an `alert.fired` Standard Webhooks delivery to `webhook_url` signed with the rule's `secret` (answered here, once), plus one to each webhook subscribed to alert.fired. Metrics: runs, run_errors, run_error_rate (0 to 1), negative_feedback, input_tokens, output_tokens, p95_duration_ms, events:<kind>, active_users; `filters` (model_id, tag, environment) apply to the run metrics. Rules by plan: hobby 1, pro 20, startup and enterprise 100 (409 past it). A URL on a private, loopback or link-local address is refused unless WEBHOOK_ALLOW_PRIVATE=true."
      })
    ),
  listAlertRules: HttpApiEndpoint.get("listAlertRules", "/projects/:project_id/alert-rules")
    .setPath(ProjectPath)
    .addSuccess(AlertRuleList)
    .addError(NotFound)
    .annotateContext(
      OpenApi.annotations({
        summary: "List alert rules",
        description: "The project's rules, oldest first, without their secrets, each with its last check and firing."
      })
    ),
  updateAlertRule: HttpApiEndpoint.put("updateAlertRule", "/projects/:project_id/alert-rules/:rule_id")
    .setPath(AlertRulePath)
    .setPayload(AlertRuleInput)
    .addSuccess(AlertRule)
    .addError(NotFound)
    .annotateContext(
      OpenApi.annotations({
        summary: "Replace an alert rule",
        description:
          "Replaces the rule's settings (same body and rules as create). Its secret, history and cooldown stay; deliveries still pending go to the new webhook_url."
      })
    ),
  deleteAlertRule: HttpApiEndpoint.del("deleteAlertRule", "/projects/:project_id/alert-rules/:rule_id")
    .setPath(AlertRulePath)
    .addSuccess(HttpApiSchema.NoContent)
    .addError(NotFound)
    .annotateContext(
      OpenApi.annotations({
        summary: "Delete an alert rule",
        description: "Its history and its pending deliveries go too."
      })
    ),
  alertRuleHistory: HttpApiEndpoint.get("alertRuleHistory", "/projects/:project_id/alert-rules/:rule_id/history")
    .setPath(AlertRulePath)
    .addSuccess(AlertHistory)
    .addError(NotFound)
    .annotateContext(
      OpenApi.annotations({
        summary: "A rule's firings",
        description:
          "The rule's latest 100 firings, newest first: the value measured, the threshold, the window, when it fired, and its delivery to webhook_url (status, attempts with their status codes, next attempt). No content of the project is kept."
      })
    )
} as const

/**
 * Alert rules (docs/decisions.md "Alert rules"): a metric over a window
 * checked every minute, delivered as `alert.fired`.
 */
export class AlertsGroup extends HttpApiGroup.make("alerts")
  .add(AlertsEndpoints.createAlertRule)
  .add(AlertsEndpoints.listAlertRules)
  .add(AlertsEndpoints.updateAlertRule)
  .add(AlertsEndpoints.deleteAlertRule)
  .add(AlertsEndpoints.alertRuleHistory)
  .middleware(AdminAuth)
  .prefix("/admin")
  .annotate(OpenApi.Description, "Admin plane: alert rules (ADMIN_TOKEN)")
  .annotate(ServedOn, "backend") {}
