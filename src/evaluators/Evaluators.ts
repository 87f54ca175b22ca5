import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { Conflict, invalid, notFound } from "../../schema/Errors.js"
import { EVALUATOR_LIMITS, type Evaluator, type EvaluatorInput } from "../../schema/Evaluator.js"
import { ulid } from "../platform/Ids.js"
import { fn } from "../platform/telemetry/Traced.js"
import { Projects } from "../projects/Projects.js"
import { EvaluatorModel } from "./EvaluatorModel.js"
import { type EvaluatorRow, type EvaluatorSettings, EvaluatorsRepo } from "./EvaluatorsRepo.js"
import { patternProblem } from "./Rules.js"

const DEFAULT_FIELD = { run: "output_text", thread: "last_user_message" } as const

/** The admin API's shape of a stored evaluator. */
export const evaluatorOf = (row: EvaluatorRow): Evaluator => ({
  evaluator_id: row.id,
  name: row.name,
  kind: row.kind,
  target: row.target,
  field: row.field,
  sampling_rate: row.sampling_rate,
  categories: row.categories,
  prompt: row.prompt,
  created_at: row.created_at,
  updated_at: row.updated_at,
  stats: row.stats
})

const nameTaken = (name: string) => new Conflict({ message: `the project has an evaluator named "${name}" already` })

/**
 * Evaluators (docs/decisions.md "Evaluators"): at most
 * EVALUATOR_LIMITS.perProject a project, each with 1 to 10 categories.
 * The rules of an evaluator that its schema cannot state are checked here:
 * the field its target reads, what each kind needs, distinct category names,
 * and patterns that compile as RE2 to a bounded program (evaluators/Rules.ts).
 */
export class Evaluators extends Effect.Service<Evaluators>()("svc/Evaluators", {
  dependencies: [EvaluatorsRepo.Default, Projects.Default],
  effect: Effect.gen(function* () {
    const repo = yield* EvaluatorsRepo
    const projects = yield* Projects
    const model = yield* EvaluatorModel

    const requireProject = projects.require

    const settingsOf = (input: EvaluatorInput) =>
      Effect.gen(function* () {
        const field = input.field ?? DEFAULT_FIELD[input.target]
        if (field !== DEFAULT_FIELD[input.target]) {
          return yield* Effect.fail(
            invalid(`a ${input.target} evaluator reads ${DEFAULT_FIELD[input.target]}, not ${field}`, "field")
          )
        }
        if (input.kind === "model" && !model.configured) {
          return yield* Effect.fail(
            invalid("model evaluators need an evaluator model (EVALUATOR_MODEL_BASE_URL is not set)", "kind")
          )
        }
        if (input.kind === "rule" && input.prompt !== undefined) {
          return yield* Effect.fail(invalid("a prompt is for model evaluators only", "prompt"))
        }
        const seen = new Set<string>()
        for (const [index, category] of input.categories.entries()) {
          if (seen.has(category.name)) {
            return yield* Effect.fail(
              invalid(`two categories are named "${category.name}"`, `categories.${index}.name`)
            )
          }
          seen.add(category.name)
          if (input.kind === "rule" && (category.keywords ?? []).length === 0 && category.pattern === undefined) {
            return yield* Effect.fail(
              invalid("a rule evaluator's category needs keywords or a pattern", `categories.${index}`)
            )
          }
          const problem = category.pattern === undefined ? undefined : patternProblem(category.pattern)
          if (problem !== undefined) {
            return yield* Effect.fail(invalid(`category "${category.name}": ${problem}`, `categories.${index}.pattern`))
          }
        }
        const settings: EvaluatorSettings = {
          name: input.name,
          kind: input.kind,
          target: input.target,
          field,
          sampling_rate: input.sampling_rate,
          categories: input.categories,
          prompt: input.prompt ?? null
        }
        return settings
      })

    const read = (projectId: string, id: string) =>
      Effect.flatMap(repo.get(projectId, id), (found) =>
        Option.isSome(found) ? Effect.succeed(evaluatorOf(found.value)) : Effect.fail(notFound("evaluator"))
      )

    const create = fn("Evaluators.create")(function* (projectId: string, input: EvaluatorInput) {
      const settings = yield* settingsOf(input)
      const id = `evl_${ulid()}`
      yield* repo.transaction(
        Effect.gen(function* () {
          if (!(yield* repo.lockProject(projectId))) return yield* Effect.fail(notFound("project"))
          const count = yield* repo.count(projectId)
          if (count >= EVALUATOR_LIMITS.perProject) {
            return yield* Effect.fail(
              new Conflict({ message: `a project has at most ${EVALUATOR_LIMITS.perProject} evaluators` })
            )
          }
          yield* Effect.catchTag(repo.insert(projectId, id, settings), "NameTaken", () =>
            Effect.fail(nameTaken(settings.name))
          )
        })
      )
      return yield* read(projectId, id)
    })

    const list = fn("Evaluators.list")(function* (projectId: string) {
      yield* requireProject(projectId)
      return (yield* repo.list(projectId)).map(evaluatorOf)
    })

    const update = fn("Evaluators.update")(function* (projectId: string, id: string, input: EvaluatorInput) {
      yield* requireProject(projectId)
      const settings = yield* settingsOf(input)
      const updated = yield* Effect.catchTag(repo.update(projectId, id, settings), "NameTaken", () =>
        Effect.fail(nameTaken(settings.name))
      )
      if (!updated) return yield* Effect.fail(notFound("evaluator"))
      return yield* read(projectId, id)
    })

    const remove = fn("Evaluators.remove")(function* (projectId: string, id: string) {
      yield* requireProject(projectId)
      if (!(yield* repo.remove(projectId, id))) return yield* Effect.fail(notFound("evaluator"))
    })

    return { create, list, update, remove, count: repo.count } as const
  })
}) {}
