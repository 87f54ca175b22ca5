/**
 * The ports with more than one implementation, each chosen here by
 * configuration, one convention for all: the default needs no other server
 * and no extra module; the alternative is chosen by its setting, and its
 * modules (the AWS SDK, @effect/ai-openai: seconds and tens of MB to load)
 * are imported only when it is chosen.
 */
import type * as SqlClient from "@effect/sql/SqlClient"
import type * as Config from "effect/Config"
import type { ConfigError } from "effect/ConfigError"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type * as Redacted from "effect/Redacted"
import { EvaluatorModel } from "../src/evaluators/EvaluatorModel.js"
import type { BlobStore } from "../src/platform/blobs/BlobStore.js"
import * as LocalBlobs from "../src/platform/blobs/Local.js"
import { AppConfig } from "../src/platform/Config.js"
import type { ModelOptions } from "../src/titles/ModelTitles.js"
import { TitleGenerator } from "../src/titles/TitleGenerator.js"
import { TopicNamer } from "../src/topics/TopicNamer.js"

/** A set value, trimmed; blank reads as unset. */
const setting = (value: Option.Option<string>): Option.Option<string> =>
  Option.filter(
    Option.map(value, (v) => v.trim()),
    (v) => v !== ""
  )

/** Attachments: the S3 bucket named by S3_BUCKET, else files under BLOB_DIR served by the gateway. */
export const BlobStoreLive: Layer.Layer<BlobStore, ConfigError, SqlClient.SqlClient> = Layer.unwrapEffect(
  Effect.gen(function* () {
    const bucket = setting(yield* AppConfig.s3Bucket)
    if (Option.isNone(bucket)) return LocalBlobs.layer
    const S3Blobs = yield* Effect.promise(() => import("../src/platform/blobs/S3.js"))
    return S3Blobs.layer(bucket.value)
  })
)

/** An OpenAI-compatible endpoint's settings, as titles, evaluators and topics read them. */
interface ModelSettings {
  readonly baseUrl: Config.Config<Option.Option<string>>
  readonly apiKey: Config.Config<Option.Option<Redacted.Redacted>>
  readonly model: Config.Config<string>
  readonly timeoutMs: Config.Config<number>
}

/** The model-backed layer when its base URL is set (its modules loaded only then), else `none`. */
const modelOr = <I>(
  settings: ModelSettings,
  none: Layer.Layer<I>,
  load: () => Promise<{ readonly layerModel: (options: ModelOptions) => Layer.Layer<I> }>
): Layer.Layer<I, ConfigError> =>
  Layer.unwrapEffect(
    Effect.gen(function* () {
      const baseUrl = setting(yield* settings.baseUrl)
      if (Option.isNone(baseUrl)) return none
      const options: ModelOptions = {
        baseUrl: baseUrl.value,
        apiKey: yield* settings.apiKey,
        model: yield* settings.model,
        timeoutMs: yield* settings.timeoutMs
      }
      const { layerModel } = yield* Effect.promise(load)
      return layerModel(options)
    })
  )

/** Titles: the model generator when TITLE_MODEL_BASE_URL is set, else the extractive one. */
export const TitleGeneratorLive: Layer.Layer<TitleGenerator, ConfigError> = modelOr(
  {
    baseUrl: AppConfig.titleModelBaseUrl,
    apiKey: AppConfig.titleModelApiKey,
    model: AppConfig.titleModel,
    timeoutMs: AppConfig.titleModelTimeoutMs
  },
  TitleGenerator.Extractive,
  () => import("../src/titles/ModelTitles.js")
)

/** Model evaluators: the model when EVALUATOR_MODEL_BASE_URL is set, else none (model evaluators are refused). */
export const EvaluatorModelLive: Layer.Layer<EvaluatorModel, ConfigError> = modelOr(
  {
    baseUrl: AppConfig.evaluatorModelBaseUrl,
    apiKey: AppConfig.evaluatorModelApiKey,
    model: AppConfig.evaluatorModel,
    timeoutMs: AppConfig.evaluatorModelTimeoutMs
  },
  EvaluatorModel.None,
  () => import("../src/evaluators/ModelClassifier.js")
)

/** Topics: named (and unplaced threads placed) by the model when TOPICS_MODEL_BASE_URL is set, else extractive only. */
export const TopicNamerLive: Layer.Layer<TopicNamer, ConfigError> = modelOr(
  {
    baseUrl: AppConfig.topicsModelBaseUrl,
    apiKey: AppConfig.topicsModelApiKey,
    model: AppConfig.topicsModel,
    timeoutMs: AppConfig.topicsModelTimeoutMs
  },
  TopicNamer.None,
  () => import("../src/topics/ModelNamer.js")
)

/** Every chosen implementation, for the services and jobs that need one. */
export const ImplementationsLive = Layer.mergeAll(BlobStoreLive, TitleGeneratorLive, EvaluatorModelLive, TopicNamerLive)
