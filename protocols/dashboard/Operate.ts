/**
 * The dashboard's operating routes (`/v1/dashboard/projects/{id}/settings`,
 * keys, alerts, evaluators, webhooks, erasure, jobs): each the admin API's
 * use case, after DashboardSessions has said whether the session may read
 * (`scope`: a project's settings) or operate (`manage`, `manageGateway`:
 * the admin's session only, 403 for a key's).
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as Effect from "effect/Effect"
import { DashboardCaller } from "../../schema/Api/Dashboard.js"
import { Api } from "../../schema/Api.js"
import { notFound } from "../../schema/Errors.js"
import { Alerts } from "../../src/alerts/Alerts.js"
import { Issuers } from "../../src/auth/Issuers.js"
import { DashboardSessions } from "../../src/dashboard/Sessions.js"
import { Erasure, eraseFromGateway } from "../../src/erasure/Erasure.js"
import { Evaluators } from "../../src/evaluators/Evaluators.js"
import { orNotFound } from "../../src/platform/Found.js"
import { Jobs } from "../../src/platform/jobs/Jobs.js"
import { Origins } from "../../src/projects/Origins.js"
import { ProjectAdmin } from "../../src/projects/ProjectAdmin.js"
import { ProjectSettings } from "../../src/projects/ProjectSettings.js"
import { Retention } from "../../src/retention/Retention.js"
import { Webhooks } from "../../src/webhooks/Webhooks.js"

/** Who asked, in an erasure's audit record, when the dashboard asked. */
export const DASHBOARD_REQUESTER = "dashboard"

