import * as HttpApi from "@effect/platform/HttpApi"
import * as OpenApi from "@effect/platform/OpenApi"
import { AdminGroup } from "./Api/Admin.js"
import { AlertsGroup } from "./Api/Alerts.js"
import { AuthGroup } from "./Api/Auth.js"
import { DashboardGroup, DashboardSignInGroup } from "./Api/Dashboard.js"
import { DashboardOperateGroup } from "./Api/DashboardOperate.js"
import { ErasureGroup } from "./Api/Erasure.js"
import { EvaluatorsGroup } from "./Api/Evaluators.js"
import { EventsGroup } from "./Api/Events.js"
import { FilesGroup } from "./Api/Files.js"
import { MessagesGroup } from "./Api/Messages.js"
import { completeDocument } from "./Api/OpenApiDocument.js"
import { ProjectsGroup } from "./Api/Projects.js"
import { RunsGroup } from "./Api/Runs.js"
import { ScoresGroup } from "./Api/Scores.js"
import { ClaimGroup, SessionsGroup } from "./Api/Sessions.js"
import { SettingsGroup } from "./Api/Settings.js"
import { ThreadsGroup } from "./Api/Threads.js"
import { TitlesGroup } from "./Api/Titles.js"
import { WebhooksGroup } from "./Api/Webhooks.js"
import {
  Forbidden,
  Internal,
  InvalidRequest,
  OutcomeUnknown,
  PayloadTooLarge,
  Unavailable,
  UnsupportedMediaType
} from "./Errors.js"

/**
 * Every route declared, with the errors any route may answer: the gateway
 * middleware's 400 (a body that is not JSON), 413 and 415 come before the
 * handler, whatever the route; 503 when the store cannot be reached or the
 * server is shutting down. 401 comes with each security middleware.
 */
const Declared = HttpApi.make("svc")
  .add(ThreadsGroup)
  .add(MessagesGroup)
  .add(AuthGroup)
  .add(SessionsGroup)
  .add(ClaimGroup)
  .add(AdminGroup)
  .add(RunsGroup)
  .add(ScoresGroup)
  .add(EventsGroup)
  .add(ProjectsGroup)
  .add(TitlesGroup)
  .add(FilesGroup)
  .add(SettingsGroup)
  .add(ErasureGroup)
  .add(EvaluatorsGroup)
  .add(WebhooksGroup)
  .add(AlertsGroup)
  .add(DashboardSignInGroup)
  .add(DashboardGroup)
  .add(DashboardOperateGroup)
  .addError(InvalidRequest)
  .addError(PayloadTooLarge)
  .addError(UnsupportedMediaType)
  .addError(Internal)
  .addError(Unavailable)
  .addError(OutcomeUnknown)
  .prefix("/v1")
  .annotate(OpenApi.Title, "Svc conversation gateway")
  .annotate(OpenApi.Version, "1")
  .annotate(
    OpenApi.Description,
    "Threads, messages, runs, scores, events and attachments of conversational assistant apps. " +
      "The backend host (`/v1/...`) takes a project API key; a project's frontend base URL " +
      "(`/p/{project_id}/v1/...`) takes a JWT or an anonymous session; the admin API takes ADMIN_TOKEN. " +
      "Errors are JSON `{ error, message }` (400 adds `issues`)."
  )
  .annotate(OpenApi.License, { name: "MIT", url: "https://opensource.org/licenses/MIT" })
  // The 403 a frontend URL answers for an Origin the project does not allow (protocols/rest/Gateway.ts).
  .annotate(HttpApi.AdditionalSchemas, [Forbidden])

export class Api extends Declared.annotate(OpenApi.Transform, completeDocument(Declared)) {}
