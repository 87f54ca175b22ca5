/**
 * The model-backed title generator: an OpenAI-compatible endpoint through
 * @effect/ai-openai (its Responses API, `POST {base}/responses`, streamed).
 * The model's deltas go through the shared title rules as they come (quotes
 * and trailing punctuation dropped, cut after 12 words); an answer of fewer
 * than 2 words is replaced by the extractive title.
 *
 * The call is bounded in size and time whatever the endpoint does
 * (docs/decisions.md "Titles"): at most MAX_OUTPUT_TOKENS asked for, at most
 * TITLE_ANSWER_MAX_BYTES of its stream read (past it the stream fails and
 * the connection closes), each delta within TITLE_MODEL_TIMEOUT_MS of the
 * last, and the whole answer within that too: a stream of deltas that add
 * no word (punctuation, spaces) ends there with the title it has.
 */
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
import { Limits } from "../../schema/Limits.js"
import type { Turn } from "./Conversation.js"
import { extractiveTitle, TitleGenerationFailed, TitleGenerator } from "./TitleGenerator.js"
import { sanitize, shapeTitle } from "./TitleText.js"

const INSTRUCTIONS =
  "You write the title of a conversation. Answer with the title only: 2 to 12 words, " +
  "in the language of the conversation, no quotes, no markdown, no final punctuation."

/** The conversation as a transcript, its start only (Limits.title.promptMaxChars). */
export const transcript = (turns: ReadonlyArray<Turn>): string => {
  const spoken = turns.filter((turn) => turn.role === "user" || turn.role === "assistant")
  const lines = (spoken.length > 0 ? spoken : turns).map((turn) => `${turn.role}: ${sanitize(turn.text).trim()}`)
  return lines.join("\n\n").slice(0, Limits.title.promptMaxChars)
}

const prompt = (turns: ReadonlyArray<Turn>): ReadonlyArray<Prompt.MessageEncoded> => [
  { role: "system", content: INSTRUCTIONS },
  { role: "user", content: `Conversation:\n\n${transcript(turns)}\n\nTitle:` }
]

export interface ModelOptions {
  readonly baseUrl: string
  readonly apiKey: Option.Option<Redacted.Redacted>
  readonly model: string
  readonly timeoutMs: number
}

const failed = (reason: string) => (cause: unknown) => new TitleGenerationFailed({ reason, cause })

/** A title is 2 to 12 words: 64 tokens leave room for a language that spends several a word. */
const MAX_OUTPUT_TOKENS = 64

/**
 * The most of the title model's streamed answer read, after decompression:
 * the Responses API's events for 64 tokens come to 20 to 30 KB (each delta
 * is an event of its own, and the first and last events carry the whole
 * response object), so 256 KiB is ten times that; it is the evaluator
 * model's cap too.
 */
export const TITLE_ANSWER_MAX_BYTES = 256 * 1024
const TOO_LARGE = `the title model's answer is over ${TITLE_ANSWER_MAX_BYTES / 1024} KiB`

/**
 * The response with its body read through a counter: the stream fails at
 * the chunk that passes TITLE_ANSWER_MAX_BYTES (or at once when the declared
 * length does), which cancels the body and closes the connection. The SSE
 * reader downstream buffers an event until its end, so without this one
 * endless event line would be read whole.
 */
const capped = (response: HttpClientResponse.HttpClientResponse) =>
  Effect.map(Effect.runtime<never>(), (runtime) => {
    const tooLarge = () =>
      new HttpClientError.ResponseError({
        request: response.request,
        response: HttpClientResponse.fromWeb(response.request, new Response(null, { status: response.status })),
        reason: "Decode",
        description: TOO_LARGE
      })
    let size = Number(response.headers["content-length"] ?? 0)
    const body = response.stream.pipe(
      Stream.mapEffect((chunk) => {
        size += chunk.length
        return size > TITLE_ANSWER_MAX_BYTES ? Effect.fail(tooLarge()) : Effect.succeed(chunk)
      })
    )
    return HttpClientResponse.fromWeb(
      response.request,
      new Response([204, 205, 304].includes(response.status) ? null : Stream.toReadableStreamRuntime(body, runtime), {
        status: response.status,
        headers: response.headers
      })
    )
  })

const make = (timeoutMs: number) =>
  Effect.gen(function* () {
    const model = yield* LanguageModel.LanguageModel
    const deltas = (turns: ReadonlyArray<Turn>): Stream.Stream<string, TitleGenerationFailed> =>
      model.streamText({ prompt: prompt(turns) }).pipe(
        Stream.mapError(failed("the title model failed")),
        Stream.mapEffect((part) => {
          if (part.type === "text-delta") return Effect.succeed(Option.some(part.delta))
          if (part.type === "error") return Effect.fail(failed("the title model reported an error")(part.error))
          return Effect.succeed(Option.none<string>())
        }),
        Stream.filterMap((delta) => delta),
        Stream.timeoutFail(
          () => new TitleGenerationFailed({ reason: `no answer from the title model within ${timeoutMs} ms` }),
          Duration.millis(timeoutMs)
        ),
        // The whole answer too: deltas that keep coming but add no word would otherwise never end it.
        Stream.interruptAfter(Duration.millis(timeoutMs))
      )
    return TitleGenerator.of({
      kind: "model",
      generate: (turns) => shapeTitle(deltas(turns), extractiveTitle(turns))
    })
  })

export const layerModel = (options: ModelOptions): Layer.Layer<TitleGenerator> =>
  Layer.effect(TitleGenerator, make(options.timeoutMs)).pipe(
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