export const DashboardOperateLive = HttpApiBuilder.group(Api, "dashboardOperate", (handlers) =>
  Effect.gen(function* () {
    const sessions = yield* DashboardSessions
    const settings = yield* ProjectSettings
    const retention = yield* Retention
    const projects = yield* ProjectAdmin
    const origins = yield* Origins
    const issuers = yield* Issuers
    const alerts = yield* Alerts
    const evaluators = yield* Evaluators
    const webhooks = yield* Webhooks
    const erasure = yield* Erasure
    const jobs = yield* Jobs

    /** The path's project, if the session may read its settings (404 otherwise). */
    const reading = (path: { readonly project_id: string }) =>
      Effect.flatMap(DashboardCaller, (caller) => sessions.scope(caller, path.project_id))
    /** The path's project, if the session may operate it (403 for a key's session, 404 for another project). */
    const managing = (path: { readonly project_id: string }) =>
      Effect.flatMap(DashboardCaller, (caller) => sessions.manage(caller, path.project_id))
    const managingGateway = Effect.flatMap(DashboardCaller, (caller) => sessions.manageGateway(caller))

    return handlers
      .handle("getSettings", ({ path }) => Effect.flatMap(reading(path), settings.get))
      .handle("getOrigins", ({ path }) =>
        reading(path).pipe(
          Effect.flatMap(origins.list),
          Effect.map((list) => ({ origins: list }))
        )
      )
      .handle("getIssuer", ({ path }) =>
        reading(path).pipe(Effect.flatMap(issuers.get), Effect.flatMap(orNotFound("external issuer")))
      )
      .handle("getTestUsers", ({ path }) =>
        reading(path).pipe(
          Effect.flatMap(projects.testUserPrefixes),
          Effect.map((prefixes) => ({ prefixes }))
        )
      )
      .handle("listSdkClients", ({ path }) =>
        reading(path).pipe(
          Effect.flatMap(projects.sdkClientList),
          Effect.map((clients) => ({ clients }))
        )
      )
      .handle("setRetention", ({ path, payload }) =>
        Effect.flatMap(managing(path), (projectId) => retention.set(projectId, payload.days))
      )
      .handle("setTopicCeiling", ({ path, payload }) =>
        managing(path).pipe(
          Effect.flatMap((projectId) => settings.setTopicCeiling(projectId, payload.value)),
          Effect.map((value) => ({ value }))
        )
      )
      .handle("setPlan", ({ path, payload }) =>
        Effect.flatMap(managing(path), (projectId) => projects.setPlan(projectId, payload.plan))
      )
      .handle("setOrigins", ({ path, payload }) =>
        managing(path).pipe(
          Effect.flatMap((projectId) => origins.replace(projectId, payload.origins)),
          Effect.map((list) => ({ origins: list }))
        )
      )
      .handle("setIssuer", ({ path, payload }) =>
        Effect.flatMap(managing(path), (projectId) => issuers.set(projectId, payload))
      )
      .handle("clearIssuer", ({ path }) =>
        managing(path).pipe(
          Effect.flatMap(issuers.clear),
          Effect.flatMap((cleared) => (cleared ? Effect.void : Effect.fail(notFound("external issuer"))))
        )
      )
      .handle("setTestUsers", ({ path, payload }) =>
        managing(path).pipe(
          Effect.flatMap((projectId) => projects.setTestUserPrefixes(projectId, payload.prefixes)),
          Effect.map((prefixes) => ({ prefixes }))
        )
      )
      .handle("listApiKeys", ({ path }) =>
        managing(path).pipe(
          Effect.flatMap(projects.listKeys),
          Effect.map((keys) => ({ api_keys: keys }))
        )
      )
      .handle("createApiKey", ({ path, payload }) =>
        Effect.flatMap(managing(path), (projectId) =>
          projects.createKey(projectId, { name: payload.name, expiresInDays: payload.expires_in_days })
        )
      )
      .handle("revokeApiKey", ({ path }) =>
        Effect.flatMap(managing(path), (projectId) => projects.revokeKey(projectId, path.key_id))
      )
      .handle("listAlertRules", ({ path }) =>
        managing(path).pipe(
          Effect.flatMap(alerts.list),
          Effect.map((list) => ({ alert_rules: list }))
        )
      )
      .handle("createAlertRule", ({ path, payload }) =>
        Effect.flatMap(managing(path), (projectId) => alerts.create(projectId, payload))
      )
      .handle("updateAlertRule", ({ path, payload }) =>
        Effect.flatMap(managing(path), (projectId) => alerts.update(projectId, path.rule_id, payload))
      )
      .handle("deleteAlertRule", ({ path }) =>
        Effect.flatMap(managing(path), (projectId) => alerts.remove(projectId, path.rule_id))
      )
      .handle("alertRuleHistory", ({ path }) =>
        managing(path).pipe(
          Effect.flatMap((projectId) => alerts.history(projectId, path.rule_id)),
          Effect.map((history) => ({ history }))
        )
      )
      .handle("listEvaluators", ({ path }) =>
        managing(path).pipe(
          Effect.flatMap(evaluators.list),
          Effect.map((list) => ({ evaluators: list }))
        )
      )
      .handle("createEvaluator", ({ path, payload }) =>
        Effect.flatMap(managing(path), (projectId) => evaluators.create(projectId, payload))
      )
      .handle("updateEvaluator", ({ path, payload }) =>
        Effect.flatMap(managing(path), (projectId) => evaluators.update(projectId, path.evaluator_id, payload))
      )
      .handle("deleteEvaluator", ({ path }) =>
        Effect.flatMap(managing(path), (projectId) => evaluators.remove(projectId, path.evaluator_id))
      )
      .handle("listWebhooks", ({ path }) =>
        managing(path).pipe(
          Effect.flatMap(webhooks.list),
          Effect.map((list) => ({ webhooks: list }))
        )
      )
      .handle("createWebhook", ({ path, payload }) =>
        Effect.flatMap(managing(path), (projectId) => webhooks.create(projectId, payload))
      )
      .handle("deleteWebhook", ({ path }) =>
        Effect.flatMap(managing(path), (projectId) => webhooks.remove(projectId, path.webhook_id))
      )
      .handle("listDeliveries", ({ path, urlParams }) =>
        managing(path).pipe(
          Effect.flatMap((projectId) => webhooks.deliveries(projectId, path.webhook_id, urlParams.status)),
          Effect.map((deliveries) => ({ deliveries }))
        )
      )
      .handle("redeliver", ({ path }) =>
        Effect.flatMap(managing(path), (projectId) => webhooks.redeliver(projectId, path.webhook_id, path.delivery_id))
      )
      .handle("previewErasure", ({ path }) =>
        Effect.flatMap(managing(path), (projectId) => erasure.preview(projectId, path.user_id))
      )
      .handle("eraseUser", ({ path }) =>
        Effect.flatMap(managing(path), (projectId) => eraseFromGateway(projectId, path.user_id, DASHBOARD_REQUESTER))
      )
      .handle("listErasures", ({ path }) =>
        managing(path).pipe(
          Effect.flatMap(erasure.list),
          Effect.map((erasures) => ({ erasures }))
        )
      )
      .handle("listJobs", () =>
        managingGateway.pipe(
          Effect.zipRight(jobs.list()),
          Effect.map((list) => ({ jobs: list }))
        )
      )
      .handle("runJob", ({ path }) => Effect.zipRight(managingGateway, jobs.runNow(path.job)))
  })
)
