/**
 * The topics job's use of the model, when one is configured (TOPICS_MODEL_*,
 * docs/decisions.md "Topics"): naming a full run's topics and placing the
 * threads no topic's words fit, in a full run (assistRun) and between runs
 * (assistPlacement). The model fails no step: a call that fails, times out,
 * answers too much or answers something that is not a name or a choice
 * leaves the extractive outcome (the label, no topic) and is logged. Bounded
 * by MODEL_BOUNDS (Naming.ts): topics and threads per run, text per
 * question, calls in flight, and the time each step may take.
 */
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { yieldToEventLoop } from "../platform/jobs/EventLoop.js"
import { type PreviousTopic, placementIndex, type TopicModel, type TopicThread } from "./Clustering.js"
import {
  choiceOf,
  chooseSamples,
  MODEL_BOUNDS,
  membersFingerprint,
  nameOf,
  namingQuestion,
  placingQuestion
} from "./Naming.js"
import { TopicNamer, TopicNamerFailed, type TopicQuestion } from "./TopicNamer.js"
import { TopicsRepo } from "./TopicsRepo.js"

/** A name the model gave, with the members it was given for (a topic with the same members keeps it). */
export interface NamedTopic {
  readonly id: string
  readonly members: string
  readonly label: string
}

export interface TopicToName {
  readonly id: string
  readonly members: ReadonlyArray<string>
  readonly keywords: ReadonlyArray<string>
  /** Sample user texts, chosen only when a call is made. */
  readonly samples: () => ReadonlyArray<string>
}

export interface OfferedTopic {
  readonly id: string
  readonly label: string
  readonly keywords: ReadonlyArray<string>
}

export interface ThreadToPlace {
  readonly id: string
  readonly texts: ReadonlyArray<string>
}

export interface ModelTally {
  /** Topics the model named in this run. */
  named: number
  /** Topics that kept the model's name of a previous run (same members: no call). */
  kept: number
  /** Threads the model placed in a topic, and those it said fit none. */
  placed: number
  declined: number
  /** Calls that failed or answered something else than asked (the extractive outcome stayed). */
  failed: number
}

export const emptyTally = (): ModelTally => ({ named: 0, kept: 0, placed: 0, declined: 0, failed: 0 })

/** What the stored placement model keeps of the model's work for the next run (TopicJob.ts StoredModel). */
export interface ModelMemory {
  /** The model's names, with the members each was given for (absent: none, or no model). */
  readonly named?: ReadonlyArray<NamedTopic> | undefined
  /** Threads the model said fit no topic (not asked again). */
  readonly declined?: ReadonlyArray<string> | undefined
}

