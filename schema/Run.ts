/**
 * Run reports (docs/api-and-auth.md "Run reports, scores and events", docs/decisions.md "Run reports"): what a
 * model invocation did. Every struct refuses unknown fields, and every over-limit
 * value is refused, never shortened (docs/api-and-auth.md "Run reports, scores and events").
 */
import * as Schema from "effect/Schema"
import { Id, isPlainObject, Metadata, PageLimit, serializedLength, Timestamp, utf8Length } from "./Common.js"
import { ExampleIds, exampleOf } from "./Examples.js"
import { Limits } from "./Limits.js"
import { jsonProblem, StorableString } from "./Text.js"

const strict = { parseOptions: { onExcessProperty: "error" } } as const

const Text = (max: number) => StorableString.pipe(Schema.maxLength(max))
const Name = StorableString.pipe(Schema.minLength(1), Schema.maxLength(Limits.run.nameMaxLength))

export const TokenCount = Schema.Number.pipe(
  Schema.int(),
  Schema.between(0, Limits.run.tokensMax, {
    message: () => `a token count is an integer from 0 to ${Limits.run.tokensMax}`
  })
)

/** Milliseconds (durations and offsets): a non-negative integer. */
const Millis = Schema.Number.pipe(Schema.int(), Schema.between(0, Number.MAX_SAFE_INTEGER))

const entries = <A, I>(item: Schema.Schema<A, I>) =>
  Schema.Array(item).pipe(
    Schema.maxItems(Limits.run.entriesMax, { message: () => `at most ${Limits.run.entriesMax} entries` })
  )

/**
 * Tool arguments, tool results and step input: a string of at most 50,000
 * characters, or any JSON value of at most 50,000 characters serialized.
 */
export const TextLike = Schema.Unknown.pipe(
  Schema.filter((value) => {
    const max = Limits.run.textMaxLength
    if (typeof value === "string") {
      return jsonProblem(value) ?? (value.length <= max || `longer than ${max} characters`)
    }
    return jsonProblem(value) ?? (serializedLength(value) <= max || `longer than ${max} characters serialized`)
  })
).annotations({ identifier: "TextLike", description: "A string or JSON value, at most 50,000 characters" })

/** A JSON object of at most `maxBytes` serialized. */
const JsonObject = (maxBytes: number, what: string) =>
  Schema.Unknown.pipe(
    Schema.filter((value): value is Readonly<Record<string, unknown>> => isPlainObject(value), {
      message: () => `${what} must be a JSON object`
    }),
    Schema.filter(
      (value) =>
        jsonProblem(value) ??
        (utf8Length(JSON.stringify(value)) <= maxBytes || `${what} is larger than ${maxBytes} bytes serialized`)
    )
  )

export const SamplingCall = Schema.Struct({
  model_id: Schema.optional(Name),
  input_tokens: Schema.optional(TokenCount),
  output_tokens: Schema.optional(TokenCount),
  reasoning_tokens: Schema.optional(TokenCount),
  cached_input_tokens: Schema.optional(TokenCount),
  duration_ms: Schema.optional(Millis)
}).annotations({ identifier: "SamplingCall", ...strict })

export const ToolCall = Schema.Struct({
  tool_name: Name,
  tool_call_id: Name,
  tool_args: Schema.optional(TextLike),
  tool_result: Schema.optional(TextLike),
  tool_source: Schema.optional(Schema.Literal("mcp", "frontend", "backend")),
  start_ms: Schema.optional(Millis),
  end_ms: Schema.optional(Millis),
  sampling_calls: Schema.optional(entries(SamplingCall))
}).annotations({ identifier: "ToolCall", ...strict })

export const Step = Schema.Struct({
  input_tokens: Schema.optional(TokenCount),
  output_tokens: Schema.optional(TokenCount),
  reasoning_tokens: Schema.optional(TokenCount),
  cached_input_tokens: Schema.optional(TokenCount),
  tool_calls: Schema.optional(entries(ToolCall)),
  start_ms: Schema.optional(Millis),
  end_ms: Schema.optional(Millis),
  finish_reason: Schema.optional(Text(Limits.run.finishReasonMaxLength)),
  input: Schema.optional(TextLike)
}).annotations({ identifier: "Step", ...strict })

