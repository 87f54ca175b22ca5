import * as Schema from "effect/Schema"
import { ExternalIssuer, Plan } from "./Admin.js"
import { Timestamp } from "./Common.js"
import { exampleOf } from "./Examples.js"

/** Retention presets (days, docs/settings-plane.md "Retention, settings and jobs"); null is forever, the default. */
export const RETENTION_PRESETS_DAYS = [7, 14, 30, 60, 90, 180, 365] as const
export const TOPIC_CEILING = { min: 10, max: 60, default: 30 } as const

export const RetentionDays = Schema.NullOr(Schema.Literal(...RETENTION_PRESETS_DAYS))

export const SetRetention = Schema.Struct({ days: RetentionDays }).annotations({ examples: [{ days: 30 }] })

/**
 * `days`: the setting; `effective_days`: what holds now (a shorter setting
 * waits RETENTION_GRACE_HOURS); `effective_at`: when `days` holds from.
 */
export const Retention = Schema.Struct({
  days: RetentionDays,
  effective_days: RetentionDays,
  effective_at: Schema.NullOr(Timestamp)
})

export const TopicCeiling = Schema.Struct({
  value: Schema.Int.pipe(
    Schema.between(TOPIC_CEILING.min, TOPIC_CEILING.max, {
      message: () => `the topic ceiling is a whole number from ${TOPIC_CEILING.min} to ${TOPIC_CEILING.max}`
    })
  )
}).annotations({ examples: [{ value: 20 }] })

/** Every setting of a project in one object (docs/settings-plane.md "Retention, settings and jobs"). */
export const ProjectSettings = Schema.Struct({
  project_id: Schema.String,
  name: Schema.String,
  plan: Plan,
  origins: Schema.Array(Schema.String),
  issuer: Schema.NullOr(ExternalIssuer),
  test_user_prefixes: Schema.Array(Schema.String),
  retention: Retention,
  topic_ceiling: Schema.Number,
  /** How many alert rules, evaluators and webhook subscriptions the project has. */
  alert_rules: Schema.Number,
  evaluators: Schema.Number,
  webhooks: Schema.Number
})

export const JobStatus = Schema.Struct({
  name: Schema.String,
  interval_seconds: Schema.Number,
  next_run_at: Schema.NullOr(Timestamp),
  running: Schema.Boolean,
  last_started_at: Schema.NullOr(Timestamp),
  last_finished_at: Schema.NullOr(Timestamp),
  last_items: Schema.NullOr(Schema.Number),
  last_error: Schema.NullOr(Schema.String),
  runs: Schema.Number,
  failures: Schema.Number,
  items_total: Schema.Number
})
export const JobList = Schema.Struct({ jobs: Schema.Array(JobStatus) })

export const JobRun = Schema.Struct({
  job: Schema.String,
  started_at: Timestamp,
  finished_at: Timestamp,
  items: Schema.Number,
  details: Schema.Record({ key: Schema.String, value: Schema.Number }),
  error: Schema.NullOr(Schema.String)
})

export const JobPath = Schema.Struct({
  job: Schema.String.pipe(Schema.maxLength(64)).annotations(exampleOf("retention"))
})
