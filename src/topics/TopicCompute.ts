/**
 * Where a full topics run computes: a worker thread (src/topics/ClusterWorker.ts),
 * bounded in time and memory. Clustering 10,000 threads is seconds of
 * synchronous arithmetic (bench:topics); on the gateway's own thread it would
 * hold every request, and PGlite's too, for that long.
 */
import { Worker } from "node:worker_threads"
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import { isPlainObject } from "../../schema/Common.js"
import type { ClusterOptions, TopicModel, TopicThread } from "./Clustering.js"

/**
 * The built worker's file (dist/topics-worker.js), given by the composition
 * root, which knows where dist/ is; undefined: full runs fail, saying so.
 */
export class TopicWorkerPath extends Context.Reference<TopicWorkerPath>()("svc/TopicWorkerPath", {
  defaultValue: (): string | undefined => undefined
}) {}

export class TopicComputeFailed extends Data.TaggedError("TopicComputeFailed")<{ readonly reason: string }> {}

/** What the worker is started with (structured-cloned: no functions in the options). */
export interface ClusterInput {
  readonly threads: ReadonlyArray<TopicThread>
  readonly options: Omit<ClusterOptions, "freshId">
}

export const isClusterInput = (value: unknown): value is ClusterInput =>
  isPlainObject(value) &&
  Array.isArray(value.threads) &&
  isPlainObject(value.options) &&
  typeof value.options.ceiling === "number"

const isTopicModel = (value: unknown): value is TopicModel =>
  isPlainObject(value) && value.version === 1 && Array.isArray(value.topics) && Array.isArray(value.vocabulary)

/** A run's bounds: longer or larger, and the worker is stopped and the run fails (the job tries again next pass). */
export const WORKER_TIMEOUT = Duration.minutes(5)
export const WORKER_HEAP_MB = 1536

/** One full run in a fresh worker thread; interrupted (or timed out), the worker is terminated. */
export const clusterInWorker = (
  workerPath: string | undefined,
  input: ClusterInput
): Effect.Effect<TopicModel, TopicComputeFailed> =>
  Effect.async<TopicModel, TopicComputeFailed>((resume) => {
    if (workerPath === undefined) {
      resume(
        Effect.fail(new TopicComputeFailed({ reason: "the topics worker's file was not given (TopicWorkerPath)" }))
      )
      return
    }
    const worker = new Worker(workerPath, {
      workerData: input,
      resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB }
    })
    let settled = false
    const settle = (outcome: Effect.Effect<TopicModel, TopicComputeFailed>) => {
      if (settled) return
      settled = true
      resume(outcome)
      void worker.terminate()
    }
    worker.once("message", (message: unknown) =>
      settle(
        isTopicModel(message)
          ? Effect.succeed(message)
          : Effect.fail(new TopicComputeFailed({ reason: "the topics worker answered something else than a model" }))
      )
    )
    worker.once("error", (error) => settle(Effect.fail(new TopicComputeFailed({ reason: error.message }))))
    worker.once("exit", (code) =>
      settle(Effect.fail(new TopicComputeFailed({ reason: `the topics worker exited (${code}) without a model` })))
    )
    return Effect.sync(() => {
      settled = true
      void worker.terminate()
    })
  }).pipe(
    Effect.timeoutFail({
      duration: WORKER_TIMEOUT,
      onTimeout: () =>
        new TopicComputeFailed({ reason: `a topics run took longer than ${Duration.format(WORKER_TIMEOUT)}` })
    })
  )
