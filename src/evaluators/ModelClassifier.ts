import * as LanguageModel from "@effect/ai/LanguageModel"
import type * as Prompt from "@effect/ai/Prompt"
import * as OpenAiClient from "@effect/ai-openai/OpenAiClient"
import * as OpenAiLanguageModel from "@effect/ai-openai/OpenAiLanguageModel"
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientError from "@effect/platform/HttpClientError"
import * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type * as Redacted from "effect/Redacted"
import * as Stream from "effect/Stream"
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

/**
 * The most of a model's HTTP answer read, after decompression: a Responses
 * API object for 32 tokens is 1 to 3 KB, so 256 KiB leaves a hundred times
 * that for what a compatible server adds, and a server that answers more is
 * cut off there (docs/decisions.md "Evaluators").
 */
export const MODEL_ANSWER_MAX_BYTES = 256 * 1024
const TOO_LARGE = `the evaluator model's answer is over ${MODEL_ANSWER_MAX_BYTES / 1024} KiB`

/**
 * The answer read to MODEL_ANSWER_MAX_BYTES at most: reading stops at the
 * first chunk when the declared length is larger, else at the chunk that
 * passes the cap, and the stream is cancelled, which closes the connection.
 * The failure carries an empty response, so that nothing reads the rest of
 * the body to describe it.
 */
const capped = (response: HttpClientResponse.HttpClientResponse) =>
  Effect.gen(function* () {
    const declaredTooLarge = Number(response.headers["content-length"] ?? Number.NaN) > MODEL_ANSWER_MAX_BYTES
    const chunks: Array<Uint8Array> = []
    let size = 0
    // No body (a 204, or an error without one) is an empty answer here; the client decides what it means.
    const body = response.stream.pipe(
      Stream.catchAll((error) => (error.reason === "EmptyBody" ? Stream.empty : Stream.fail(error)))
    )
    yield* Stream.runForEachWhile(body, (chunk) =>
      Effect.sync(() => {
        size += chunk.length
        if (declaredTooLarge || size > MODEL_ANSWER_MAX_BYTES) return false
        chunks.push(chunk)
        return true
      })
    )
    if (declaredTooLarge || size > MODEL_ANSWER_MAX_BYTES) {
      return yield* new HttpClientError.ResponseError({
        request: response.request,
        response: HttpClientResponse.fromWeb(response.request, new Response(null, { status: response.status })),
        reason: "Decode",
        description: TOO_LARGE
      })
    }
    const read = [204, 205, 304].includes(response.status) ? null : Buffer.concat(chunks)
    return HttpClientResponse.fromWeb(
      response.request,
      new Response(read, { status: response.status, headers: response.headers })
    )
  })

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
          Effect.mapError(
            (error) =>
              new EvaluatorModelFailed({
                reason:
                  error._tag === "HttpResponseError" && error.description === TOO_LARGE
                    ? TOO_LARGE
                    : "the evaluator model failed"
              })
          ),
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
        apiKey: Option.getOrUndefined(options.apiKey),
        transformClient: HttpClient.transformResponse(Effect.flatMap(capped))
      })
    ),
    Layer.provide(FetchHttpClient.layer)
  )
