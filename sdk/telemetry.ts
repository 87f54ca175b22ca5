/**
 * svc-client/telemetry: OpenTelemetry traces to the gateway's OTLP receiver
 * (`POST /v1/traces`, the project API key as bearer), a span processor that
 * keeps only GenAI spans, and the trace id for message metadata.
 *
 * Its peers, `@opentelemetry/api`, `@opentelemetry/sdk-trace-base` (2.x) and
 * `@opentelemetry/exporter-trace-otlp-http`, are optional peers of the
 * package: an app that imports this entry installs them; the main entry
 * never imports them.
 */
import { diag, isSpanContextValid, trace } from "@opentelemetry/api"
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http"
import {
  BatchSpanProcessor,
  type ReadableSpan,
  type SpanExporter,
  type SpanProcessor
} from "@opentelemetry/sdk-trace-base"
import { DEFAULT_BACKEND_URL } from "./core/defaults.js"

/** The receiver's path on the backend host (schema/Trace.ts TRACES_PATH; that module brings effect). */
const TRACES_PATH = "/v1/traces"

const API_KEY_REQUIRED = "A service API key is required"

export interface AssistantCloudTraceExportOptions {
  /** The project API key (`sk_...`), sent as the bearer. */
  readonly apiKey: string
  /** The backend host; the API key arm's default (`http://localhost:8787`) without one. */
  readonly baseUrl?: string | undefined
  /** Sent with every export; a name given here replaces ours (compared without case). */
  readonly headers?: Readonly<Record<string, string>> | undefined
}

/** What an OTLP/HTTP exporter takes: the full traces URL and the request headers. */
export interface AssistantCloudTraceExportConfig {
  readonly url: string
  readonly headers: Record<string, string>
}

/**
 * The `url` and `headers` for an OTLP/HTTP trace exporter (any of the stock
 * ones: http/json, http/protobuf, a Collector's `otlphttp`): the base URL
 * without its trailing slashes plus `/v1/traces`, and
 * `Authorization: Bearer <apiKey>` unless the caller's headers name it.
 */
export const assistantCloudTraceExportOptions = (
  options: AssistantCloudTraceExportOptions
): AssistantCloudTraceExportConfig => {
  const { apiKey, baseUrl = DEFAULT_BACKEND_URL, headers = {} } = options
  if (typeof apiKey !== "string" || apiKey === "") throw new Error(API_KEY_REQUIRED)
  const overridden = Object.keys(headers).some((name) => name.toLowerCase() === "authorization")
  return {
    url: `${baseUrl.replace(/\/+$/, "")}${TRACES_PATH}`,
    headers: overridden ? { ...headers } : { Authorization: `Bearer ${apiKey}`, ...headers }
  }
}

/** The stock OTLP/HTTP (JSON) trace exporter, sending to the gateway with the API key. */
export const createAssistantCloudTraceExporter = (options: AssistantCloudTraceExportOptions): OTLPTraceExporter =>
  new OTLPTraceExporter(assistantCloudTraceExportOptions(options))

const GENAI_NAME_PREFIXES = ["gen_ai.", "ai.", "llm."] as const

/**
 * A GenAI span: one with a string `gen_ai.operation.name` attribute, or whose
 * name starts with `gen_ai.`, `ai.` (the AI SDK's spans) or `llm.`.
 */
export const isAssistantCloudSpan = (span: Pick<ReadableSpan, "name" | "attributes">): boolean =>
  typeof span.attributes["gen_ai.operation.name"] === "string" ||
  GENAI_NAME_PREFIXES.some((prefix) => span.name.startsWith(prefix))

export interface AssistantCloudSpanProcessorOptions {
  /** Which ended spans are exported; `isAssistantCloudSpan` by default. */
  readonly filter?: ((span: ReadableSpan) => boolean) | undefined
}

/**
 * A `BatchSpanProcessor` over `exporter` that passes on, when a span ends,
 * only the spans `filter` keeps: the others are never exported. Starting,
 * flushing and shutting down are the batch processor's. A filter that throws
 * drops the span (reported through OpenTelemetry's `diag`), so ending a span
 * never throws because of it.
 */
export const createAssistantCloudSpanProcessor = (
  exporter: SpanExporter,
  options: AssistantCloudSpanProcessorOptions = {}
): SpanProcessor => {
  const batch = new BatchSpanProcessor(exporter)
  const filter = options.filter ?? isAssistantCloudSpan
  const keeps = (span: ReadableSpan): boolean => {
    try {
      return filter(span)
    } catch (error) {
      diag.error("svc-client/telemetry: the span filter threw; the span is not exported", error)
      return false
    }
  }
  return {
    onStart: (span, parentContext) => batch.onStart(span, parentContext),
    onEnd: (span) => {
      if (keeps(span)) batch.onEnd(span)
    },
    forceFlush: () => batch.forceFlush(),
    shutdown: () => batch.shutdown()
  }
}

/** `{ traceId }` of the active span when its context is valid, else `{}`. */
export const assistantCloudTraceMetadata = (): { traceId?: string } => {
  const context = trace.getActiveSpan()?.spanContext()
  return context !== undefined && isSpanContextValid(context) ? { traceId: context.traceId } : {}
}

/** The `messageMetadata` callback of the AI SDK's `toUIMessageStream` (and the like). */
export type MessageMetadataCallback<Part extends { readonly type: string }> = (options: {
  readonly part: Part
}) => Record<string, unknown> | undefined

/**
 * A `messageMetadata` callback that adds the active trace's id as `traceId`
 * to the metadata of `start` parts, over `inner`'s metadata (or alone).
 * Other parts, and a start without an active span, get `inner`'s metadata
 * as it is.
 */
export const withAssistantCloudTraceMetadata =
  <Part extends { readonly type: string } = { readonly type: string }>(
    inner?: MessageMetadataCallback<Part>
  ): MessageMetadataCallback<Part> =>
  (options) => {
    const metadata = inner?.(options)
    if (options.part.type !== "start") return metadata
    const { traceId } = assistantCloudTraceMetadata()
    return traceId === undefined ? metadata : { ...metadata, traceId }
  }
