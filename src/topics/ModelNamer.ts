/**
 * The topics model over an OpenAI-compatible endpoint (TOPICS_MODEL_*),
 * through the call evaluators use (src/platform/model/BoundedModel.ts):
 * loaded only when TOPICS_MODEL_BASE_URL is set (app/Implementations.ts).
 */
import * as Effect from "effect/Effect"
import type * as Layer from "effect/Layer"
import { layerBounded, type ModelOptions } from "../platform/model/BoundedModel.js"
import { TopicNamer, TopicNamerFailed } from "./TopicNamer.js"

/** A name is a few words and a placement one id: 32 tokens leave room for a language that spends several a word. */
const MAX_OUTPUT_TOKENS = 32

export const layerModel = (options: ModelOptions): Layer.Layer<TopicNamer> =>
  layerBounded(options, { name: "the topics model", maxOutputTokens: MAX_OUTPUT_TOKENS }, TopicNamer, (model) =>
    TopicNamer.of({
      configured: true,
      ask: (question) =>
        model
          .answer([
            { role: "system", content: question.system },
            { role: "user", content: question.user }
          ])
          .pipe(Effect.mapError((error) => new TopicNamerFailed({ reason: error.reason })))
    })
  )
