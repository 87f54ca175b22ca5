/**
 * The gateway's own traces. Spans are named where the work is (each use case
 * and repository method is a `fn("Service.method")`, see Traced.ts;
 * @effect/sql names its queries; protocols/AccessLog.ts makes one server span
 * per request). They cost every request, so they are made only when they go
 * somewhere: with the standard `OTEL_EXPORTER_OTLP_ENDPOINT` (or
 * `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) set, @effect/opentelemetry's
 * OtlpTracer batches them to that collector over OTLP/HTTP; without it the
 * tracer is off (measured with bench/: a span per function and query is part
 * of every request's cost).
 *
 * The variables are read through Effect's Config (so the tests' config map
 * and startup validation see them), with the OpenTelemetry spec's meanings.
 */

import * as OtlpSerialization from "@effect/opentelemetry/OtlpSerialization"
import * as OtlpTracer from "@effect/opentelemetry/OtlpTracer"
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import * as Config from "effect/Config"
import * as ConfigError from "effect/ConfigError"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { isHttpUrl } from "../Config.js"
import { type Sampler, SamplerConfig, withSampler } from "./Sampler.js"
import { exportSpans } from "./Traced.js"

export interface OtlpTraceSettings {
  /** Where spans are POSTed (the collector's `/v1/traces`). */
  readonly url: string
  readonly headers: Redacted.Redacted<Record<string, string>>
  readonly protocol: "http/protobuf" | "http/json"
  readonly serviceName: string
  /** How often the batch is sent (OTEL_BSP_SCHEDULE_DELAY). */
  readonly exportIntervalMs: number
  /** A batch is sent as soon as it holds this many spans (OTEL_BSP_MAX_EXPORT_BATCH_SIZE). */
  readonly maxBatchSize: number
  readonly sampler: Sampler
}

const invalid = (name: string, message: string) => ConfigError.InvalidData([name], message)

/** `key=value,key2=value2`, values URL-encoded (the OpenTelemetry spec's OTEL_EXPORTER_OTLP_HEADERS format). */
const parseHeaders = (name: string, text: string): Either.Either<Record<string, string>, ConfigError.ConfigError> => {
  const headers: Record<string, string> = {}
  for (const pair of text.split(",")) {
    if (pair.trim() === "") continue
    const at = pair.indexOf("=")
    if (at <= 0) return Either.left(invalid(name, `${name} must be key=value pairs separated by commas`))
    try {
      headers[decodeURIComponent(pair.slice(0, at).trim()).toLowerCase()] = decodeURIComponent(
        pair.slice(at + 1).trim()
      )
    } catch {
      return Either.left(invalid(name, `${name} has a badly URL-encoded pair`))
    }
  }
  return Either.right(headers)
}

const headersConfig = (name: string) =>
  Config.redacted(name).pipe(
    Config.mapOrFail((text) => parseHeaders(name, Redacted.value(text))),
    Config.withDefault({})
  )

const httpUrl = (name: string) =>
  Config.string(name).pipe(
    Config.validate({
      message: `${name} must be an http(s) URL`,
      validation: isHttpUrl
    }),
    Config.option
  )

const protocolConfig = (name: string) =>
  Config.literal(
    "http/protobuf",
    "http/json",
    "grpc"
  )(name).pipe(
    Config.validate({
      message: `${name}: grpc is not supported, use http/protobuf (the collector's port 4318)`,
      validation: (protocol) => protocol !== "grpc"
    }),
    Config.map((protocol) => (protocol === "http/json" ? "http/json" : "http/protobuf")),
    Config.option
  )

const positive = (name: string, fallback: number) =>
  Config.integer(name).pipe(
    Config.validate({ message: `${name} must be a positive integer`, validation: (n) => n > 0 }),
    Config.withDefault(fallback)
  )

/**
 * The trace export settings, none when traces go nowhere: no endpoint set,
 * OTEL_SDK_DISABLED=true, or OTEL_TRACES_EXPORTER=none.
 */
