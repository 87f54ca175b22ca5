/**
 * Every job there is, one line each. A job is a feature's service that
 * offers a `job` (src/platform/jobs/Jobs.ts runs them); adding one is its
 * file in the feature's folder and its line below.
 */
import * as Layer from "effect/Layer"
import { AlertJob } from "../src/alerts/AlertJob.js"
import { EvaluatorJob } from "../src/evaluators/EvaluatorJob.js"
import { JobList, layerWith } from "../src/platform/jobs/Jobs.js"
import { RetentionJob } from "../src/retention/Retention.js"
import { TopicJob } from "../src/topics/TopicJob.js"
import { WebhookJob } from "../src/webhooks/WebhookJob.js"

const JobListLive = JobList.empty.pipe(
  JobList.offering(RetentionJob),
  JobList.offering(EvaluatorJob),
  JobList.offering(WebhookJob),
  JobList.offering(AlertJob),
  JobList.offering(TopicJob)
)

/**
 * The job runner over every job (`timer` false: on demand only, as the CLI
 * runs it). The jobs need the chosen implementations (blob store, evaluator
 * model) and a store.
 */
export const jobsLayer = (options: { readonly timer: boolean }) => layerWith(options).pipe(Layer.provide(JobListLive))
