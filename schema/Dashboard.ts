/**
 * The dashboard's wire shapes (docs/dashboard.md): its session and the reads
 * the page makes that the project API does not already answer in the form
 * the page needs (threads with their user and message count, a thread's
 * feedback, score distributions). Everything else it reads with the project
 * API's own shapes.
 */
import * as Schema from "effect/Schema"
import { Id, PageLimit, QueryBoolean, Timestamp } from "./Common.js"
import { ExampleIds, exampleOf } from "./Examples.js"
import { Limits } from "./Limits.js"
import { FeedbackType } from "./Message.js"
import { ScoreDataType, ScoreSource } from "./Score.js"
import { StorableString } from "./Text.js"
import { Thread } from "./Thread.js"

/** The admin token or a project API key. */
export const SignIn = Schema.Struct({
  token: Schema.String.pipe(
    Schema.minLength(1, { message: () => "token must not be empty" }),
    Schema.maxLength(512, { message: () => "token is at most 512 characters" })
  )
}).annotations({ examples: [{ token: "sk_..." }] })
export type SignIn = typeof SignIn.Type

export const DashboardProject = Schema.Struct({ id: Schema.String, name: Schema.String })

/** Who the session is: the admin (every project) or one project's API key (that project only). */
export const SessionInfo = Schema.Struct({
  kind: Schema.Literal("admin", "project"),
  projects: Schema.Array(DashboardProject)
})
export type SessionInfo = typeof SessionInfo.Type

const ProjectId = StorableString.annotations(exampleOf(ExampleIds.project))
export const DashboardProjectPath = Schema.Struct({ project_id: ProjectId })
export const DashboardThreadPath = Schema.Struct({
  project_id: ProjectId,
  thread_id: StorableString.annotations(exampleOf(ExampleIds.thread))
})
export const DashboardRunPath = Schema.Struct({
  project_id: ProjectId,
  run_id: StorableString.annotations(exampleOf(ExampleIds.run))
})
export const DashboardTopicPath = Schema.Struct({
  project_id: ProjectId,
  topic_id: StorableString.annotations(exampleOf(ExampleIds.topic))
})
export const DashboardTracePath = Schema.Struct({
  project_id: ProjectId,
  trace_id: StorableString.annotations(exampleOf(ExampleIds.trace))
})

/** A thread as the dashboard's table shows it: the thread, who started it and how many messages it holds. */
export class DashboardThread extends Thread.extend<DashboardThread>("DashboardThread")({
  user_id: Schema.String,
  message_count: Schema.Number
}) {}

export const DashboardThreadQuery = Schema.Struct({
  limit: PageLimit(Limits.dashboard.rowsDefault, Limits.dashboard.rowsMax),
  /** The last thread id of the previous page. */
  after: Schema.optional(StorableString),
  is_archived: Schema.optional(QueryBoolean),
  user_id: Schema.optional(StorableString),
  workspace_id: Schema.optional(StorableString),
  /** Last message at or after. */
  from: Schema.optional(Timestamp),
  /** Last message before. */
  to: Schema.optional(Timestamp)
})
export type DashboardThreadQuery = typeof DashboardThreadQuery.Type

export const DashboardThreadList = Schema.Struct({ threads: Schema.Array(DashboardThread) })

export const MessageFeedback = Schema.Struct({
  message_id: Id,
  user_id: Schema.String,
  type: FeedbackType,
  comment: Schema.NullOr(Schema.String),
  created_at: Timestamp
})

export const DashboardThreadDetail = Schema.Struct({
  thread: DashboardThread,
  feedback: Schema.Array(MessageFeedback)
})

export const ScoreSummaryQuery = Schema.Struct({
  name: Schema.optional(StorableString),
  data_type: Schema.optional(ScoreDataType),
  source: Schema.optional(ScoreSource),
  thread_id: Schema.optional(StorableString),
  message_id: Schema.optional(StorableString),
  run_id: Schema.optional(StorableString)
})
export type ScoreSummaryQuery = typeof ScoreSummaryQuery.Type

/** One score name's distribution: categories as counts, numbers as a histogram, booleans as counts. */
export const ScoreDistribution = Schema.Struct({
  name: Schema.String,
  data_type: ScoreDataType,
  count: Schema.Number,
  /** Categorical: the most frequent values (at most 20). */
  categories: Schema.Array(Schema.Struct({ value: Schema.String, count: Schema.Number })),
  /** Numeric: 10 buckets of equal width between min and max. */
  histogram: Schema.NullOr(
    Schema.Struct({
      min: Schema.Number,
      max: Schema.Number,
      buckets: Schema.Array(Schema.Struct({ from: Schema.Number, to: Schema.Number, count: Schema.Number }))
    })
  ),
  /** Boolean: how many are true and false. */
  booleans: Schema.NullOr(Schema.Struct({ true: Schema.Number, false: Schema.Number }))
})
export type ScoreDistribution = typeof ScoreDistribution.Type

/** At most 50 names, most scored first. */
export const ScoreSummary = Schema.Struct({ names: Schema.Array(ScoreDistribution) })
