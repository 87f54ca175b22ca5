/**
 * One bounded, non-streamed call to an OpenAI-compatible model, shared by
 * the features that ask a model for a short answer (evaluators, topics):
 * through @effect/ai-openai, that is the Responses API (`POST
 * {base}/responses`). Each call is bounded whatever the endpoint does: at
 * most `maxOutputTokens` asked for, at most MODEL_ANSWER_MAX_BYTES of the
 * HTTP answer read (after decompression), and the whole call, reading
 * included, within `timeoutMs`. The key is a Redacted value: it is only
 * ever written into the request's Authorization header.
 *
 * Loaded only when a feature's model is configured (app/Implementations.ts):
 * @effect/ai-openai is seconds and tens of MB to load.
 */
import * as LanguageModel from "@effect/ai/LanguageModel"
import type * as Prompt from "@effect/ai/Prompt"
import * as OpenAiClient from "@effect/ai-openai/OpenAiClient"
import * as OpenAiLanguageModel from "@effect/ai-openai/OpenAiLanguageModel"
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientError from "@effect/platform/HttpClientError"
import * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import type * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type * as Redacted from "effect/Redacted"
import * as Stream from "effect/Stream"

/** An OpenAI-compatible endpoint's settings, as each feature's `*_MODEL_*` settings give them. */
export interface ModelOptions {
  readonly baseUrl: string
  readonly apiKey: Option.Option<Redacted.Redacted>
  readonly model: string
  readonly timeoutMs: number
}

/**
 * The most of a model's HTTP answer read, after decompression: a Responses
 * API object for 32 tokens is 1 to 3 KB, so 256 KiB leaves a hundred times
 * that for what a compatible server adds, and a server that answers more is
 * cut off there (docs/decisions.md "Evaluators").
 */
export const MODEL_ANSWER_MAX_BYTES = 256 * 1024

export class ModelCallFailed extends Data.TaggedError("ModelCallFailed")<{ readonly reason: string }> {}

/** What a caller names its model in the reasons of its failures ("the evaluator model"). */
const tooLargeReason = (name: string) => `${name}'s answer is over ${MODEL_ANSWER_MAX_BYTES / 1024} KiB`

/**
 * The answer read to MODEL_ANSWER_MAX_BYTES at most: reading stops at the
 * first chunk when the declared length is larger, else at the chunk that
 * passes the cap, and the stream is cancelled, which closes the connection.
 * The failure carries an empty response, so that nothing reads the rest of
 * the body to describe it.
 */
const capped = (tooLarge: string) => (response: HttpClientResponse.HttpClientResponse) =>
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
        description: tooLarge
      })
    }
    const read = [204, 205, 304].includes(response.status) ? null : Buffer.concat(chunks)
    return HttpClientResponse.fromWeb(
      response.request,
      new Response(read, { status: response.status, headers: response.headers })
    )
  })

export interface BoundedModel {
  /** The model's text answer to `prompt`, as it gave it; any failure (non-2xx, over size, timeout) is ModelCallFailed. */
  readonly answer: (prompt: ReadonlyArray<Prompt.MessageEncoded>) => Effect.Effect<string, ModelCallFailed>
}

export interface BoundedModelSettings {
  /** How failures name the model: `the evaluator model` gives "the evaluator model failed". */
  readonly name: string
  readonly maxOutputTokens: number
}

/**
 * A feature's model as a layer of its own port: `make` turns the bounded
 * call into the port (the LanguageModel and HTTP client stay inside).
 */
export const layerBounded = <I, S>(
  options: ModelOptions,
  settings: BoundedModelSettings,
  tag: Context.Tag<I, S>,
  make: (model: BoundedModel) => S
): Layer.Layer<I> => {
  const tooLarge = tooLargeReason(settings.name)
  const build = Effect.map(LanguageModel.LanguageModel, (model) =>
    make({
      answer: (prompt) =>
        model.generateText({ prompt }).pipe(
          Effect.map((response) => response.text),
          Effect.mapError(
            (error) =>
              new ModelCallFailed({
                reason:
                  error._tag === "HttpResponseError" && error.description === tooLarge
                    ? tooLarge
                    : `${settings.name} failed`
              })
          ),
          Effect.timeoutFail({
            duration: Duration.millis(options.timeoutMs),
            onTimeout: () => new ModelCallFailed({ reason: `no answer from the model within ${options.timeoutMs} ms` })
          })
        )
    })
  )
  return Layer.effect(tag, build).pipe(
    Layer.provide(
      OpenAiLanguageModel.layer({ model: options.model, config: { max_output_tokens: settings.maxOutputTokens } })
    ),
    Layer.provide(
      OpenAiClient.layer({
        apiUrl: options.baseUrl.replace(/\/+$/, ""),
        apiKey: Option.getOrUndefined(options.apiKey),
        transformClient: HttpClient.transformResponse(Effect.flatMap(capped(tooLarge)))
      })
    ),
    Layer.provide(FetchHttpClient.layer)
  )
}
