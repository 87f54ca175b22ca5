import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as Effect from "effect/Effect"
import { Api } from "../../schema/Api.js"
import { Jobs } from "../../src/platform/jobs/Jobs.js"
import { ProjectSettings } from "../../src/projects/ProjectSettings.js"
import { Retention } from "../../src/retention/Retention.js"

export const SettingsLive = HttpApiBuilder.group(Api, "settings", (handlers) =>
  Effect.gen(function* () {
    const settings = yield* ProjectSettings
    const retention = yield* Retention
    const jobs = yield* Jobs
    return handlers
      .handle("getSettings", ({ path }) => settings.get(path.project_id))
      .handle("setRetention", ({ path, payload }) => retention.set(path.project_id, payload.days))
      .handle("setTopicCeiling", ({ path, payload }) =>
        Effect.map(settings.setTopicCeiling(path.project_id, payload.value), (value) => ({ value }))
      )
      .handle("listJobs", () => Effect.map(jobs.list(), (list) => ({ jobs: list })))
      .handle("runJob", ({ path }) => jobs.runNow(path.job))
  })
)
