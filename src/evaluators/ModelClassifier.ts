import type * as Prompt from "@effect/ai/Prompt"
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import { EVALUATOR_LIMITS } from "../../schema/Evaluator.js"
import { layerBounded, MODEL_ANSWER_MAX_BYTES, type ModelOptions } from "../platform/model/BoundedModel.js"
import { type Classification, EvaluatorModel, EvaluatorModelFailed } from "./EvaluatorModel.js"

export { MODEL_ANSWER_MAX_BYTES, type ModelOptions }

/** The answer is one category name: a few tokens are plenty. */
const MAX_OUTPUT_TOKENS = 32

const prompt = (input: Classification): ReadonlyArray<Prompt.MessageEncoded> => [
  {
    role: "system",
    content:
      `${input.prompt ?? "Classify the text."}\n\nAnswer with exactly one of these categories and nothing else: ` +
      `${input.categories.map((name) => JSON.stringify(name)).join(", ")}. ` +
      'If none fits, answer "none".'
  },
  { role: "user", content: input.text.slice(0, EVALUATOR_LIMITS.inputMaxChars) }
]

/**
 * The evaluator model: one bounded call per classification (src/platform/model/BoundedModel.ts:
 * the answer read to MODEL_ANSWER_MAX_BYTES, the call within EVALUATOR_MODEL_TIMEOUT_MS).
 */
export const layerModel = (options: ModelOptions): Layer.Layer<EvaluatorModel> =>
  layerBounded(options, { name: "the evaluator model", maxOutputTokens: MAX_OUTPUT_TOKENS }, EvaluatorModel, (model) =>
    EvaluatorModel.of({
      configured: true,
      classify: (input) =>
        model.answer(prompt(input)).pipe(Effect.mapError((error) => new EvaluatorModelFailed({ reason: error.reason })))
    })
  )
