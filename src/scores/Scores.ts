import * as Effect from "effect/Effect"
import type { CallerShape } from "../../schema/Api/Security.js"
import type { ScoreSummaryQuery } from "../../schema/Dashboard.js"
import { invalid, notFound } from "../../schema/Errors.js"
import { type CreateScore, ScoreCreated, type ScoreListQuery } from "../../schema/Score.js"
import { settled } from "../platform/db/WriteOutcome.js"
import { newId } from "../platform/Ids.js"
import { fn } from "../platform/telemetry/Traced.js"
import { Usage } from "../usage/Usage.js"
import { Outbox } from "../webhooks/Outbox.js"
import { assembleSummary, hasSpread, innerEdges, SUMMARY_CATEGORIES_MAX, SUMMARY_NAMES_MAX } from "./ScoreSummary.js"
import { ScoreSummaryRepo } from "./ScoreSummaryRepo.js"
import { ScoresRepo } from "./ScoresRepo.js"

/** The value a score stores, by data type (docs/decisions.md "Scores"), or the problem with it. */
const storedValue = (input: CreateScore): { value: number | null } | { problem: string; path: string } => {
  switch (input.data_type) {
    case "numeric":
      return typeof input.value === "number"
        ? { value: input.value }
        : { problem: "a numeric score needs a number value", path: "value" }
    case "boolean":
      return typeof input.value === "boolean"
        ? { value: input.value ? 1 : 0 }
        : { problem: "a boolean score needs a boolean value", path: "value" }
    case "categorical":
      if (input.string_value === undefined) {
        return { problem: "a categorical score needs a string_value", path: "string_value" }
      }
      if (typeof input.value === "boolean") return { problem: "value must be a number", path: "value" }
      return { value: input.value ?? null }
  }
}

export class Scores extends Effect.Service<Scores>()("svc/Scores", {
  dependencies: [ScoresRepo.Default, ScoreSummaryRepo.Default, Outbox.Default, Usage.Default],
  effect: Effect.gen(function* () {
    const repo = yield* ScoresRepo
    const summaries = yield* ScoreSummaryRepo
    const outbox = yield* Outbox
    const usage = yield* Usage

    const create = fn("Scores.create")(function* (caller: CallerShape, input: CreateScore) {
      const checked = storedValue(input)
      if ("problem" in checked) return yield* Effect.fail(invalid(checked.problem, checked.path))
      // Every target given must exist in the caller's workspace, and they must agree on the thread.
      const found = yield* repo.targets(caller, {
        ...(input.thread_id === undefined ? {} : { threadId: input.thread_id }),
        ...(input.message_id === undefined ? {} : { messageId: input.message_id }),
        ...(input.run_id === undefined ? {} : { runId: input.run_id })
      })
      if (input.thread_id !== undefined && found.thread === null) return yield* Effect.fail(notFound("thread"))
      if (input.message_id !== undefined && found.message_thread === null) {
        return yield* Effect.fail(notFound("message"))
      }
      if (input.run_id !== undefined && found.run_thread === null) return yield* Effect.fail(notFound("run"))
      const threads = [found.thread, found.message_thread, found.run_thread].filter((id) => id !== null)
      const threadId = threads[0] ?? null
      if (threads.some((id) => id !== threadId)) {
        return yield* Effect.fail(invalid("the score's targets belong to different threads", "thread_id"))
      }
      const id = newId("score")
      const insert = Effect.catchTag(
        repo.insert(caller, {
          id,
          userId: caller.userId,
          name: input.name,
          dataType: input.data_type,
          value: checked.value,
          stringValue: input.string_value ?? null,
          comment: input.comment ?? null,
          threadId,
          messageId: input.message_id ?? null,
          runId: input.run_id ?? null
        }),
        "RowNotFound",
        () => Effect.fail(notFound("score target"))
      )
      // score.created goes out with the score (the outbox). Cut off from the store, the score is looked up
      // by its id before answering (WriteOutcome.ts).
      yield* settled(
        "score",
        repo.stored(caller.projectId, id)
      )(
        outbox.withEvent(caller.projectId, "score.created", insert, () =>
          Effect.succeed({
            id,
            name: input.name,
            data_type: input.data_type,
            value: checked.value,
            string_value: input.string_value ?? null,
            comment: input.comment ?? null,
            thread_id: threadId,
            message_id: input.message_id ?? null,
            run_id: input.run_id ?? null,
            user_id: caller.userId,
            workspace_id: caller.workspaceId
          })
        )
      )
      usage.record(caller.projectId, caller.userId, { scores: 1 })
      return ScoreCreated.make({
        score_id: id,
        name: input.name,
        data_type: input.data_type,
        value: checked.value,
        string_value: input.string_value ?? null
      })
    })

    const list = fn("Scores.list")(function* (projectId: string, query: ScoreListQuery) {
      return yield* repo.list(projectId, {
        limit: query.limit,
        after: query.after,
        name: query.name,
        threadId: query.thread_id,
        messageId: query.message_id,
        runId: query.run_id,
        dataType: query.data_type,
        source: query.source
      })
    })

    /**
     * Per name and data type (at most 50, most scored first), with the list's filters (name,
     * data_type, source, thread, message, run): how many scores; categorical: the 20 most frequent values; numeric: a histogram
     * of 10 buckets of equal width between min and max; boolean: how many are true and false.
     */
    const summary = fn("Scores.summary")(function* (projectId: string, query: ScoreSummaryQuery) {
      const filters = {
        name: query.name,
        dataType: query.data_type,
        source: query.source,
        threadId: query.thread_id,
        messageId: query.message_id,
        runId: query.run_id
      }
      const names = yield* summaries.names(projectId, filters, SUMMARY_NAMES_MAX)
      const categorical = names.filter((row) => row.data_type === "categorical").map((row) => row.name)
      const spread = names.filter(hasSpread).map((row) => ({ name: row.name, thresholds: innerEdges(row) }))
      const [categories, buckets] = yield* Effect.all(
        [
          categorical.length === 0
            ? Effect.succeed([])
            : summaries.categories(projectId, filters, categorical, SUMMARY_CATEGORIES_MAX),
          spread.length === 0 ? Effect.succeed([]) : summaries.histograms(projectId, filters, spread)
        ],
        { concurrency: "unbounded" }
      )
      return assembleSummary(names, categories, buckets)
    })

    return {
      create,
      list,
      summary,
      /** A score another feature derived (an evaluator's label), written as given; RowNotFound when its target is gone. */
      insertDerived: repo.insert
    } as const
  })
}) {}
