/**
 * `svc project settings | retention | topic-ceiling` and `svc jobs list | run`:
 * the settings plane at work (docs/decisions.md "Jobs and retention"), over the
 * same services as the admin HTTP API.
 */
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as Effect from "effect/Effect"
import { RETENTION_PRESETS_DAYS } from "../../schema/Settings.js"
import { Jobs } from "../../src/platform/jobs/Jobs.js"
import { ProjectSettings } from "../../src/projects/ProjectSettings.js"
import { Retention } from "../../src/retention/Retention.js"
import { print } from "./Output.js"

const projectId = Options.text("project").pipe(Options.withDescription("project id"))
const iso = (date: Date | null) => (date === null ? "never" : date.toISOString())
const daysText = (days: number | null) => (days === null ? "forever" : `${days} days`)

const retentionChoices: Array<[string, (typeof RETENTION_PRESETS_DAYS)[number] | null]> = [
  ["forever", null],
  ...RETENTION_PRESETS_DAYS.map((days): [string, (typeof RETENTION_PRESETS_DAYS)[number]] => [String(days), days])
]

export const projectSettings = Command.make("settings", { projectId }, ({ projectId }) =>
  Effect.gen(function* () {
    const settings = yield* (yield* ProjectSettings).get(projectId)
    yield* print(
      settings,
      [
        `project\t${settings.project_id} (${settings.name})`,
        `plan\t${settings.plan}`,
        `origins\t${settings.origins.join(", ") || "none"}`,
        `issuer\t${settings.issuer?.issuer ?? "none"}`,
        `test users\t${settings.test_user_prefixes.join(", ") || "none"}`,
        `retention\t${daysText(settings.retention.days)} (in effect: ${daysText(settings.retention.effective_days)})`,
        `topic ceiling\t${settings.topic_ceiling}`,
        `alert rules\t${settings.alert_rules}`,
        `evaluators\t${settings.evaluators}`,
        `webhooks\t${settings.webhooks}`
      ].join("\n")
    )
  })
)

export const projectRetention = Command.make(
  "retention",
  {
    projectId,
    days: Options.choiceWithValue("days", retentionChoices).pipe(
      Options.withDescription("7, 14, 30, 60, 90, 180, 365 or forever")
    )
  },
  ({ days, projectId }) =>
    Effect.gen(function* () {
      const retention = yield* (yield* Retention).set(projectId, days)
      yield* print(
        retention,
        retention.days === retention.effective_days
          ? `retention ${daysText(retention.days)}, in effect now`
          : `retention ${daysText(retention.days)} from ${iso(retention.effective_at)}; until then ${daysText(retention.effective_days)}`
      )
    })
)

export const projectTopicCeiling = Command.make(
  "topic-ceiling",
  { projectId, value: Options.integer("value").pipe(Options.withDescription("10 to 60")) },
  ({ projectId, value }) =>
    Effect.gen(function* () {
      const saved = yield* (yield* ProjectSettings).setTopicCeiling(projectId, value)
      yield* print({ value: saved }, `topic ceiling ${saved}`)
    })
)

export const jobsList = Command.make("list", {}, () =>
  Effect.gen(function* () {
    const jobs = yield* (yield* Jobs).list()
    yield* print(
      { jobs },
      jobs
        .map(
          (job) =>
            `${job.name}\tevery ${job.interval_seconds} s\tnext ${iso(job.next_run_at)}\tlast ${iso(job.last_finished_at)}\t` +
            `items ${job.last_items ?? 0} (total ${job.items_total})\truns ${job.runs}\tfailures ${job.failures}` +
            (job.last_error === null ? "" : `\terror: ${job.last_error}`)
        )
        .join("\n") || "no jobs"
    )
  })
)

export const jobsRun = Command.make(
  "run",
  { job: Options.text("job").pipe(Options.withDescription("the job's name, e.g. retention")) },
  ({ job }) =>
    Effect.gen(function* () {
      const run = yield* (yield* Jobs).runNow(job)
      const details = Object.entries(run.details)
        .map(([kind, n]) => `${kind} ${n}`)
        .join(", ")
      yield* print(
        run,
        run.error === null
          ? `${run.job}: ${run.items} items${details === "" ? "" : ` (${details})`}`
          : `${run.job} failed: ${run.error}`
      )
    })
)