export const TracingConfig: Config.Config<Option.Option<OtlpTraceSettings>> = Config.all({
  disabled: Config.boolean("OTEL_SDK_DISABLED").pipe(Config.withDefault(false)),
  exporter: Config.literal("otlp", "none")("OTEL_TRACES_EXPORTER").pipe(Config.withDefault("otlp")),
  base: httpUrl("OTEL_EXPORTER_OTLP_ENDPOINT"),
  traces: httpUrl("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"),
  headers: headersConfig("OTEL_EXPORTER_OTLP_HEADERS"),
  tracesHeaders: headersConfig("OTEL_EXPORTER_OTLP_TRACES_HEADERS"),
  protocol: protocolConfig("OTEL_EXPORTER_OTLP_PROTOCOL"),
  tracesProtocol: protocolConfig("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL"),
  serviceName: Config.nonEmptyString("OTEL_SERVICE_NAME").pipe(Config.withDefault("svc-gateway")),
  exportIntervalMs: positive("OTEL_BSP_SCHEDULE_DELAY", 5_000),
  maxBatchSize: positive("OTEL_BSP_MAX_EXPORT_BATCH_SIZE", 512),
  sampler: SamplerConfig
}).pipe(
  Config.map((c): Option.Option<OtlpTraceSettings> => {
    if (c.disabled || c.exporter === "none") return Option.none()
    // The signal-specific endpoint is used as is; the base one gets the signal's path (spec).
    const url = Option.isSome(c.traces)
      ? Option.some(c.traces.value)
      : Option.map(c.base, (base) => `${base.replace(/\/+$/, "")}/v1/traces`)
    return Option.map(url, (url) => ({
      url,
      headers: Redacted.make({ ...c.headers, ...c.tracesHeaders }),
      protocol: Option.getOrElse(
        Option.orElse(c.tracesProtocol, () => c.protocol),
        () => "http/protobuf" as const
      ),
      serviceName: c.serviceName,
      exportIntervalMs: c.exportIntervalMs,
      maxBatchSize: c.maxBatchSize,
      sampler: c.sampler
    }))
  })
)

const withoutCredentials = (url: string) => {
  const parsed = new URL(url)
  return `${parsed.protocol}//${parsed.host}${parsed.pathname}`
}

/** Nothing exported: the tracer off, `fn` calls plain. */
const off = Layer.merge(Layer.setTracerEnabled(false), Layer.effectDiscard(Effect.sync(() => exportSpans(false))))

/**
 * Spans batched to the collector: sent every `exportIntervalMs`, or as soon
 * as `maxBatchSize` wait; a collector that fails is left alone for a minute
 * (its spans dropped, so memory stays bounded); what waits is sent when the
 * layer is released (shutdown), for at most 3 s.
 */
const exporting = (settings: OtlpTraceSettings) =>
  Layer.mergeAll(
    Layer.unwrapScoped(
      Effect.map(
        OtlpTracer.make({
          url: settings.url,
          headers: Redacted.value(settings.headers),
          resource: { serviceName: settings.serviceName },
          exportInterval: settings.exportIntervalMs,
          maxBatchSize: settings.maxBatchSize,
          shutdownTimeout: "3 seconds"
        }),
        (tracer) => Layer.setTracer(withSampler(tracer, settings.sampler))
      )
    ).pipe(
      Layer.provide(FetchHttpClient.layer),
      Layer.provide(settings.protocol === "http/json" ? OtlpSerialization.layerJson : OtlpSerialization.layerProtobuf)
    ),
    Layer.setTracerEnabled(true),
    Layer.scopedDiscard(
      Effect.acquireRelease(
        Effect.sync(() => exportSpans(true)),
        () => Effect.sync(() => exportSpans(false))
      )
    ),
    Layer.effectDiscard(
      Effect.logInfo(`tracing: spans exported to ${withoutCredentials(settings.url)} (${settings.protocol})`)
    )
  )

export const TracingLive = Layer.unwrapEffect(
  Effect.map(TracingConfig, Option.match({ onNone: () => off, onSome: exporting }))
)
