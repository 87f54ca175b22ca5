import * as HttpApi from "@effect/platform/HttpApi"
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import { ErasureCounts, UserPath } from "../Erasure.js"
import { BadGateway, Forbidden, InvalidRequest, NotFound, Unavailable } from "../Errors.js"
import { AdminEndpoints } from "./Admin.js"
import { AlertsEndpoints } from "./Alerts.js"
import { DashboardSession } from "./Dashboard.js"
import { ErasureEndpoints } from "./Erasure.js"
import { EvaluatorsEndpoints } from "./Evaluators.js"
import { ServedOn } from "./RouteRules.js"
import { SettingsEndpoints } from "./Settings.js"
import { WebhooksEndpoints } from "./Webhooks.js"

/**
 * The dashboard's operating views (docs/dashboard.md "Operating views"): the
 * admin API's endpoints themselves (same paths under `/v1/dashboard`, same
 * payloads and answers), behind the session cookie instead of the admin
 * token. A key's session may read its project's settings (settings, origins,
 * issuer, test users, SDK clients) and gets 403 from everything else here;
 * another project answers 404.
 */
export class DashboardOperateGroup extends HttpApiGroup.make("dashboardOperate")
  .add(SettingsEndpoints.getSettings)
  .add(AdminEndpoints.getOrigins)
  .add(AdminEndpoints.getIssuer)
  .add(AdminEndpoints.getTestUsers)
  .add(AdminEndpoints.listSdkClients)
  .add(SettingsEndpoints.setRetention)
  .add(SettingsEndpoints.setTopicCeiling)
  .add(AdminEndpoints.setPlan)
  .add(AdminEndpoints.setOrigins)
  .add(AdminEndpoints.setIssuer)
  .add(AdminEndpoints.clearIssuer)
  .add(AdminEndpoints.setTestUsers)
  .add(AdminEndpoints.listApiKeys)
  .add(AdminEndpoints.createApiKey)
  .add(AdminEndpoints.revokeApiKey)
  .add(AlertsEndpoints.listAlertRules)
  .add(AlertsEndpoints.createAlertRule)
  .add(AlertsEndpoints.updateAlertRule)
  .add(AlertsEndpoints.deleteAlertRule)
  .add(AlertsEndpoints.alertRuleHistory)
  .add(EvaluatorsEndpoints.listEvaluators)
  .add(EvaluatorsEndpoints.createEvaluator)
  .add(EvaluatorsEndpoints.updateEvaluator)
  .add(EvaluatorsEndpoints.deleteEvaluator)
  .add(WebhooksEndpoints.listWebhooks)
  .add(WebhooksEndpoints.createWebhook)
  .add(WebhooksEndpoints.deleteWebhook)
  .add(WebhooksEndpoints.listDeliveries)
  .add(WebhooksEndpoints.redeliver)
  .add(
    HttpApiEndpoint.get("previewErasure", "/projects/:project_id/users/:user_id/erasure-preview")
      .setPath(UserPath)
      .addSuccess(ErasureCounts)
      .addError(BadGateway)
      .annotateContext(
        OpenApi.annotations({
          summary: "What erasing a user would delete",
          description:
            "The counts per kind that DELETE /v1/dashboard/projects/{project_id}/users/{user_id} would delete now, counted by the same rules; nothing is deleted or recorded."
        })
      )
  )
  .add(ErasureEndpoints.eraseUser)
  .add(ErasureEndpoints.listErasures)
  .add(SettingsEndpoints.listJobs)
  .add(SettingsEndpoints.runJob)
  .addError(Forbidden)
  .addError(NotFound)
  .addError(InvalidRequest)
  .middleware(DashboardSession)
  .prefix("/dashboard")
  .annotate(ServedOn, "backend")
  .annotate(
    OpenApi.Description,
    "The dashboard's operating views: the admin API's routes behind the session cookie (docs/dashboard.md); a key's session reads its project's settings and gets 403 from the rest"
  ) {}

/**
 * The operating views' own API, which the page's client for them is derived
 * from (dashboard/views/operate/client.ts): the group alone, as the main
 * Api serves it, so the page's first load carries none of these schemas and
 * the operating views' chunk carries no others.
 */
export class DashboardOperateApi extends HttpApi.make("dashboardOperate")
  .add(DashboardOperateGroup)
  .addError(InvalidRequest)
  .addError(Unavailable)
  .prefix("/v1") {}
