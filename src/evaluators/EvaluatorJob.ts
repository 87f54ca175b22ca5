import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { isPlainObject } from "../../schema/Common.js"
import { AppConfig } from "../platform/Config.js"
import { newId } from "../platform/Ids.js"
import { yieldToEventLoop } from "../platform/jobs/EventLoop.js"
import type { Job, JobResult } from "../platform/jobs/Jobs.js"
import { exponentialBackoff } from "../platform/jobs/Queue.js"
import { Scores } from "../scores/Scores.js"
import { toTurns } from "../titles/Conversation.js"
import { NO_USER, Usage } from "../usage/Usage.js"
import { Outbox } from "../webhooks/Outbox.js"
import { EvaluatorModel } from "./EvaluatorModel.js"
import { type EvaluatorRow, EvaluatorsRepo, type Outcome, type Target } from "./EvaluatorsRepo.js"
import { type CompiledRules, compileRules, type Match, matchRules, sampled } from "./Rules.js"

/** Targets taken per statement, per evaluator. */
const BATCH = 100
/** Evaluators read per page. */
const PAGE = 100
/** A pass stops starting targets after this long (so that the gateway's other jobs, run one after another, get their turn). */
const PASS_BUDGET_MS = 60_000
const now = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms))

/** The last user message among a thread's newest messages (their stored content, oldest first, as JSON). */
export const lastUserMessage = (contents: string | null): string => {
  if (contents === null) return ""
  const parsed: unknown = JSON.parse(contents)
  if (!Array.isArray(parsed)) return ""
  const messages = parsed.flatMap((content): Array<Record<string, unknown>> => {
    const value: unknown = typeof content === "string" ? JSON.parse(content) : content
    return isPlainObject(value) ? [value] : []
  })
  const turns = toTurns(messages).filter((turn) => turn.role === "user")
  return turns[turns.length - 1]?.text ?? ""
}

