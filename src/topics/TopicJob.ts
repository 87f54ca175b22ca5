/**
 * The `topics` job (issue 26, docs/decisions.md "Topics"). Per project, each
 * pass either places the threads started since the last full run in their
 * nearest topics, or groups the window's threads again from scratch (a full
 * run) when there is none yet, the ceiling changed, the last one is older
 * than TOPICS_REFRESH_HOURS, or the placed threads say enough has changed
 * (Clustering.ts measureChange). A full run clusters in a worker thread
 * (TopicCompute.ts) and starts from the topics the threads have, so a topic
 * keeps its id while most of its threads stay. With a topics model
 * configured (TopicNamer), a full run's topics are named by it and the
 * threads no topic's words fit are placed by it (ModelAssist.ts); without
 * one, nothing of this runs.
 */
import { performance } from "node:perf_hooks"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { AppConfig } from "../platform/Config.js"
import { yieldToEventLoop } from "../platform/jobs/EventLoop.js"
import type { Job, JobResult } from "../platform/jobs/Jobs.js"
import { messageText } from "../platform/text/SearchText.js"
import {
  clusterTopics,
  measureChange,
  type PreviousTopic,
  placementIndex,
  placeThread,
  type TopicThread,
  toPlacementModel
} from "./Clustering.js"
import { emptyTally, type ModelTally, type ThreadToPlace, TopicModelAssist } from "./ModelAssist.js"
import { MODEL_BOUNDS } from "./Naming.js"
import { clusterInWorker, TopicWorkerPath } from "./TopicCompute.js"
import { type Assignment, type Position, type TopicProject, TopicsRepo, type WindowThread } from "./TopicsRepo.js"

const DAY_MS = 86_400_000
/** Threads read per statement. */
const PAGE = 1000
/** A pass starts no new project after this long (the other jobs, run one after another, get their turn). */
const PASS_BUDGET_MS = 120_000

const TopicTermSchema = Schema.Struct({ term: Schema.String, weight: Schema.Number })
/** The stored model, checked when read back (it is ours, but a column outlives the code that wrote it). */
const StoredModel = Schema.parseJson(
  Schema.Struct({
    version: Schema.Literal(1),
    threads: Schema.Number,
    vocabulary: Schema.Array(TopicTermSchema),
    topics: Schema.Array(
      Schema.Struct({
        id: Schema.String,
        centroid: Schema.Array(TopicTermSchema),
        threshold: Schema.Number,
        size: Schema.Number
      })
    ),
    /** The topics model's names, with the members each was given for (absent: none, or no model). */
    named: Schema.optional(
      Schema.Array(Schema.Struct({ id: Schema.String, members: Schema.String, label: Schema.String }))
    ),
    /** Threads the topics model said fit no topic (not asked again). */
    declined: Schema.optional(Schema.Array(Schema.String))
  })
)
type StoredModel = typeof StoredModel.Type
const decodeModel = Schema.decodeUnknownOption(StoredModel)

const Messages = Schema.parseJson(Schema.Array(Schema.Struct({ f: Schema.String, c: Schema.Unknown })))
const decodeMessages = Schema.decodeUnknownOption(Messages)

/** A thread's user text, message by message, as search reads it. */
export const userTexts = (messages: string): Array<string> => {
  const decoded = decodeMessages(messages)
  if (decoded._tag === "None") return []
  return decoded.value.map((message) => messageText(message.f, message.c)).filter((text) => text.trim() !== "")
}

const toTopicThread = (row: WindowThread): TopicThread => ({
  id: row.id,
  texts: userTexts(row.messages),
  createdAt: row.created_at.getTime(),
  lastMessageAt: row.last_message_at.getTime()
})

