import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as Effect from "effect/Effect"
import { ProjectCaller } from "../../schema/Api/Security.js"
import { Api } from "../../schema/Api.js"
import { Runs } from "../../src/runs/Runs.js"
import { Scores } from "../../src/scores/Scores.js"
import { Search } from "../../src/search/Search.js"
import { Messages } from "../../src/threads/Messages.js"
import { Threads } from "../../src/threads/Threads.js"
import { Topics } from "../../src/topics/Topics.js"
import { Traces } from "../../src/traces/Traces.js"
import { Usage } from "../../src/usage/Usage.js"
import { messagePage, rawJson } from "./Messages.js"

/** The project API's list and detail bodies, written from the rows' JSON (the dashboard answers the same). */
export const runsReply = (rows: ReadonlyArray<string>) => rawJson(`{"runs":[${rows.join(",")}]}`)
export const tracesReply = (page: { readonly traces: ReadonlyArray<string>; readonly next: string | null }) =>
  rawJson(`{"traces":[${page.traces.join(",")}],"next_after":${JSON.stringify(page.next)}}`)
export const traceReply = (detail: {
  readonly trace: string
  readonly spans: ReadonlyArray<string>
  readonly runs: ReadonlyArray<string>
}) => rawJson(`{"trace":${detail.trace},"spans":[${detail.spans.join(",")}],"runs":[${detail.runs.join(",")}]}`)

export const ProjectReadLive = HttpApiBuilder.group(Api, "projects", (handlers) =>
  Effect.gen(function* () {
    const threads = yield* Threads
    const messages = yield* Messages
    const runs = yield* Runs
    const scores = yield* Scores
    const usage = yield* Usage
    const traces = yield* Traces
    const search = yield* Search
    const topics = yield* Topics
    return handlers
      .handle("topics", () => Effect.flatMap(ProjectCaller, ({ projectId }) => topics.list(projectId)))
      .handle("topicThreads", ({ path, urlParams }) =>
        Effect.flatMap(ProjectCaller, ({ projectId }) => topics.threads(projectId, path.topic_id, urlParams))
      )
      .handle("search", ({ urlParams }) =>
        Effect.flatMap(ProjectCaller, ({ projectId }) => search.threadsJson({ projectId }, urlParams)).pipe(
          Effect.map(rawJson)
        )
      )
      .handle("threads", ({ urlParams }) =>
        Effect.flatMap(ProjectCaller, ({ projectId }) => threads.listProject(projectId, urlParams)).pipe(
          Effect.map((list) => ({ threads: list }))
        )
      )
      .handle("messages", ({ path, urlParams }) =>
        Effect.flatMap(ProjectCaller, ({ projectId }) =>
          messages.listProject(projectId, path.thread_id, urlParams)
        ).pipe(Effect.map(messagePage))
      )
      .handle("runs", ({ urlParams }) =>
        Effect.flatMap(ProjectCaller, ({ projectId }) => runs.listJson(projectId, urlParams)).pipe(
          Effect.map(runsReply)
        )
      )
      .handle("run", ({ path }) => Effect.flatMap(ProjectCaller, ({ projectId }) => runs.get(projectId, path.run_id)))
      .handle("scores", ({ urlParams }) =>
        Effect.flatMap(ProjectCaller, ({ projectId }) => scores.list(projectId, urlParams)).pipe(
          Effect.map((list) => ({ scores: list }))
        )
      )
      .handle("traces", ({ urlParams }) =>
        Effect.flatMap(ProjectCaller, ({ projectId }) => traces.listJson(projectId, urlParams)).pipe(
          Effect.map(tracesReply)
        )
      )
      .handle("trace", ({ path }) =>
        Effect.flatMap(ProjectCaller, ({ projectId }) => traces.getJson(projectId, path.trace_id)).pipe(
          Effect.map(traceReply)
        )
      )
      .handle("usageDaily", ({ urlParams }) =>
        Effect.flatMap(ProjectCaller, ({ projectId }) => usage.daily(projectId, urlParams)).pipe(
          Effect.map((days) => ({ days }))
        )
      )
      .handle("usagePeriod", ({ urlParams }) =>
        Effect.flatMap(ProjectCaller, ({ projectId }) => usage.period(projectId, urlParams)).pipe(
          Effect.map(({ from, to, totals }) => ({ from, to, ...totals }))
        )
      )
  })
)