export const TopicModelAssist = Effect.gen(function* () {
  const namer = yield* TopicNamer
  const repo = yield* TopicsRepo

  /** One question within what is left of the step's time; a failure is logged and answers None. */
  const ask = (
    question: TopicQuestion,
    deadline: number,
    context: Record<string, string>,
    tally: ModelTally
  ): Effect.Effect<Option.Option<string>> =>
    Effect.gen(function* () {
      const left = deadline - (yield* Clock.currentTimeMillis)
      if (left <= 0) return Option.none<string>()
      const outcome = yield* Effect.either(
        namer.ask(question).pipe(
          Effect.timeoutFail({
            duration: Duration.millis(left),
            onTimeout: () => new TopicNamerFailed({ reason: "the run's time for the topics model is spent" })
          })
        )
      )
      if (outcome._tag === "Right") return Option.some(outcome.right)
      tally.failed++
      yield* Effect.logWarning("a topics model call failed; the extractive outcome stays").pipe(
        Effect.annotateLogs({ ...context, reason: outcome.left.reason })
      )
      return Option.none<string>()
    })

  const rejected = (what: string, context: Record<string, string>, tally: ModelTally) => {
    tally.failed++
    return Effect.logWarning(`the topics model's answer was not ${what}; the extractive outcome stays`).pipe(
      Effect.annotateLogs(context)
    )
  }

  /**
   * The model's names of a full run's topics (the first topicsPerRun of
   * them), by topic id: a topic whose members are those it was named for
   * keeps that name with no call; the others are asked for. Topics missing
   * from the answer keep their extractive labels. `named` is what to
   * remember for the next run.
   */
  const name = (
    projectId: string,
    topics: ReadonlyArray<TopicToName>,
    previous: ReadonlyArray<NamedTopic>,
    tally: ModelTally
  ) =>
    Effect.gen(function* () {
      const before = new Map(previous.map((named) => [named.id, named] as const))
      const deadline = (yield* Clock.currentTimeMillis) + MODEL_BOUNDS.namingBudgetMs
      const outcomes = yield* Effect.forEach(
        topics.slice(0, MODEL_BOUNDS.topicsPerRun),
        (topic) =>
          Effect.gen(function* () {
            const members = membersFingerprint(topic.members)
            const kept = before.get(topic.id)
            if (kept !== undefined && kept.members === members) {
              tally.kept++
              return Option.some<NamedTopic>(kept)
            }
            const context = { project_id: projectId, topic_id: topic.id }
            // Choosing samples reads up to 20 threads' text: requests get their turn first (EventLoop.ts).
            yield* yieldToEventLoop
            const answer = yield* ask(namingQuestion(topic.keywords, topic.samples()), deadline, context, tally)
            if (Option.isNone(answer)) return Option.none<NamedTopic>()
            const label = nameOf(answer.value)
            if (Option.isNone(label)) {
              yield* rejected("a name", context, tally)
              return Option.none<NamedTopic>()
            }
            tally.named++
            return Option.some<NamedTopic>({ id: topic.id, members, label: label.value })
          }),
        { concurrency: MODEL_BOUNDS.concurrency }
      )
      return outcomes.flatMap((outcome) => (Option.isSome(outcome) ? [outcome.value] : []))
    })

  /**
   * Where the model puts threads no topic's words fit (the first
   * placePerPass of them): thread id → topic id, and the threads it said fit
   * none. Only this project's topics are offered; an id not offered is none.
   */
  const place = (
    projectId: string,
    topics: ReadonlyArray<OfferedTopic>,
    threads: ReadonlyArray<ThreadToPlace>,
    tally: ModelTally
  ) =>
    Effect.gen(function* () {
      const placed = new Map<string, string>()
      const declined: Array<string> = []
      const offered = topics.slice(0, MODEL_BOUNDS.topicsPerRun)
      if (offered.length === 0) return { placed, declined }
      const deadline = (yield* Clock.currentTimeMillis) + MODEL_BOUNDS.placingBudgetMs
      yield* Effect.forEach(
        threads.slice(0, MODEL_BOUNDS.placePerPass),
        (thread) =>
          Effect.gen(function* () {
            const context = { project_id: projectId, thread_id: thread.id }
            const answer = yield* ask(placingQuestion(offered, thread.texts), deadline, context, tally)
            if (Option.isNone(answer)) return
            const choice = choiceOf(answer.value, offered.length)
            if (Option.isNone(choice)) return yield* rejected("a topic's id or none", context, tally)
            const topic = choice.value === undefined ? undefined : offered[choice.value]
            if (topic === undefined) {
              tally.declined++
              declined.push(thread.id)
              return
            }
            tally.placed++
            placed.set(thread.id, topic.id)
          }),
        { concurrency: MODEL_BOUNDS.concurrency, discard: true }
      )
      return { placed, declined }
    })

  /**
   * A full run's model steps (a topics model configured): names for its
   * topics, and topics for the threads the grouping left in none: the one
   * they had (a model placement that lasts while its topic does), else the
   * model's choice. `stored` is what the last run kept of the model's
   * work. Fills `topicOf`; answers the labels and what to store for the
   * next run.
   */
  const assistRun = (
    projectId: string,
    stored: ModelMemory | undefined,
    model: TopicModel,
    threads: ReadonlyArray<TopicThread>,
    previous: ReadonlyArray<PreviousTopic>,
    topicOf: Map<string, string>,
    tally: ModelTally
  ) =>
    Effect.gen(function* () {
      const textsOf = new Map(threads.map((thread) => [thread.id, thread.texts] as const))
      const { weights } = placementIndex(model)
      const toName = model.topics.map(
        (topic): TopicToName => ({
          id: topic.id,
          members: topic.members,
          keywords: topic.terms.map((term) => term.term),
          samples: () => chooseSamples(topic, weights, (id) => textsOf.get(id))
        })
      )
      const named = yield* name(projectId, toName, stored?.named ?? [], tally)
      const labels = new Map(model.topics.map((topic) => [topic.id, topic.label] as const))
      for (const topic of named) labels.set(topic.id, topic.label)
      const ids = new Set(model.topics.map((topic) => topic.id))
      for (const topic of previous) {
        if (!ids.has(topic.id)) continue
        for (const member of topic.members) if (!topicOf.has(member)) topicOf.set(member, topic.id)
      }
      const inWindow = new Set(threads.map((thread) => thread.id))
      const asked = (stored?.declined ?? []).filter((id) => inWindow.has(id))
      const askedSet = new Set(asked)
      const unplaced = threads.filter(
        (thread) => !topicOf.has(thread.id) && !askedSet.has(thread.id) && thread.texts.length > 0
      )
      const offered = model.topics.map((topic) => ({
        id: topic.id,
        label: labels.get(topic.id) ?? topic.label,
        keywords: topic.terms.map((term) => term.term)
      }))
      const { placed, declined } = yield* place(projectId, offered, unplaced, tally)
      for (const [thread, topic] of placed) topicOf.set(thread, topic)
      return { labels, named, declined: [...declined, ...asked].slice(0, MODEL_BOUNDS.declinedMax) }
    })

  /**
   * Between full runs, the topics model places the threads no topic's words
   * fit, choosing among the project's topics; those it says fit none are
   * remembered, so that the next full run does not ask about them again.
   */
  const assistPlacement = <Stored extends ModelMemory & { readonly topics: ReadonlyArray<{ readonly id: string }> }>(
    projectId: string,
    model: Stored,
    unplaced: ReadonlyArray<ThreadToPlace>,
    tally: ModelTally
  ) =>
    Effect.gen(function* () {
      const inModel = new Set(model.topics.map((topic) => topic.id))
      const offered = (yield* repo.labels(projectId)).filter((topic) => inModel.has(topic.id))
      const { placed, declined } = yield* place(projectId, offered, unplaced, tally)
      if (placed.size > 0)
        yield* repo.assign(
          projectId,
          [...placed].map(([id, topic]) => ({ id, topic }))
        )
      if (declined.length > 0) {
        const remembered = [...declined, ...(model.declined ?? [])].slice(0, MODEL_BOUNDS.declinedMax)
        yield* repo.setModel(projectId, JSON.stringify({ ...model, declined: remembered }))
      }
    })

  return { configured: namer.configured, assistRun, assistPlacement } as const
})
