/**
 * `svc evaluator create | list | update | delete` (docs/decisions.md
 * "Evaluators"), over the same service as the admin HTTP API. Categories
 * are given as JSON, as the API takes them.
 */
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import { InvalidRequest, Issue } from "../../schema/Errors.js"
import { type Evaluator, EvaluatorInput } from "../../schema/Evaluator.js"
import { Evaluators } from "../../src/evaluators/Evaluators.js"
import { print } from "./Output.js"

const projectId = Options.text("project").pipe(Options.withDescription("project id"))
const evaluatorId = Options.text("id").pipe(Options.withDescription("evaluator id (evl_...)"))

const settings = {
  name: Options.text("name").pipe(Options.withDescription("the evaluator's name: the name of the scores it writes")),
  kind: Options.choice("kind", ["rule", "model"]).pipe(Options.withDefault("rule" as const)),
  target: Options.choice("target", ["run", "thread"]).pipe(Options.withDescription("what it labels")),
  field: Options.optional(Options.choice("field", ["output_text", "last_user_message"])),
  samplingRate: Options.optional(Options.float("sampling-rate").pipe(Options.withDescription("0 to 1 (default 1)"))),
  categories: Options.text("categories").pipe(
    Options.withDescription('JSON: [{ "name": "...", "keywords": ["..."], "pattern": "..." }] (1 to 10)')
  ),
  prompt: Options.optional(Options.text("prompt").pipe(Options.withDescription("model evaluators: what to judge")))
}

type Given = {
  readonly name: string
  readonly kind: "rule" | "model"
  readonly target: "run" | "thread"
  readonly field: Option.Option<"output_text" | "last_user_message">
  readonly samplingRate: Option.Option<number>
  readonly categories: string
  readonly prompt: Option.Option<string>
}

/** The options as the API's body, checked by the API's schema. */
const inputOf = (given: Given) =>
  Effect.gen(function* () {
    const categories = yield* Effect.try({
      try: (): unknown => JSON.parse(given.categories),
      catch: () =>
        new InvalidRequest({
          message: "--categories is not JSON",
          issues: [new Issue({ path: "categories", message: "--categories is not JSON" })]
        })
    })
    const body = {
      name: given.name,
      kind: given.kind,
      target: given.target,
      categories,
      ...Option.match(given.field, { onNone: () => ({}), onSome: (field) => ({ field }) }),
      ...Option.match(given.samplingRate, { onNone: () => ({}), onSome: (rate) => ({ sampling_rate: rate }) }),
      ...Option.match(given.prompt, { onNone: () => ({}), onSome: (prompt) => ({ prompt }) })
    }
    return yield* Schema.decodeUnknown(EvaluatorInput)(body).pipe(
      Effect.mapError((error) => {
        const issues = ParseResult.ArrayFormatter.formatErrorSync(error).map(
          (issue) => new Issue({ path: issue.path.join("."), message: issue.message })
        )
        return new InvalidRequest({ message: issues[0]?.message ?? "the evaluator is invalid", issues })
      })
    )
  })

const line = (evaluator: Evaluator) =>
  `${evaluator.evaluator_id}\t${evaluator.name}\t${evaluator.kind} on ${evaluator.target}s (${evaluator.field})\t` +
  `sampling ${evaluator.sampling_rate}\t${evaluator.categories.map((category) => category.name).join(", ")}\t` +
  `evaluated ${evaluator.stats.evaluated}, scored ${evaluator.stats.scored}, failed ${evaluator.stats.failed}`

export const evaluatorCreate = Command.make("create", { projectId, ...settings }, ({ projectId, ...given }) =>
  Effect.gen(function* () {
    const created = yield* (yield* Evaluators).create(projectId, yield* inputOf(given))
    yield* print(created, line(created))
  })
)

export const evaluatorList = Command.make("list", { projectId }, ({ projectId }) =>
  Effect.gen(function* () {
    const evaluators = yield* (yield* Evaluators).list(projectId)
    yield* print({ evaluators }, evaluators.map(line).join("\n") || "no evaluators")
  })
)

export const evaluatorUpdate = Command.make(
  "update",
  { projectId, evaluatorId, ...settings },
  ({ evaluatorId, projectId, ...given }) =>
    Effect.gen(function* () {
      const updated = yield* (yield* Evaluators).update(projectId, evaluatorId, yield* inputOf(given))
      yield* print(updated, line(updated))
    })
)

export const evaluatorDelete = Command.make("delete", { projectId, evaluatorId }, ({ evaluatorId, projectId }) =>
  Effect.gen(function* () {
    yield* (yield* Evaluators).remove(projectId, evaluatorId)
    yield* print({ deleted: evaluatorId }, `deleted ${evaluatorId}`)
  })
)
