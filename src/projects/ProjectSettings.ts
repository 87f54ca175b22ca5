import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { invalid } from "../../schema/Errors.js"
import { type ProjectSettings as ProjectSettingsShape, TOPIC_CEILING } from "../../schema/Settings.js"
import { Issuers } from "../auth/Issuers.js"
import { orNotFound } from "../platform/Found.js"
import { fn } from "../platform/telemetry/Traced.js"
import { Retention } from "../retention/Retention.js"
import { Origins } from "./Origins.js"
import { ProjectAdmin } from "./ProjectAdmin.js"
import { SettingsRepo } from "./SettingsRepo.js"

/**
 * Every setting of a project in one read, and the topic ceiling
 * (docs/settings-plane.md "Retention, settings and jobs"), with the
 * counts of alert rules, evaluators and webhooks.
 */
export class ProjectSettings extends Effect.Service<ProjectSettings>()("svc/ProjectSettings", {
  dependencies: [SettingsRepo.Default],
  effect: Effect.gen(function* () {
    const repo = yield* SettingsRepo
    const projects = yield* ProjectAdmin
    const origins = yield* Origins
    const issuers = yield* Issuers
    const retention = yield* Retention

    const get = fn("ProjectSettings.get")(function* (projectId: string) {
      const project = yield* projects.require(projectId)
      const settings: typeof ProjectSettingsShape.Type = {
        project_id: project.id,
        name: project.name,
        plan: project.plan,
        origins: yield* origins.list(projectId),
        issuer: Option.getOrNull(yield* issuers.get(projectId)),
        test_user_prefixes: yield* projects.testUserPrefixes(projectId),
        retention: yield* retention.get(projectId),
        topic_ceiling: yield* Effect.flatMap(repo.topicCeiling(projectId), orNotFound("project")),
        alert_rules: yield* repo.alertRuleCount(projectId),
        evaluators: yield* repo.evaluatorCount(projectId),
        webhooks: yield* repo.webhookCount(projectId)
      }
      return settings
    })

    /** 10 to 60 (docs/decisions.md "Jobs and retention"); the HTTP and CLI schemas say so too, this is the rule. */
    const setTopicCeiling = fn("ProjectSettings.setTopicCeiling")(function* (projectId: string, value: number) {
      if (!Number.isInteger(value) || value < TOPIC_CEILING.min || value > TOPIC_CEILING.max) {
        return yield* Effect.fail(
          invalid(`the topic ceiling is a whole number from ${TOPIC_CEILING.min} to ${TOPIC_CEILING.max}`, "value")
        )
      }
      return yield* Effect.flatMap(repo.setTopicCeiling(projectId, value), orNotFound("project"))
    })

    return { get, setTopicCeiling } as const
  })
}) {}
