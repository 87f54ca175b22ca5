import type { ConfigError } from "effect/ConfigError"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { AppConfig } from "../Config.js"
import { layerModel } from "./ModelTitles.js"
import { TitleGenerator } from "./TitleGenerator.js"

/** The model generator when TITLE_MODEL_BASE_URL is set, else the extractive one. */
export const TitleGeneratorLive: Layer.Layer<TitleGenerator, ConfigError> = Layer.unwrapEffect(
  Effect.gen(function* () {
    const baseUrl = yield* AppConfig.titleModelBaseUrl
    if (Option.isNone(baseUrl) || baseUrl.value.trim() === "") return TitleGenerator.Extractive
    return layerModel({
      baseUrl: baseUrl.value.trim(),
      apiKey: yield* AppConfig.titleModelApiKey,
      model: yield* AppConfig.titleModel,
      timeoutMs: yield* AppConfig.titleModelTimeoutMs
    })
  })
)
