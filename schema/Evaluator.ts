/** Evaluators (docs/decisions.md "Evaluators"): label new runs or threads with a category, written as a score. */
import * as Schema from "effect/Schema"
import { Timestamp } from "./Common.js"
import { ExampleIds, exampleOf } from "./Examples.js"
import { Limits } from "./Limits.js"
import { StorableString } from "./Text.js"

/**
 * The limits of an evaluator (docs/decisions.md "Evaluators": 20 per project, 10 categories each;
 * the rest bound the work).
 */
export const EVALUATOR_LIMITS = {
  perProject: 20,
  categoriesMax: 10,
  keywordsMax: 20,
  keywordMaxLength: 100,
  patternMaxLength: 200,
  promptMaxLength: 2_000,
  /** The text a rule or model reads: its first so many characters. */
  inputMaxChars: 4_000
} as const

const text = (what: string, max: number) =>
  StorableString.pipe(
    Schema.minLength(1, { message: () => `${what} must not be empty` }),
    Schema.maxLength(max, { message: () => `${what} is at most ${max} characters` })
  )

export const EvaluatorKind = Schema.Literal("rule", "model")
export const EvaluatorTarget = Schema.Literal("run", "thread")
export const EvaluatorField = Schema.Literal("output_text", "last_user_message")

export const EvaluatorCategory = Schema.Struct({
  /** The score's `string_value` when this category is chosen. */
  name: text("a category name", Limits.score.stringValueMaxLength),
  /** Any of these, found in the text (case-insensitive), chooses the category. */
  keywords: Schema.optional(
    Schema.Array(text("a keyword", EVALUATOR_LIMITS.keywordMaxLength)).pipe(
      Schema.maxItems(EVALUATOR_LIMITS.keywordsMax, {
        message: () => `at most ${EVALUATOR_LIMITS.keywordsMax} keywords a category`
      })
    )
  ),
  /** A regular expression (RE2 syntax, case-insensitive) that chooses the category when it matches. */
  pattern: Schema.optional(text("a pattern", EVALUATOR_LIMITS.patternMaxLength))
})
export type EvaluatorCategory = typeof EvaluatorCategory.Type

export const SamplingRate = Schema.Number.pipe(
  Schema.between(0, 1, { message: () => "sampling_rate is a number from 0 to 1" })
)

/** POST /evaluators and PUT /evaluators/{id} (a PUT replaces the whole evaluator). */
export const EvaluatorInput = Schema.Struct({
  name: text("name", Limits.score.nameMaxLength),
  kind: Schema.optionalWith(EvaluatorKind, { default: () => "rule" as const }),
  target: EvaluatorTarget,
  /** Default: output_text for runs, last_user_message for threads. */
  field: Schema.optional(EvaluatorField),
  sampling_rate: Schema.optionalWith(SamplingRate, { default: () => 1 }),
  categories: Schema.Array(EvaluatorCategory).pipe(
    Schema.minItems(1, { message: () => "at least one category" }),
    Schema.maxItems(EVALUATOR_LIMITS.categoriesMax, {
      message: () => `at most ${EVALUATOR_LIMITS.categoriesMax} categories`
    })
  ),
  /** Model evaluators: what to judge, before the list of categories. */
  prompt: Schema.optional(text("prompt", EVALUATOR_LIMITS.promptMaxLength))
}).annotations({
  identifier: "EvaluatorInput",
  parseOptions: { onExcessProperty: "error" },
  examples: [
    {
      name: "refusal",
      kind: "rule",
      target: "run",
      field: "output_text",
      sampling_rate: 1,
      categories: [
        { name: "refused", keywords: ["I can't help", "I cannot help"] },
        { name: "apology", pattern: "\\b(sorry|apologi[sz]e)\\b" }
      ]
    }
  ]
})
export type EvaluatorInput = typeof EvaluatorInput.Type
export type EvaluatorInputEncoded = typeof EvaluatorInput.Encoded

/** What an evaluator has done: targets evaluated, by outcome. */
export const EvaluatorStats = Schema.Struct({
  evaluated: Schema.Number,
  scored: Schema.Number,
  no_match: Schema.Number,
  retrying: Schema.Number,
  failed: Schema.Number
})

export const Evaluator = Schema.Struct({
  evaluator_id: Schema.String,
  name: Schema.String,
  kind: EvaluatorKind,
  target: EvaluatorTarget,
  field: EvaluatorField,
  sampling_rate: Schema.Number,
  categories: Schema.Array(EvaluatorCategory),
  prompt: Schema.NullOr(Schema.String),
  created_at: Timestamp,
  updated_at: Timestamp,
  stats: EvaluatorStats
})
export type Evaluator = typeof Evaluator.Type

export const EvaluatorList = Schema.Struct({ evaluators: Schema.Array(Evaluator) })

export const EVALUATOR_EXAMPLE_ID = "evl_01M80KEP26YA9DZXRJENQJN9YP"

export const EvaluatorPath = Schema.Struct({
  project_id: StorableString.annotations(exampleOf(ExampleIds.project)),
  evaluator_id: StorableString.pipe(Schema.maxLength(64)).annotations(exampleOf(EVALUATOR_EXAMPLE_ID))
})
