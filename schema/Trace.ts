/**
 * Traces as the project API reads them back
 * (docs/decisions.md "Traces (OTLP/HTTP)"): the spans an OTLP exporter sent,
 * each with the convention the gateway recognised in it, and the runs made
 * from its model-call spans.
 */
import * as Schema from "effect/Schema"
import { PageLimit, Timestamp } from "./Common.js"
import { ExampleIds, exampleOf } from "./Examples.js"
import { Limits } from "./Limits.js"
import { RunSummary } from "./Run.js"
import { StorableString } from "./Text.js"

/** Where OTLP/HTTP exporters send traces (protocols/otlp). */
export const TRACES_PATH = "/v1/traces"

/** The largest span time the store keeps (int64 nanoseconds: 2262-04-11). */
export const INT64_MAX = 9223372036854775807n

export const TraceId = Schema.String.pipe(
  Schema.pattern(/^[0-9a-f]{32}$/, { message: () => "a trace id is 32 lowercase hex digits" })
)

/** Which instrumentation convention a span was read as, if any. */
export const SpanConvention = Schema.Literal("gen_ai", "ai_sdk", "openinference")
export type SpanConvention = typeof SpanConvention.Type

/** What the span is to the run mapping: a model call (one run), a step of one, or a tool call. */
export const SpanRole = Schema.Literal("model_call", "model_step", "tool_call")
export type SpanRole = typeof SpanRole.Type

/** An OTLP attribute value as JSON: arrays and key-value lists become arrays and objects, bytes base64. */
const Attributes = Schema.Record({ key: Schema.String, value: Schema.Unknown })

export const SpanEvent = Schema.Struct({
  name: Schema.String,
  time_unix_nano: Schema.String,
  attributes: Attributes
})

export const SpanLink = Schema.Struct({
  trace_id: Schema.String,
  span_id: Schema.String,
  trace_state: Schema.String,
  attributes: Attributes
})

export class Span extends Schema.Class<Span>("Span")({
  trace_id: Schema.String,
  span_id: Schema.String,
  parent_span_id: Schema.NullOr(Schema.String),
  trace_state: Schema.String,
  name: Schema.String,
  kind: Schema.Literal("unspecified", "internal", "server", "client", "producer", "consumer"),
  start_time: Timestamp,
  end_time: Timestamp,
  start_time_unix_nano: Schema.String,
  end_time_unix_nano: Schema.String,
  duration_ms: Schema.Number,
  status_code: Schema.Literal("unset", "ok", "error"),
  status_message: Schema.String,
  service_name: Schema.NullOr(Schema.String),
  attributes: Attributes,
  events: Schema.Array(SpanEvent),
  links: Schema.Array(SpanLink),
  resource: Attributes,
  scope: Schema.Struct({ name: Schema.String, version: Schema.String, attributes: Attributes }),
  convention: Schema.NullOr(SpanConvention),
  role: Schema.NullOr(SpanRole),
  /** The run made from this span (a model call), if any. */
  run_id: Schema.NullOr(Schema.String)
}) {}

export class TraceSummary extends Schema.Class<TraceSummary>("TraceSummary")({
  trace_id: TraceId,
  /** The root span's name, or the earliest span's while the root has not arrived. */
  name: Schema.String,
  service_name: Schema.NullOr(Schema.String),
  start_time: Timestamp,
  end_time: Timestamp,
  duration_ms: Schema.Number,
  span_count: Schema.Number,
  error_count: Schema.Number,
  run_count: Schema.Number
}) {}

export const TraceListQuery = Schema.Struct({
  limit: PageLimit(Limits.trace.listDefault, Limits.trace.listMax),
  /** The `next_after` of the previous page. */
  after: Schema.optional(
    StorableString.pipe(
      Schema.pattern(/^[0-9]{1,19}-[0-9a-f]{32}$/, { message: () => "after is the next_after of a previous page" }),
      Schema.filter((after) => BigInt(after.split("-")[0] ?? "0") <= INT64_MAX || "after is out of range")
    )
  ),
  service_name: Schema.optional(StorableString),
  from: Schema.optional(Timestamp),
  to: Schema.optional(Timestamp),
  has_error: Schema.optional(Schema.Literal("true", "false"))
})
export type TraceListQuery = typeof TraceListQuery.Type

export const TraceList = Schema.Struct({
  traces: Schema.Array(TraceSummary),
  /** Pass as `after` for the next page; null on the last one. */
  next_after: Schema.NullOr(Schema.String)
})

export const TraceDetail = Schema.Struct({
  trace: TraceSummary,
  spans: Schema.Array(Span),
  runs: Schema.Array(RunSummary)
})

export const TracePath = Schema.Struct({ trace_id: StorableString.annotations(exampleOf(ExampleIds.trace)) })