export class TopicJob extends Effect.Service<TopicJob>()("svc/TopicJob", {
  dependencies: [TopicsRepo.Default],
  effect: Effect.gen(function* () {
    const repo = yield* TopicsRepo
    const assist = yield* TopicModelAssist
    const workerPath = yield* TopicWorkerPath
    const intervalMs = (yield* AppConfig.topicsIntervalSeconds) * 1000
    const windowMs = (yield* AppConfig.topicsWindowDays) * DAY_MS
    const settleMs = (yield* AppConfig.topicsSettleSeconds) * 1000
    const refreshMs = (yield* AppConfig.topicsRefreshHours) * 3_600_000
    const maxThreads = yield* AppConfig.topicsMaxThreads

    /** The window's threads (the most recent `maxThreads`), with their topics now: the previous run's, for stable ids. */
    const readWindow = (projectId: string, from: Date, to: Date) =>
      Effect.gen(function* () {
        const threads: Array<TopicThread> = []
        const previous = new Map<string, Array<string>>()
        let before: WindowThread | undefined
        while (threads.length < maxThreads) {
          const rows = yield* repo.windowThreads(
            projectId,
            from,
            to,
            before,
            Math.min(PAGE, maxThreads - threads.length)
          )
          for (const row of rows) {
            // Reading a thread's messages is a unit of work: requests get their turn between them (EventLoop.ts).
            yield* yieldToEventLoop
            threads.push(toTopicThread(row))
            if (row.topic_id === null) continue
            const members = previous.get(row.topic_id)
            if (members === undefined) previous.set(row.topic_id, [row.id])
            else members.push(row.id)
          }
          yield* yieldToEventLoop
          before = rows[rows.length - 1]
          if (before === undefined || rows.length < PAGE) break
        }
        const topics: Array<PreviousTopic> = [...previous].map(([id, members]) => ({ id, members }))
        return { threads, previous: topics }
      })

    /** The project's placement model as the last full run stored it (undefined: none, or unreadable). */
    const storedModel = (projectId: string) =>
      Effect.map(repo.model(projectId), (raw) => Option.getOrUndefined(Option.flatMap(raw, decodeModel)))

    /** Groups the window's threads from scratch and stores the topics, each thread's topic and the placement model. */
    const fullRun = (project: TopicProject, at: Date) =>
      Effect.gen(function* () {
        const from = new Date(at.getTime() - windowMs)
        // Threads younger than TOPICS_SETTLE_SECONDS may not have their first message yet: placement takes them later.
        const until = new Date(at.getTime() - settleMs)
        const started = performance.now()
        const { threads, previous } = yield* readWindow(project.id, from, until)
        const read = performance.now()
        const options = { ceiling: project.ceiling, previous, now: at.getTime(), windowMs }
        // No thread: nothing to compute, and no worker started for it.
        const model =
          threads.length === 0 ? clusterTopics([], options) : yield* clusterInWorker(workerPath, { threads, options })
        const clustered = performance.now()
        const topicOf = new Map<string, string>()
        for (const topic of model.topics) for (const member of topic.members) topicOf.set(member, topic.id)
        const tally = emptyTally()
        const assisted = assist.configured
          ? yield* assist.assistRun(
              project.id,
              yield* storedModel(project.id),
              model,
              threads,
              previous,
              topicOf,
              tally
            )
          : undefined
        const modelled = performance.now()
        const stored: StoredModel = {
          ...toPlacementModel(model),
          ...(assisted === undefined ? {} : { named: assisted.named, declined: assisted.declined })
        }
        const assignments: Array<Assignment> = threads.map((thread) => ({
          id: thread.id,
          topic: topicOf.get(thread.id) ?? null
        }))
        yield* repo.saveRun(
          project.id,
          model.topics.map((topic) => ({
            id: topic.id,
            label: assisted?.labels.get(topic.id) ?? topic.label,
            keywords: topic.terms.map((term) => term.term)
          })),
          assignments,
          {
            computedAt: at,
            windowFrom: from,
            windowTo: until,
            ceiling: project.ceiling,
            threads: model.threads,
            model: JSON.stringify(stored)
          }
        )
        const ms = {
          read: read - started,
          cluster: clustered - read,
          model: modelled - clustered,
          write: performance.now() - modelled
        }
        return { threads: threads.length, topics: model.topics.length, ms, tally }
      })

    /**
     * Places the threads started since the last placed one (and at least
     * TOPICS_SETTLE_SECONDS ago), then says whether a full run is due.
     */
    const placeNew = (project: TopicProject, at: Date) =>
      Effect.gen(function* () {
        const started = performance.now()
        const model = yield* storedModel(project.id)
        const loaded = performance.now()
        const tally = emptyTally()
        if (model === undefined || project.window_to === null || project.placed_at === null) {
          return { placed: 0, rerun: true, loadMs: loaded - started, placeMs: 0, tally }
        }
        const index = placementIndex(model)
        const until = new Date(at.getTime() - settleMs)
        let cursor: Position = { position: project.placed_at, id: project.placed_id ?? "" }
        let placed = 0
        // Threads no topic's words fit, for the topics model (when configured) once the pages are placed.
        const unplaced: Array<ThreadToPlace> = []
        for (;;) {
          const rows = yield* repo.threadsToPlace(project.id, cursor, until, PAGE)
          const last = rows[rows.length - 1]
          if (last === undefined) break
          const assignments: Array<Assignment> = []
          for (const row of rows) {
            yield* yieldToEventLoop
            const texts = userTexts(row.messages)
            const placement = placeThread(index, { texts })
            assignments.push({ id: row.id, topic: placement?.topicId ?? null })
            if (placement === undefined && texts.length > 0 && unplaced.length < MODEL_BOUNDS.placePerPass) {
              unplaced.push({ id: row.id, texts })
            }
          }
          yield* repo.assign(project.id, assignments)
          cursor = { position: last.position, id: last.id }
          yield* repo.placed(project.id, cursor)
          placed += rows.length
          yield* yieldToEventLoop
          if (rows.length < PAGE) break
        }
        if (assist.configured && unplaced.length > 0) yield* assist.assistPlacement(project.id, model, unplaced, tally)
        const since = yield* repo.placedSince(project.id, project.window_to, cursor)
        const change = measureChange(
          model,
          since.map((row) => (row.topic_id === null ? undefined : { topicId: row.topic_id, similarity: 1 }))
        )
        return { placed, rerun: change.rerun, loadMs: loaded - started, placeMs: performance.now() - loaded, tally }
      })

    const pass = Effect.gen(function* () {
      const startedMs = yield* Clock.currentTimeMillis
      const tally = {
        projects_grouped: 0,
        threads_grouped: 0,
        topics: 0,
        threads_placed: 0,
        failed: 0,
        // Where the time went (ms), for operators and bench:topics-job.
        read_ms: 0,
        cluster_ms: 0,
        write_ms: 0,
        model_load_ms: 0,
        place_ms: 0,
        // The topics model's work (all 0 without one): docs/decisions.md "Topics".
        model_named: 0,
        model_kept: 0,
        model_placed: 0,
        model_declined: 0,
        model_failed: 0,
        model_ms: 0
      }
      const addModel = (model: ModelTally) => {
        tally.model_named += model.named
        tally.model_kept += model.kept
        tally.model_placed += model.placed
        tally.model_declined += model.declined
        tally.model_failed += model.failed
      }
      for (const project of yield* repo.projects()) {
        if ((yield* Clock.currentTimeMillis) - startedMs > PASS_BUDGET_MS) break
        const at = new Date(yield* Clock.currentTimeMillis)
        const stale =
          project.computed_at === null ||
          project.model_ceiling !== project.ceiling ||
          at.getTime() - project.computed_at.getTime() >= refreshMs
        const placement = stale
          ? { placed: 0, rerun: true, loadMs: 0, placeMs: 0, tally: emptyTally() }
          : yield* placeNew(project, at)
        tally.threads_placed += placement.placed
        addModel(placement.tally)
        tally.model_load_ms += Math.round(placement.loadMs)
        tally.place_ms += Math.round(placement.placeMs)
        if (!placement.rerun) continue
        const outcome = yield* Effect.either(fullRun(project, at))
        if (outcome._tag === "Left") {
          tally.failed++
          yield* Effect.logWarning("a topics run failed; the next pass tries again").pipe(
            Effect.annotateLogs({ project_id: project.id, reason: outcome.left.reason })
          )
          continue
        }
        tally.projects_grouped++
        tally.threads_grouped += outcome.right.threads
        tally.topics += outcome.right.topics
        tally.read_ms += Math.round(outcome.right.ms.read)
        tally.cluster_ms += Math.round(outcome.right.ms.cluster)
        tally.write_ms += Math.round(outcome.right.ms.write)
        tally.model_ms += Math.round(outcome.right.ms.model)
        addModel(outcome.right.tally)
      }
      const result: JobResult = { items: tally.threads_grouped + tally.threads_placed, details: { ...tally } }
      return result
    }).pipe(Effect.withSpan("Topics.pass"))

    const job: Job = { name: "topics", intervalMs, run: pass }
    return { job } as const
  })
}) {}
