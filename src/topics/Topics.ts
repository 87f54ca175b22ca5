/**
 * Reading topics (issue 26): the project API's, MCP's and the dashboard's
 * one use case. The window is TOPICS_WINDOW_DAYS calendar days (UTC) ending
 * today; a topic's figures count its threads started in it.
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { notFound } from "../../schema/Errors.js"
import {
  type ProjectThread,
  type Topic,
  type TopicList,
  TopicSample,
  type TopicThreadQuery
} from "../../schema/Topic.js"
import { AppConfig } from "../platform/Config.js"
import { fn } from "../platform/telemetry/Traced.js"
import { Threads } from "../threads/Threads.js"
import { TopicsRepo } from "./TopicsRepo.js"

const DAY_MS = 86_400_000

const Days = Schema.parseJson(Schema.Array(Schema.Struct({ date: Schema.String, threads: Schema.Number })))
const Samples = Schema.parseJson(Schema.Array(TopicSample))
const decodeDays = Schema.decodeUnknownSync(Days)
const decodeSamples = Schema.decodeUnknownSync(Samples)

/** The window's first instant: midnight UTC, `days - 1` days before today's. */
export const windowStart = (nowMs: number, days: number): Date => {
  const today = Math.floor(nowMs / DAY_MS) * DAY_MS
  return new Date(today - (days - 1) * DAY_MS)
}

/** Every day of the window, oldest first, with the topic's threads started on it (0 on days without). */
const everyDay = (from: Date, days: number, counts: ReadonlyArray<{ date: string; threads: number }>) => {
  const byDate = new Map(counts.map((day) => [day.date, day.threads] as const))
  return Array.from({ length: days }, (_, i) => {
    const date = new Date(from.getTime() + i * DAY_MS).toISOString().slice(0, 10)
    return { date, threads: byDate.get(date) ?? 0 }
  })
}

export class Topics extends Effect.Service<Topics>()("svc/Topics", {
  dependencies: [TopicsRepo.Default, Threads.Default],
  effect: Effect.gen(function* () {
    const repo = yield* TopicsRepo
    const threads = yield* Threads
    const days = yield* AppConfig.topicsWindowDays

    const window = Effect.map(Clock.currentTimeMillis, (ms) => ({ from: windowStart(ms, days), to: new Date(ms) }))

    /** The project's topics over the window, most threads first (topics with none left in it are not listed). */
    const list = fn("Topics.list")(function* (projectId: string) {
      const { from, to } = yield* window
      const info = yield* repo.runInfo(projectId)
      const rows = yield* repo.figures(projectId, from)
      const topics = rows
        .filter((row) => row.thread_count > 0)
        .map(
          (row): Topic => ({
            id: row.id,
            label: row.label,
            keywords: row.keywords,
            thread_count: row.thread_count,
            daily: everyDay(from, days, decodeDays(row.days)),
            sample_threads: decodeSamples(row.samples)
          })
        )
        .sort((a, b) => b.thread_count - a.thread_count || (a.label < b.label ? -1 : a.label > b.label ? 1 : 0))
      const answer: TopicList = {
        topics,
        computed_at: info.computed_at,
        window_from: from,
        window_to: to,
        ceiling: info.ceiling,
        unassigned: yield* repo.unassigned(projectId, from)
      }
      return answer
    })

    /** A topic's threads of the window, most recent activity first; 404 for a topic the project does not have. */
    const threadsOf = fn("Topics.threads")(function* (projectId: string, topicId: string, query: TopicThreadQuery) {
      if (!(yield* repo.exists(projectId, topicId))) return yield* Effect.fail(notFound("topic"))
      const { from } = yield* window
      const page: ReadonlyArray<ProjectThread> = yield* threads.listTopic(projectId, topicId, from, query)
      return { threads: page }
    })

    return { list, threads: threadsOf } as const
  })
}) {}
