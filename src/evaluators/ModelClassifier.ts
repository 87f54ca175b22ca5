import * as LanguageModel from "@effect/ai/LanguageModel"
import type * as Prompt from "@effect/ai/Prompt"
import * as OpenAiClient from "@effect/ai-openai/OpenAiClient"
import * as OpenAiLanguageModel from "@effect/ai-openai/OpenAiLanguageModel"
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type * as Redacted from "effect/Redacted"
import { EVALUATOR_LIMITS } from "../../schema/Evaluator.js"
import { type Classification, EvaluatorModel, EvaluatorModelFailed } from "./EvaluatorModel.js"

export interface ModelOptions {
  readonly baseUrl: string
  readonly apiKey: Option.Option<Redacted.Redacted>
  readonly model: string
  readonly timeoutMs: number
}

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

const make = (timeoutMs: number) =>
  Effect.gen(function* () {
    const model = yield* LanguageModel.LanguageModel
    return EvaluatorModel.of({
      configured: true,
      classify: (input) =>
        model.generateText({ prompt: prompt(input) }).pipe(
          Effect.map((response) => response.text),
          Effect.mapError(() => new EvaluatorModelFailed({ reason: "the evaluator model failed" })),
          Effect.timeoutFail({
            duration: Duration.millis(timeoutMs),
            onTimeout: () => new EvaluatorModelFailed({ reason: `no answer from the model within ${timeoutMs} ms` })
          })
        )
    })
  })

export const layerModel = (options: ModelOptions): Layer.Layer<EvaluatorModel> =>
  Layer.effect(EvaluatorModel, make(options.timeoutMs)).pipe(
    Layer.provide(
      OpenAiLanguageModel.layer({ model: options.model, config: { max_output_tokens: MAX_OUTPUT_TOKENS } })
    ),
    Layer.provide(
      OpenAiClient.layer({
        apiUrl: options.baseUrl.replace(/\/+$/, ""),
        apiKey: Option.getOrUndefined(options.apiKey)
      })
    ),
    Layer.provide(FetchHttpClient.layer)
  )
