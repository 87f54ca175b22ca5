import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import { ProjectPath } from "../Admin.js"
import { NotFound } from "../Errors.js"
import { JobList, JobPath, JobRun, ProjectSettings, Retention, SetRetention, TopicCeiling } from "../Settings.js"
import { ServedOn } from "./RouteRules.js"
import { AdminAuth } from "./Security.js"

/** The settings routes' endpoints, shared by the admin API and the dashboard (schema/Api/DashboardOperate.ts). */
export const SettingsEndpoints = {
  getSettings: HttpApiEndpoint.get("getSettings", "/projects/:project_id/settings")
    .setPath(ProjectPath)
    .addSuccess(ProjectSettings)
    .addError(NotFound)
    .annotateContext(
      OpenApi.annotations({
        summary: "Get every setting of a project",
        description:
          "Plan, allowed origins, external issuer, test user prefixes, retention (the setting and what holds now), topic ceiling, and the counts of alert rules, evaluators and webhooks."
      })
    ),
  setRetention: HttpApiEndpoint.put("setRetention", "/projects/:project_id/retention")
    .setPath(ProjectPath)
    .setPayload(SetRetention)
    .addSuccess(Retention)
    .addError(NotFound)
    .annotateContext(
      OpenApi.annotations({
        summary: "Set the retention",
        description:
          "7, 14, 30, 60, 90, 180 or 365 days, or null (forever). A shorter setting takes effect after RETENTION_GRACE_HOURS (24 by default; until then the old one holds); a longer one at once."
      })
    ),
  setTopicCeiling: HttpApiEndpoint.put("setTopicCeiling", "/projects/:project_id/topic-ceiling")
    .setPath(ProjectPath)
    .setPayload(TopicCeiling)
    .addSuccess(TopicCeiling)
    .addError(NotFound)
    .annotateContext(
      OpenApi.annotations({
        summary: "Set the intelligence topic ceiling",
        description: "The most topics the intelligence features keep for the project: 10 to 60 (30 by default)."
      })
    ),
  listJobs: HttpApiEndpoint.get("listJobs", "/jobs")
    .addSuccess(JobList)
    .annotateContext(
      OpenApi.annotations({
        summary: "List background jobs",
        description: "Each job's interval, next run, last run, items done and failures (kept in the store)."
      })
    ),
  runJob: HttpApiEndpoint.post("runJob", "/jobs/:job/run")
    .setPath(JobPath)
    .addSuccess(JobRun)
    .addError(NotFound)
    .annotateContext(
      OpenApi.annotations({
        summary: "Run a job now",
        description: "Runs one pass of the job on this gateway and answers what it did (items, by kind)."
      })
    )
} as const

/**
 * The settings plane at work (docs/decisions.md "Jobs and retention"): a
 * project's settings in one read, retention, the topic ceiling, jobs.
 */
export class SettingsGroup extends HttpApiGroup.make("settings")
  .add(SettingsEndpoints.getSettings)
  .add(SettingsEndpoints.setRetention)
  .add(SettingsEndpoints.setTopicCeiling)
  .add(SettingsEndpoints.listJobs)
  .add(SettingsEndpoints.runJob)
  .middleware(AdminAuth)
  .prefix("/admin")
  .annotate(OpenApi.Description, "Admin plane: project settings at work and background jobs (ADMIN_TOKEN)")
  .annotate(ServedOn, "backend") {}
