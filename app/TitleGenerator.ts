import type { ConfigError } from "effect/ConfigError"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { AppConfig } from "../src/platform/Config.js"
import { TitleGenerator } from "../src/titles/TitleGenerator.js"

/**
 * The model generator when TITLE_MODEL_BASE_URL is set, else the extractive
 * one. The model layer's modules (@effect/ai-openai, about 2 s to load on a
 * busy machine) are imported only when it is chosen, so a default start does
 * not pay for them.
 */
export const TitleGeneratorLive: Layer.Layer<TitleGenerator, ConfigError> = Layer.unwrapEffect(
  Effect.gen(function* () {
    const baseUrl = yield* AppConfig.titleModelBaseUrl
    if (Option.isNone(baseUrl) || baseUrl.value.trim() === "") return TitleGenerator.Extractive
    const options = {
      baseUrl: baseUrl.value.trim(),
      apiKey: yield* AppConfig.titleModelApiKey,
      model: yield* AppConfig.titleModel,
      timeoutMs: yield* AppConfig.titleModelTimeoutMs
    }
    const { layerModel } = yield* Effect.promise(() => import("../src/titles/ModelTitles.js"))
    return layerModel(options)
  })
)