export const RunStatus = Schema.Literal("completed", "incomplete", "error")
export const OutcomeType = Schema.Literal("aborted", "disconnected", "length", "content_filter")

const Tag = StorableString.pipe(
  Schema.minLength(1, { message: () => "a tag must not be empty" }),
  Schema.maxLength(Limits.run.tagMaxLength, { message: () => `a tag is at most ${Limits.run.tagMaxLength} characters` })
)

export const RunReport = Schema.Struct({
  thread_id: Id,
  status: RunStatus,
  message_id: Schema.optional(Id),
  model_id: Schema.optional(Name),
  provider: Schema.optional(Name),
  provider_type: Schema.optional(Text(Limits.run.providerTypeMaxLength)),
  input_tokens: Schema.optional(TokenCount),
  output_tokens: Schema.optional(TokenCount),
  reasoning_tokens: Schema.optional(TokenCount),
  cached_input_tokens: Schema.optional(TokenCount),
  duration_ms: Schema.optional(Millis),
  first_token_ms: Schema.optional(Millis),
  total_steps: Schema.optional(Schema.Number.pipe(Schema.int(), Schema.between(0, Limits.run.entriesMax))),
  outcome_type: Schema.optional(OutcomeType),
  error: Schema.optional(Text(Limits.run.errorMaxLength)),
  error_code: Schema.optional(Text(Limits.run.errorCodeMaxLength)),
  trace_id: Schema.optional(
    Schema.String.pipe(Schema.pattern(/^[0-9a-f]{32}$/, { message: () => "trace_id is 32 lowercase hex digits" }))
  ),
  /** The span the run's trace starts from (an OpenTelemetry span id). */
  root_span_id: Schema.optional(
    Schema.String.pipe(Schema.pattern(/^[0-9a-f]{16}$/, { message: () => "root_span_id is 16 lowercase hex digits" }))
  ),
  /** The user message the run answers (stored as given, like message_id). */
  user_message_id: Schema.optional(Id),
  /** What the run cost, in US dollars: summed in usage. */
  cost_usd: Schema.optional(
    Schema.Number.pipe(
      Schema.finite({ message: () => "cost_usd must be a finite number" }),
      Schema.between(0, Limits.run.costUsdMax, {
        message: () => `cost_usd is a number from 0 to ${Limits.run.costUsdMax}`
      })
    )
  ),
  /** How the cost breaks down (by token kind, tool, ...): a JSON object, kept as sent. */
  cost_details: Schema.optional(JsonObject(Limits.run.costDetailsMaxBytes, "cost_details")),
  tags: Schema.optional(
    Schema.Array(Tag).pipe(Schema.maxItems(Limits.run.tagsMax, { message: () => `at most ${Limits.run.tagsMax} tags` }))
  ),
  environment: Schema.optional(Text(Limits.run.environmentMaxLength)),
  release: Schema.optional(Text(Limits.run.releaseMaxLength)),
  attributes: Schema.optional(JsonObject(Limits.run.attributesMaxBytes, "attributes")),
  metadata: Schema.optional(
    Metadata.pipe(Schema.filter((value) => isPlainObject(value), { message: () => "metadata must be a JSON object" }))
  ),
  steps: Schema.optional(entries(Step)),
  tool_calls: Schema.optional(entries(ToolCall)),
  sampling_calls: Schema.optional(entries(SamplingCall)),
  output_text: Schema.optional(Text(Limits.run.textMaxLength))
}).annotations({
  identifier: "RunReport",
  ...strict,
  examples: [
    {
      thread_id: ExampleIds.thread,
      message_id: ExampleIds.message,
      status: "completed",
      model_id: "gpt-4o-mini",
      provider: "openai",
      input_tokens: 812,
      output_tokens: 164,
      duration_ms: 2310,
      first_token_ms: 420,
      tags: ["beta"],
      cost_usd: 0.00071,
      cost_details: { input_usd: 0.00012, output_usd: 0.00059 }
    }
  ]
})
export type RunReport = typeof RunReport.Type