/** The category the model's answer names: the whole answer, else the first category it contains. */
export const categoryOfAnswer = (answer: string, categories: ReadonlyArray<string>): string | undefined => {
  const said = answer
    .trim()
    .replace(/^["'`*]+|["'`*.!]+$/g, "")
    .toLowerCase()
  return (
    categories.find((name) => name.toLowerCase() === said) ??
    categories.find((name) => said.includes(name.toLowerCase()))
  )
}

type Tally = { -readonly [K in "scored" | "no_match" | "retrying" | "failed" | "skipped" | "gone"]: number }

/**
 * The evaluators job: for each evaluator, the retries that are due, then the
 * targets created since its cursor (oldest first, in batches), each sampled
 * by a hash of its id, evaluated, and written once (the evaluation row is
 * the guard: a target another pass wrote already gets no second score).
 */
export class EvaluatorJob extends Effect.Service<EvaluatorJob>()("svc/EvaluatorJob", {
  dependencies: [EvaluatorsRepo.Default, Scores.Default, Outbox.Default, Usage.Default],
  effect: Effect.gen(function* () {
    const repo = yield* EvaluatorsRepo
    const scores = yield* Scores
    const outbox = yield* Outbox
    const usage = yield* Usage
    const model = yield* EvaluatorModel
    const intervalMs = (yield* AppConfig.evaluatorIntervalSeconds) * 1000
    const runDelay = yield* AppConfig.evaluatorRunDelaySeconds
    const threadDelay = yield* AppConfig.evaluatorThreadDelaySeconds
    const maxAttempts = yield* AppConfig.evaluatorMaxAttempts
    const backoff = exponentialBackoff((yield* AppConfig.evaluatorRetryBaseSeconds) * 1000)

    /** The category of one target, none, or the error of a model call. */
    const judge = (
      evaluator: EvaluatorRow,
      rules: CompiledRules,
      target: Target
    ): Effect.Effect<Match | undefined, string> => {
      const text = evaluator.target === "run" ? (target.text ?? "") : lastUserMessage(target.text)
      if (evaluator.kind === "rule") return matchRules(rules, text)
      if (text.trim() === "") return Effect.succeed(undefined)
      const names = evaluator.categories.map((category) => category.name)
      return model.classify({ prompt: evaluator.prompt, categories: names, text }).pipe(
        Effect.map((answer) => {
          const category = categoryOfAnswer(answer, names)
          return category === undefined
            ? undefined
            : { category, reason: `the model answered ${JSON.stringify(answer.trim().slice(0, 200))}` }
        }),
        Effect.mapError((error) => error.reason)
      )
    }

    /**
     * Evaluates one target and writes the outcome: the first one (`previous`
     * undefined) or the next of a retry. The score goes in the same
     * transaction as the evaluation row, and only when that row was written.
     */
    const evaluate = (
      evaluator: EvaluatorRow,
      rules: CompiledRules,
      target: Target,
      previous: number | undefined,
      tally: Tally
    ) =>
      Effect.gen(function* () {
        // Each target is a unit of work: the event loop gets its turn between them (EventLoop.ts).
        yield* yieldToEventLoop
        const attempts = (previous ?? 0) + 1
        const judged = yield* Effect.either(judge(evaluator, rules, target))
        const at = yield* now
        const outcome: Outcome =
          judged._tag === "Left"
            ? attempts >= maxAttempts
              ? {
                  status: "failed",
                  category: null,
                  scoreId: null,
                  attempts,
                  nextAttemptAt: null,
                  lastError: judged.left
                }
              : {
                  status: "retrying",
                  category: null,
                  scoreId: null,
                  attempts,
                  nextAttemptAt: new Date(at.getTime() + backoff(attempts)),
                  lastError: judged.left
                }
            : judged.right === undefined
              ? { status: "no_match", category: null, scoreId: null, attempts, nextAttemptAt: null, lastError: null }
              : {
                  status: "scored",
                  category: judged.right.category,
                  scoreId: newId("score"),
                  attempts,
                  nextAttemptAt: null,
                  lastError: null
                }
        let scoredUser: string | undefined
        const written = yield* repo
          .transaction(
            Effect.gen(function* () {
              const first =
                previous === undefined
                  ? yield* repo.claim(evaluator, target.id, outcome)
                  : yield* repo.settle(evaluator, target.id, previous, outcome)
              if (!first) return false
              if (outcome.scoreId !== null && judged._tag === "Right" && judged.right !== undefined) {
                const score = {
                  id: outcome.scoreId,
                  name: evaluator.name,
                  data_type: "categorical",
                  value: null,
                  string_value: judged.right.category,
                  comment: judged.right.reason,
                  thread_id: target.thread_id,
                  message_id: null,
                  run_id: evaluator.target === "run" ? target.id : null,
                  user_id: target.user_id ?? NO_USER,
                  workspace_id: target.workspace_id ?? ""
                } as const
                const insert = scores.insertDerived(
                  { projectId: evaluator.project_id, workspaceId: score.workspace_id },
                  {
                    id: score.id,
                    userId: score.user_id,
                    name: score.name,
                    dataType: score.data_type,
                    value: score.value,
                    stringValue: score.string_value,
                    comment: score.comment,
                    threadId: score.thread_id,
                    messageId: score.message_id,
                    runId: score.run_id
                  }
                )
                // score.created goes out with the score, as for a score a client posts.
                yield* outbox.withEvent(evaluator.project_id, "score.created", insert, () => Effect.succeed(score))
                scoredUser = score.user_id
              }
              return true
            })
          )
          .pipe(Effect.catchTag("RowNotFound", () => Effect.succeed(undefined)))
        if (written === undefined) tally.gone += 1
        else if (written) {
          tally[outcome.status] += 1
          // Counted in usage once the score is committed, as a posted score is.
          if (scoredUser !== undefined) usage.record(evaluator.project_id, scoredUser, { scores: 1 })
        }
      })

    const retries = (evaluator: EvaluatorRow, rules: CompiledRules, tally: Tally, inTime: Effect.Effect<boolean>) =>
      Effect.gen(function* () {
        for (const due of yield* repo.dueRetries(evaluator, yield* now, BATCH)) {
          // Those left stay due for the next pass.
          if (!(yield* inTime)) break
          const target = yield* repo.target(evaluator, due.target_id)
          if (Option.isNone(target)) {
            yield* repo.settle(evaluator, due.target_id, due.attempts, {
              status: "failed",
              category: null,
              scoreId: null,
              attempts: due.attempts,
              nextAttemptAt: null,
              lastError: "the target is gone"
            })
            tally.gone += 1
          } else {
            yield* evaluate(evaluator, rules, target.value, due.attempts, tally)
          }
        }
      })

    /**
     * One batch of new targets; false when there are no more or the pass is
     * out of time (checked before each target, so a batch of slow targets
     * stops within one target of the budget; the cursor moves past the
     * targets done only).
     */
    const fresh = (evaluator: EvaluatorRow, rules: CompiledRules, tally: Tally, inTime: Effect.Effect<boolean>) =>
      Effect.gen(function* () {
        const delay = evaluator.target === "run" ? runDelay : threadDelay
        const targets = yield* repo.newTargets(evaluator, delay, BATCH)
        let last: Target | undefined
        for (const target of targets) {
          if (!(yield* inTime)) break
          if (sampled(evaluator.sampling_rate, evaluator.id, target.id)) {
            yield* evaluate(evaluator, rules, target, undefined, tally)
          } else {
            tally.skipped += 1
          }
          last = target
        }
        if (last !== undefined) yield* repo.advance(evaluator, last.id)
        return targets.length === BATCH && last === targets[targets.length - 1]
      })

    const pass = Effect.gen(function* () {
      const deadline = (yield* Clock.currentTimeMillis) + PASS_BUDGET_MS
      const inTime = Effect.map(Clock.currentTimeMillis, (ms) => ms < deadline)
      const tally: Tally = { scored: 0, no_match: 0, retrying: 0, failed: 0, skipped: 0, gone: 0 }
      let after: { projectId: string; id: string } | undefined
      for (;;) {
        const evaluators = yield* repo.page(after, PAGE)
        for (const evaluator of evaluators) {
          if (!(yield* inTime)) break
          // An evaluator with nothing new is two queries, which PGlite answers without a turn of the event loop.
          yield* yieldToEventLoop
          // Compiled once for all of this evaluator's targets in the pass, and dropped after.
          const rules = compileRules(evaluator.kind === "rule" ? evaluator.categories : [])
          for (const { category, problem } of rules.refused) {
            yield* Effect.logWarning("an evaluator pattern is refused by RE2 and never matches").pipe(
              Effect.annotateLogs({ evaluator_id: evaluator.id, category, problem })
            )
          }
          yield* retries(evaluator, rules, tally, inTime)
          while ((yield* inTime) && (yield* fresh(evaluator, rules, tally, inTime))) {}
        }
        const last = evaluators[evaluators.length - 1]
        if (last === undefined || evaluators.length < PAGE || !(yield* inTime)) break
        after = { projectId: last.project_id, id: last.id }
      }
      const result: JobResult = { items: tally.scored + tally.no_match + tally.failed, details: { ...tally } }
      return result
    }).pipe(Effect.withSpan("Evaluators.pass"))

    const job: Job = { name: "evaluators", intervalMs, run: pass }
    return { job } as const
  })
}) {}
