/**
 * The model behind `model` evaluators: an OpenAI-compatible endpoint through
 * @effect/ai-openai, as titles use (its Responses API, `POST
 * {base}/responses`), set with EVALUATOR_MODEL_*. Unset: model evaluators
 * cannot be created. Each call is bounded: the text is cut to
 * EVALUATOR_LIMITS.inputMaxChars, the answer to a few tokens and what is read
 * of it to MODEL_ANSWER_MAX_BYTES (src/platform/model/BoundedModel.ts, the
 * call topics use too), the wait (reading included) to EVALUATOR_MODEL_TIMEOUT_MS.
 */
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

export class EvaluatorModelFailed extends Data.TaggedError("EvaluatorModelFailed")<{ readonly reason: string }> {}

export interface Classification {
  readonly prompt: string | null
  readonly categories: ReadonlyArray<string>
  readonly text: string
}

export class EvaluatorModel extends Context.Tag("svc/EvaluatorModel")<
  EvaluatorModel,
  {
    /** Whether a model is configured (model evaluators are refused otherwise). */
    readonly configured: boolean
    /** The model's answer, as it gave it. */
    readonly classify: (input: Classification) => Effect.Effect<string, EvaluatorModelFailed>
  }
>() {
  static readonly None = Layer.succeed(EvaluatorModel, {
    configured: false,
    classify: () => Effect.fail(new EvaluatorModelFailed({ reason: "no evaluator model is configured" }))
  })
}
