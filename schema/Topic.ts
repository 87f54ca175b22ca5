/**
 * Topics (issue 26): what a project's users talk about, found by the
 * `topics` job in their own words (docs/decisions.md "Topics").
 */
import * as Schema from "effect/Schema"
import { Id, PageLimit, Timestamp } from "./Common.js"
import { ExampleIds, exampleOf } from "./Examples.js"
import { Limits } from "./Limits.js"
import { StorableString } from "./Text.js"
import { Thread } from "./Thread.js"

/** A thread as the project API writes it: the workspace API's thread and the topic the topics job put it in. */
export class ProjectThread extends Thread.extend<ProjectThread>("ProjectThread")({
  topic_id: Schema.NullOr(Schema.String).annotations({
    description: "The thread's topic (GET /v1/projects/topics), or null when it is in none (yet)"
  })
}) {}

export const ProjectThreadList = Schema.Struct({ threads: Schema.Array(ProjectThread) })

/** One day of a topic's chart: the threads started that day (UTC) that are in the topic. */
export const TopicDay = Schema.Struct({
  date: Schema.String.annotations({ description: "YYYY-MM-DD (UTC)" }),
  threads: Schema.Number
})

export const TopicSample = Schema.Struct({
  id: Id,
  title: Schema.NullOr(Schema.String),
  last_message_at: Timestamp
})

export const Topic = Schema.Struct({
  id: Id,
  label: Schema.String.annotations({
    description:
      "Its most distinctive words or phrases, comma-separated; or, with a topics model configured, the name the model gave it"
  }),
  keywords: Schema.Array(Schema.String).annotations({ description: "Up to ten terms, most distinctive first" }),
  thread_count: Schema.Number.annotations({
    description: "Threads of the window in the topic (the last full run's and those placed since)"
  }),
  daily: Schema.Array(TopicDay).annotations({ description: "Every day of the window, oldest first" }),
  sample_threads: Schema.Array(TopicSample).annotations({ description: "Up to three threads, most recent first" })
})
export type Topic = typeof Topic.Type

export const TopicList = Schema.Struct({
  topics: Schema.Array(Topic).annotations({ description: "Most threads first" }),
  computed_at: Schema.NullOr(Timestamp).annotations({
    description: "When the last full run grouped the threads; null before the first run"
  }),
  window_from: Timestamp,
  window_to: Timestamp,
  ceiling: Schema.Number.annotations({ description: "The project's topic ceiling: at most this many topics" }),
  unassigned: Schema.Number.annotations({ description: "Threads of the window in no topic" })
})
export type TopicList = typeof TopicList.Type

export const TopicPath = Schema.Struct({ topic_id: StorableString.annotations(exampleOf(ExampleIds.topic)) })

export const TopicThreadQuery = Schema.Struct({
  limit: PageLimit(Limits.thread.listDefault, Limits.thread.listMax),
  /** The last thread id of the previous page. */
  after: Schema.optional(StorableString)
})
export type TopicThreadQuery = typeof TopicThreadQuery.Type
