/**
 * The topics job's use of the model, when one is configured (TOPICS_MODEL_*,
 * docs/decisions.md "Topics"): naming a full run's topics and placing the
 * threads no topic's words fit. Never fails: a call that fails, times out,
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
import { choiceOf, MODEL_BOUNDS, membersFingerprint, nameOf, namingQuestion, placingQuestion } from "./Naming.js"
import { TopicNamer, TopicNamerFailed, type TopicQuestion } from "./TopicNamer.js"

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

export const TopicModelAssist = Effect.gen(function* () {
  const namer = yield* TopicNamer

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

  return { configured: namer.configured, name, place } as const
})