export const RunCreated = Schema.Struct({ run_id: Id })

/**
 * `Idempotency-Key`: a retried report with the same key (in the caller's
 * workspace) is stored once and answered with the same run id.
 */
export const RunHeaders = Schema.Struct({
  "idempotency-key": Schema.optional(
    Schema.String.pipe(
      Schema.minLength(1),
      Schema.maxLength(Limits.run.idempotencyKeyMaxLength),
      Schema.pattern(/^[\x21-\x7e]+$/, { message: () => "Idempotency-Key is printable ASCII without spaces" })
    )
  )
})

/** A run as the project API lists it: everything but the large parts. */
export class RunSummary extends Schema.Class<RunSummary>("RunSummary")({
  id: Id,
  /** Null for a run made from a trace span that names no thread of the project (then no workspace or user either). */
  thread_id: Schema.NullOr(Id),
  workspace_id: Schema.NullOr(Schema.String),
  user_id: Schema.NullOr(Schema.String),
  message_id: Schema.NullOr(Schema.String),
  user_message_id: Schema.NullOr(Schema.String),
  status: RunStatus,
  outcome_type: Schema.NullOr(OutcomeType),
  model_id: Schema.NullOr(Schema.String),
  provider: Schema.NullOr(Schema.String),
  provider_type: Schema.NullOr(Schema.String),
  input_tokens: Schema.NullOr(Schema.Number),
  output_tokens: Schema.NullOr(Schema.Number),
  reasoning_tokens: Schema.NullOr(Schema.Number),
  cached_input_tokens: Schema.NullOr(Schema.Number),
  cost_usd: Schema.NullOr(Schema.Number),
  duration_ms: Schema.NullOr(Schema.Number),
  first_token_ms: Schema.NullOr(Schema.Number),
  total_steps: Schema.NullOr(Schema.Number),
  tool_call_count: Schema.Number,
  error: Schema.NullOr(Schema.String),
  error_code: Schema.NullOr(Schema.String),
  trace_id: Schema.NullOr(Schema.String),
  /** The model-call span a run was made from (POST /v1/traces); null for a reported run. */
  span_id: Schema.NullOr(Schema.String),
  root_span_id: Schema.NullOr(Schema.String),
  tags: Schema.Array(Schema.String),
  environment: Schema.NullOr(Schema.String),
  release: Schema.NullOr(Schema.String),
  created_at: Timestamp
}) {}

/** One run in full: the summary plus what the report carried in bulk. */
export class Run extends RunSummary.extend<Run>("Run")({
  attributes: Schema.NullOr(Schema.Unknown),
  metadata: Schema.NullOr(Schema.Unknown),
  cost_details: Schema.NullOr(Schema.Unknown),
  steps: Schema.Array(Schema.Unknown),
  tool_calls: Schema.Array(Schema.Unknown),
  sampling_calls: Schema.Array(Schema.Unknown),
  output_text: Schema.NullOr(Schema.String)
}) {}

export const RunListQuery = Schema.Struct({
  limit: PageLimit(Limits.run.listDefault, Limits.run.listMax),
  after: Schema.optional(Id),
  thread_id: Schema.optional(StorableString),
  status: Schema.optional(RunStatus),
  model_id: Schema.optional(StorableString),
  trace_id: Schema.optional(StorableString),
  /** Runs carrying this tag. */
  tag: Schema.optional(StorableString),
  environment: Schema.optional(StorableString),
  from: Schema.optional(Timestamp),
  to: Schema.optional(Timestamp)
})
export type RunListQuery = typeof RunListQuery.Type

export const RunList = Schema.Struct({ runs: Schema.Array(RunSummary) })
export const RunPath = Schema.Struct({ run_id: StorableString.annotations(exampleOf(ExampleIds.run)) })
