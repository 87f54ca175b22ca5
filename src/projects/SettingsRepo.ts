import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { fn } from "../platform/telemetry/Traced.js"

/** The project settings kept on the project row that no other repository reads (the topic ceiling). */
export class SettingsRepo extends Effect.Service<SettingsRepo>()("svc/SettingsRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    return {
      topicCeiling: fn("SettingsRepo.topicCeiling")(
        (projectId: string) =>
          sql<{ value: number }>`SELECT topic_ceiling AS value FROM projects WHERE id = ${projectId}`.pipe(
            Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), (row) => row.value))
          ),
        Effect.orDie
      ),
      /** The project's alert rules (src/alerts/Alerts.ts). */
      alertRuleCount: fn("SettingsRepo.alertRuleCount")(
        (projectId: string) =>
          sql<{ n: number }>`SELECT count(*)::int AS n FROM alert_rules WHERE project_id = ${projectId}`.pipe(
            Effect.map((rows) => Number(rows[0]?.n ?? 0))
          ),
        Effect.orDie
      ),
      /** The project's evaluators (src/evaluators/Evaluators.ts). */
      evaluatorCount: fn("SettingsRepo.evaluatorCount")(
        (projectId: string) =>
          sql<{ n: number }>`SELECT count(*)::int AS n FROM evaluators WHERE project_id = ${projectId}`.pipe(
            Effect.map((rows) => Number(rows[0]?.n ?? 0))
          ),
        Effect.orDie
      ),
      /** The project's webhook subscriptions (src/webhooks/Webhooks.ts). */
      webhookCount: fn("SettingsRepo.webhookCount")(
        (projectId: string) =>
          sql<{ n: number }>`SELECT count(*)::int AS n FROM webhooks WHERE project_id = ${projectId}`.pipe(
            Effect.map((rows) => Number(rows[0]?.n ?? 0))
          ),
        Effect.orDie
      ),
      /** None: no such project. */
      setTopicCeiling: fn("SettingsRepo.setTopicCeiling")(
        (projectId: string, value: number) =>
          sql<{ value: number }>`UPDATE projects SET topic_ceiling = ${value} WHERE id = ${projectId}
            RETURNING topic_ceiling AS value`.pipe(
            Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), (row) => row.value))
          ),
        Effect.orDie
      )
    } as const
  })
}) {}
