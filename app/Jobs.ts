import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { AlertJob } from "../src/alerts/AlertJob.js"
import { EvaluatorJob } from "../src/evaluators/EvaluatorJob.js"
import { JobList, layerWith } from "../src/platform/jobs/Jobs.js"
import { ProjectSettings } from "../src/projects/ProjectSettings.js"
import { Retention, RetentionJob } from "../src/retention/Retention.js"
import { WebhookJob } from "../src/webhooks/WebhookJob.js"
import { EvaluatorJobLive, EvaluatorsLive } from "./Evaluators.js"

/** Every job there is: each feature's service offers its `job`, listed here. */
export const JobListLive = Layer.effect(
  JobList,
  Effect.map(
    Effect.all([RetentionJob, EvaluatorJob, WebhookJob, AlertJob]),
    ([retention, evaluators, webhooks, alerts]) => [retention.job, evaluators.job, webhooks.job, alerts.job]
  )
)

/** The job runner over the job list (`timer` false: on demand only, as the CLI runs it). */
export const jobsLayer = (options: { readonly timer: boolean }) =>
  layerWith(options).pipe(
    Layer.provide(JobListLive),
    Layer.provide(RetentionJob.Default),
    Layer.provide(EvaluatorJobLive),
    Layer.provide(WebhookJob.Default),
    Layer.provide(AlertJob.Default)
  )

/** Retention's setting and the project settings read (SQL only: what the CLI's project commands need). */
export const SettingsLive = ProjectSettings.Default.pipe(Layer.provideMerge(Retention.Default))

/** The settings plane at work: the job runner (with its timer), retention and the project settings read. */
export const SettingsPlaneLive = Layer.mergeAll(jobsLayer({ timer: true }), SettingsLive, EvaluatorsLive)
