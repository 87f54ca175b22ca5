import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as Effect from "effect/Effect"
import { ProjectCaller } from "../../schema/Api/Security.js"
import { Api } from "../../schema/Api.js"
import { invalid } from "../../schema/Errors.js"
import { Limits } from "../../schema/Limits.js"
import type { UsageQuery } from "../../schema/Usage.js"
import { Messages } from "../../src/Messages.js"
import { Runs } from "../../src/Runs.js"
import { Scores } from "../../src/Scores.js"
import { Threads } from "../../src/Threads.js"
import { Usage, utcDay } from "../../src/Usage.js"
import { messagePage, rawJson } from "./Messages.js"

const DAY_MS = 86_400_000

/**
 * The span of a usage query: `to` defaults to today (UTC) and `from` to 29
 * days before `to` (30 days in all); at most 366 days, `from` not after `to`.
 */
const span = (query: UsageQuery) => {
  const to = query.to ?? utcDay(new Date())
  const from = query.from ?? utcDay(new Date(Date.parse(to) - (Limits.usage.defaultDays - 1) * DAY_MS))
  const days = (Date.parse(to) - Date.parse(from)) / DAY_MS + 1
  if (days < 1) return Effect.fail(invalid("from must not be after to", "from"))
  if (days > Limits.usage.maxDays) {
    return Effect.fail(invalid(`the span is ${days} days; at most ${Limits.usage.maxDays}`, "from"))
  }
  return Effect.succeed({ from, to })
}

export const ProjectsLive = HttpApiBuilder.group(Api, "projects", (handlers) =>
  Effect.gen(function* () {
    const threads = yield* Threads
    const messages = yield* Messages
    const runs = yield* Runs
    const scores = yield* Scores
    const usage = yield* Usage
    return handlers
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
          Effect.map((rows) => rawJson(`{"runs":[${rows.join(",")}]}`))
        )
      )
      .handle("run", ({ path }) => Effect.flatMap(ProjectCaller, ({ projectId }) => runs.get(projectId, path.run_id)))
      .handle("scores", ({ urlParams }) =>
        Effect.flatMap(ProjectCaller, ({ projectId }) => scores.list(projectId, urlParams)).pipe(
          Effect.map((list) => ({ scores: list }))
        )
      )
      .handle("usageDaily", ({ urlParams }) =>
        Effect.gen(function* () {
          const { projectId } = yield* ProjectCaller
          const { from, to } = yield* span(urlParams)
          return { days: yield* usage.daily(projectId, from, to) }
        })
      )
      .handle("usagePeriod", ({ urlParams }) =>
        Effect.gen(function* () {
          const { projectId } = yield* ProjectCaller
          const { from, to } = yield* span(urlParams)
          return { from, to, ...(yield* usage.period(projectId, from, to)) }
        })
      )
  })
)
