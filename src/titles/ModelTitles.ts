/**
 * The model-backed title generator: an OpenAI-compatible endpoint through
 * @effect/ai-openai (its Responses API, `POST {base}/responses`, streamed).
 * The model's deltas go through the shared title rules as they come (quotes
 * and trailing punctuation dropped, cut after 12 words); an answer of fewer
 * than 2 words is replaced by the extractive title.
 */
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
        )
      )
    return TitleGenerator.of({
      kind: "model",
      generate: (turns) => shapeTitle(deltas(turns), extractiveTitle(turns))
    })
  })

export const layerModel = (options: ModelOptions): Layer.Layer<TitleGenerator> =>
  Layer.effect(TitleGenerator, make(options.timeoutMs)).pipe(
    Layer.provide(OpenAiLanguageModel.layer({ model: options.model })),
    Layer.provide(
      OpenAiClient.layer({
        apiUrl: options.baseUrl.replace(/\/+$/, ""),
        apiKey: Option.getOrUndefined(options.apiKey)
      })
    ),
    Layer.provide(FetchHttpClient.layer)
  )
