/**
 * Run reports, client side (docs/client-library.md "Building blocks", docs/decisions.md
 * "Client building blocks (svc-client, issue 14)"): the camelCase report an app or an
 * integration fills in, and `createRunReport`, which maps it to the wire
 * report of POST /v1/runs (schema/Run.ts) normalized so the gateway accepts
 * it: text cut to its limit, counts and times made whole, tags cleaned,
 * entries capped. Plus the helpers integrations build that report with.
 */
import { Limits } from "../../schema/Limits.js"
import type { SamplingCall, Step, ToolCall } from "../../schema/Run.js"
import type { CloudRunReport } from "../cloud/misc.js"
import { normalizeTags } from "../core/telemetry.js"

type Writable<T> = { -readonly [K in keyof T]: T[K] }

/** One MCP sampling call as the wire has it (what `wrapSamplingHandler` records). */
type RunReportSamplingCall = (typeof SamplingCall)["Encoded"]

/** A tool call as the wire has it (snake_case): what `createRunTelemetryToolCall` returns. */
export type AssistantCloudRunReportToolCall = Writable<Omit<(typeof ToolCall)["Encoded"], "sampling_calls">> & {
  sampling_calls?: ReadonlyArray<RunReportSamplingCall>
}

/** A step of the wire report. */
type RunReportStep = Writable<(typeof Step)["Encoded"]>

/** Why a run ended short of completion: the wire's `outcome_type`. */
export type RunReportOutcome = NonNullable<CloudRunReport["outcome_type"]>

/** The wire's run status: completed, incomplete or error. */
type RunReportStatus = CloudRunReport["status"]

/** Token counts under the names the report uses. */
export type RunTelemetryUsage = {
  inputTokens?: number | undefined
  outputTokens?: number | undefined
  reasoningTokens?: number | undefined
  cachedInputTokens?: number | undefined
}

/**
 * Token counts as a provider or the AI SDK reports them: the current names,
 * the legacy prompt/completion pair, or the token detail objects (an AI SDK
 * `LanguageModelUsage` fits as it is).
 */
export type RunTelemetryUsageInit = RunTelemetryUsage & {
  promptTokens?: number | undefined
  completionTokens?: number | undefined
  inputTokenDetails?: { cacheReadTokens?: number | undefined } | undefined
  outputTokenDetails?: { reasoningTokens?: number | undefined } | undefined
}

/** One tool call as the runtime saw it; `createRunTelemetryToolCall` serializes it. */
export type RunTelemetryToolCallInit = {
  toolName: string
  toolCallId: string
  args?: unknown
  /** Already serialized arguments, used instead of serializing `args` (cut to 50,000 characters). */
  argsText?: string | undefined
  result?: unknown
  toolSource?: "mcp" | "frontend" | "backend" | undefined
  /** Milliseconds since the run started. */
  startMs?: number | undefined
  endMs?: number | undefined
  samplingCalls?: ReadonlyArray<RunReportSamplingCall> | undefined
}

/** One step (one model call) of a run. */
export type RunReportStepInit = {
  usage?: RunTelemetryUsageInit | undefined
  toolCalls?: ReadonlyArray<AssistantCloudRunReportToolCall> | undefined
  /** Milliseconds since the run started. */
  startMs?: number | undefined
  endMs?: number | undefined
  /** Cut to 32 characters. */
  finishReason?: string | undefined
  /** The step's input: a string or a JSON value (at most 50,000 characters). */
  input?: unknown
}

/**
 * What can be read from the stored messages of one run (for example by
 * `extractAISDKRunTelemetry` of `svc-client/ai-sdk`): spread it into a
 * `RunReportInit` with the thread id.
 */
export type RunMessageTelemetry = {
  assistantMessageId?: string
  status: "completed" | "incomplete"
  toolCalls?: Array<AssistantCloudRunReportToolCall>
  steps?: Array<RunReportStepInit>
  totalSteps?: number
  outputText?: string
  usage?: RunTelemetryUsage
  modelId?: string
  metadata?: Record<string, unknown>
}

/** How the cost of a run breaks down, in US dollars. */
export type RunReportCostDetails = {
  input?: number | undefined
  inputCachedTokens?: number | undefined
  output?: number | undefined
  total?: number | undefined
}

/** The client-side report object (camelCase) that `createRunReport` maps to the wire report. */
export type RunReportInit = {
  threadId: string
  status: RunReportStatus
  outcome?: RunReportOutcome | undefined
  /** Cut to 64 characters. */
  errorCode?: string | undefined
  /** Cut to 2,048 characters. */
  error?: string | undefined
  /** The assistant message the run wrote. */
  messageId?: string | undefined
  /** The user message the run answers. */
  userMessageId?: string | undefined
  /** Kept only when 32 hex digits (lower-cased). */
  traceId?: string | undefined
  /** Kept only when 16 hex digits (lower-cased). */
  rootSpanId?: string | undefined
  modelId?: string | undefined
  /** Sent as `provider` and `provider_type`. */
  provider?: string | undefined
  usage?: RunTelemetryUsageInit | undefined
  /** With steps, `total_steps` is their count and this is not used. */
  steps?: ReadonlyArray<RunReportStepInit> | undefined
  totalSteps?: number | undefined
  toolCalls?: ReadonlyArray<AssistantCloudRunReportToolCall> | undefined
  /** Sampling calls not tied to one tool call. */
  samplingCalls?: ReadonlyArray<RunReportSamplingCall> | undefined
  durationMs?: number | undefined
  firstTokenMs?: number | undefined
  /** US dollars, 0 to 1,000,000. */
  costUsd?: number | undefined
  costDetails?: RunReportCostDetails | undefined
  /** Cut to 50,000 characters. */
  outputText?: string | undefined
  /** A JSON object of at most 16 KB serialized (dropped when larger). */
  attributes?: Record<string, unknown> | undefined
  /** At most 16 keys; keys over 64 characters and values over 512 serialized are left out. */
  metadata?: Record<string, unknown> | undefined
  /** The telemetry configuration's share (`CloudRunReporter` fills it from the client). */
  telemetry?:
    | {
        environment?: string | undefined
        release?: string | undefined
        tags?: ReadonlyArray<string> | undefined
      }
    | undefined
}

// ---------------------------------------------------------------------------
// Helpers

const run = Limits.run
const TOOL_SOURCES: ReadonlyArray<unknown> = ["mcp", "frontend", "backend"]
const OUTCOMES: ReadonlyArray<unknown> = ["aborted", "disconnected", "length", "content_filter"]

/** `text` cut to `max` characters, never between the two halves of a surrogate pair. */
const cut = (text: string, max: number): string => {
  if (text.length <= max) return text
  const last = text.charCodeAt(max - 1)
  return text.slice(0, last >= 0xd800 && last <= 0xdbff ? max - 1 : max)
}

/**
 * Free-form text cut to the 50,000 characters the gateway takes in one report
 * field (output text, tool arguments and results, step input).
 */
export const truncateRunTelemetryText = (value: string): string => cut(value, run.textMaxLength)

/** JSON text of a value, cut to 50,000 characters; undefined for null, undefined or what JSON cannot hold. */
const serialize = (value: unknown): string | undefined => {
  if (value === null || value === undefined) return undefined
  try {
    const json: string | undefined = JSON.stringify(value)
    return json === undefined ? undefined : truncateRunTelemetryText(json)
  } catch {
    return undefined
  }
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** `Array.isArray` without its `any[]`. */
const isList = (value: unknown): value is ReadonlyArray<unknown> => Array.isArray(value)

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/

/** An MCP image or audio content block with its base64 payload replaced by `[image: 12.3KB]`. */
const summarizeBlock = (block: unknown): unknown => {
  if (!isRecord(block) || (block.type !== "image" && block.type !== "audio")) return block
  const data = block.data
  if (typeof data !== "string" || data.length < 100 || !BASE64.test(data.slice(0, 200))) return block
  return { ...block, data: `[${block.type}: ${((data.length * 3) / 4 / 1024).toFixed(1)}KB]` }
}

/**
 * An MCP tool result with its inline images and audio summarized: a content
 * array, or a CallToolResult object holding one under `content`. A string is
 * read as JSON first.
 */
const summarizeMcpResult = (result: unknown): string | undefined => {
  let value = result
  if (typeof result === "string") {
    try {
      value = JSON.parse(result)
    } catch {
      return serialize(result)
    }
  }
  if (isList(value)) return serialize(value.map(summarizeBlock))
  if (isRecord(value) && isList(value.content)) {
    return serialize({ ...value, content: value.content.map(summarizeBlock) })
  }
  return serialize(result)
}

/** A count the gateway takes: an integer from 0 to 100,000,000; undefined when not a finite number. */
const tokens = (value: unknown): number | undefined =>
  typeof value === "number" && Number.isFinite(value)
    ? Math.min(run.tokensMax, Math.max(0, Math.round(value)))
    : undefined

/** Milliseconds: rounded, at least 0; undefined when not a finite number. */
const millis = (value: unknown): number | undefined =>
  typeof value === "number" && Number.isFinite(value)
    ? Math.min(Number.MAX_SAFE_INTEGER, Math.max(0, Math.round(value)))
    : undefined

/** A name (model, provider, tool): cut to 255 characters; undefined when empty or not a string. */
const name = (value: unknown): string | undefined =>
  typeof value === "string" && value !== "" ? cut(value, run.nameMaxLength) : undefined

/** A tool's arguments, result or a step's input: text cut to 50,000, JSON kept when it fits, else its text cut. */
const textLike = (value: unknown): unknown => {
  if (value === undefined) return undefined
  if (typeof value === "string") return truncateRunTelemetryText(value)
  let json: string | undefined
  try {
    json = JSON.stringify(value)
  } catch {
    return undefined
  }
  if (json === undefined) return undefined
  return json.length <= run.textMaxLength ? value : truncateRunTelemetryText(json)
}

/** At most 1,000 entries, each mapped; entries mapped to undefined are left out. */
const entries = <A, B>(items: ReadonlyArray<A> | undefined, map: (item: A) => B | undefined): Array<B> | undefined => {
  if (!isList(items)) return undefined
  const kept: Array<B> = []
  for (const item of items) {
    const mapped = map(item)
    if (mapped !== undefined) kept.push(mapped)
    if (kept.length === run.entriesMax) break
  }
  return kept
}

/** Copies `value` to `target[key]` unless it is undefined (the wire has no explicit undefined). */
const put = <T extends object, K extends keyof T>(target: T, key: K, value: T[K] | undefined): void => {
  if (value !== undefined) target[key] = value
}

const samplingCall = (call: RunReportSamplingCall): RunReportSamplingCall | undefined => {
  if (!isRecord(call)) return undefined
  const out: Writable<RunReportSamplingCall> = {}
  put(out, "model_id", name(call.model_id))
  put(out, "input_tokens", tokens(call.input_tokens))
  put(out, "output_tokens", tokens(call.output_tokens))
  put(out, "reasoning_tokens", tokens(call.reasoning_tokens))
  put(out, "cached_input_tokens", tokens(call.cached_input_tokens))
  put(out, "duration_ms", millis(call.duration_ms))
  return out
}

/** A tool call with only the wire's fields, each within its limit; undefined without a name or an id. */
const toolCall = (call: AssistantCloudRunReportToolCall): AssistantCloudRunReportToolCall | undefined => {
  if (!isRecord(call)) return undefined
  const toolName = name(call.tool_name)
  const toolCallId = name(call.tool_call_id)
  if (toolName === undefined || toolCallId === undefined) return undefined
  const out: AssistantCloudRunReportToolCall = { tool_name: toolName, tool_call_id: toolCallId }
  put(out, "tool_args", textLike(call.tool_args))
  put(out, "tool_result", textLike(call.tool_result))
  if (TOOL_SOURCES.includes(call.tool_source)) put(out, "tool_source", call.tool_source)
  put(out, "start_ms", millis(call.start_ms))
  put(out, "end_ms", millis(call.end_ms))
  put(out, "sampling_calls", entries(call.sampling_calls, samplingCall))
  return out
}

/**
 * One tool call in the shape the gateway takes. Arguments (or `argsText`) and
 * the result are serialized as JSON and cut to 50,000 characters; an `mcp`
 * result has its base64 image and audio payloads replaced by a size.
 */
export const createRunTelemetryToolCall = (init: RunTelemetryToolCallInit): AssistantCloudRunReportToolCall => {
  const call: AssistantCloudRunReportToolCall = { tool_name: init.toolName, tool_call_id: init.toolCallId }
  put(
    call,
    "tool_args",
    typeof init.argsText === "string" ? truncateRunTelemetryText(init.argsText) : serialize(init.args)
  )
  put(call, "tool_result", init.toolSource === "mcp" ? summarizeMcpResult(init.result) : serialize(init.result))
  if (init.toolSource !== undefined) call.tool_source = init.toolSource
  put(call, "start_ms", millis(init.startMs))
  put(call, "end_ms", millis(init.endMs))
  put(call, "sampling_calls", entries(init.samplingCalls, samplingCall))
  return call
}

/**
 * Token counts under the report's names, from whichever names the provider
 * used: `inputTokens` else `promptTokens`, `outputTokens` else
 * `completionTokens`, `reasoningTokens` else `outputTokenDetails.reasoningTokens`,
 * `cachedInputTokens` else `inputTokenDetails.cacheReadTokens`. Undefined when
 * there is no count at all (so an empty usage differs from a zero one).
 */
export const normalizeRunTelemetryUsage = (usage: RunTelemetryUsageInit): RunTelemetryUsage | undefined => {
  const inputTokens = usage.inputTokens ?? usage.promptTokens
  const outputTokens = usage.outputTokens ?? usage.completionTokens
  const reasoningTokens = usage.reasoningTokens ?? usage.outputTokenDetails?.reasoningTokens
  const cachedInputTokens = usage.cachedInputTokens ?? usage.inputTokenDetails?.cacheReadTokens
  const out: RunTelemetryUsage = {}
  if (inputTokens != null) out.inputTokens = inputTokens
  if (outputTokens != null) out.outputTokens = outputTokens
  if (reasoningTokens != null) out.reasoningTokens = reasoningTokens
  if (cachedInputTokens != null) out.cachedInputTokens = cachedInputTokens
  return Object.keys(out).length === 0 ? undefined : out
}

/** The four wire token fields of a usage (each a valid count), onto `target`. */
const putUsage = (
  target: {
    input_tokens?: number | undefined
    output_tokens?: number | undefined
    reasoning_tokens?: number | undefined
    cached_input_tokens?: number | undefined
  },
  usage: RunTelemetryUsageInit | undefined
): void => {
  const normalized = isRecord(usage) ? normalizeRunTelemetryUsage(usage) : undefined
  if (normalized === undefined) return
  put(target, "input_tokens", tokens(normalized.inputTokens))
  put(target, "output_tokens", tokens(normalized.outputTokens))
  put(target, "reasoning_tokens", tokens(normalized.reasoningTokens))
  put(target, "cached_input_tokens", tokens(normalized.cachedInputTokens))
}

/**
 * The model id an app put in a message's metadata: `modelId`, else
 * `custom.modelId`, else the first step's `response.modelId` (what a
 * `messageMetadata` callback copies off the AI SDK's finish-step part).
 */
export const extractRunTelemetryModelId = (metadata: Record<string, unknown> | undefined): string | undefined => {
  if (!isRecord(metadata)) return undefined
  if (typeof metadata.modelId === "string" && metadata.modelId !== "") return metadata.modelId
  const custom = metadata.custom
  if (isRecord(custom) && typeof custom.modelId === "string" && custom.modelId !== "") return custom.modelId
  if (!isList(metadata.steps)) return undefined
  for (const step of metadata.steps) {
    const response = isRecord(step) ? step.response : undefined
    if (isRecord(response) && typeof response.modelId === "string" && response.modelId !== "") return response.modelId
  }
  return undefined
}

/**
 * The status (and outcome) of a finished run: an error first, then an abort
 * (incomplete, aborted), a disconnect (incomplete, disconnected), then the
 * finish reason: `length`, `content-filter` or `content_filter`, `cancelled`
 * (incomplete, aborted), `error`; any other reason is completed, and no reason
 * at all is `fallback`.
 */
export const deriveRunOutcome = (
  input: {
    finishReason?: string | undefined
    isAbort?: boolean | undefined
    isDisconnect?: boolean | undefined
    isError?: boolean | undefined
  },
  fallback: "completed" | "incomplete" = "completed"
): { status: RunReportStatus; outcome?: RunReportOutcome } => {
  if (input.isError) return { status: "error" }
  if (input.isAbort) return { status: "incomplete", outcome: "aborted" }
  if (input.isDisconnect) return { status: "incomplete", outcome: "disconnected" }
  switch (input.finishReason) {
    case undefined:
      return { status: fallback }
    case "length":
      return { status: "incomplete", outcome: "length" }
    case "content-filter":
    case "content_filter":
      return { status: "incomplete", outcome: "content_filter" }
    case "cancelled":
      return { status: "incomplete", outcome: "aborted" }
    case "error":
      return { status: "error" }
    default:
      return { status: "completed" }
  }
}

/**
 * What a failed run reports: the message (a string error is its own message)
 * cut to 2,048 characters, and the code: the error's string `code`, else its
 * `name` unless that is plain "Error", cut to 64. Empty ones are left out.
 */
export const describeRunError = (error: unknown): { error?: string; errorCode?: string } => {
  const record = typeof error === "object" && error !== null ? error : undefined
  const message =
    typeof error === "string"
      ? error
      : record !== undefined && "message" in record && typeof record.message === "string"
        ? record.message
        : undefined
  const code =
    record !== undefined && "code" in record && typeof record.code === "string"
      ? record.code
      : record !== undefined && "name" in record && typeof record.name === "string" && record.name !== "Error"
        ? record.name
        : undefined
  const out: { error?: string; errorCode?: string } = {}
  if (message) out.error = cut(message, run.errorMaxLength)
  if (code) out.errorCode = cut(code, run.errorCodeMaxLength)
  return out
}

const step = (init: RunReportStepInit): RunReportStep | undefined => {
  if (!isRecord(init)) return undefined
  const out: RunReportStep = {}
  putUsage(out, init.usage)
  put(out, "tool_calls", entries(init.toolCalls, toolCall))
  put(out, "start_ms", millis(init.startMs))
  put(out, "end_ms", millis(init.endMs))
  if (typeof init.finishReason === "string") out.finish_reason = cut(init.finishReason, run.finishReasonMaxLength)
  put(out, "input", textLike(init.input))
  return out
}

/** A hex id lower-cased, kept only when it has `digits` hex digits. */
const hexId = (value: unknown, digits: number): string | undefined => {
  if (typeof value !== "string") return undefined
  const lower = value.toLowerCase()
  return lower.length === digits && /^[0-9a-f]+$/.test(lower) ? lower : undefined
}

/** A message id as the gateway stores it: 1 to 48 characters, else left out. */
const messageId = (value: unknown): string | undefined =>
  typeof value === "string" && value.length > 0 && value.length <= Limits.idMaxLength ? value : undefined

const utf8 = (text: string): number => new TextEncoder().encode(text).length

/** A JSON object of at most `maxBytes` serialized; undefined otherwise. */
const jsonObject = (value: unknown, maxBytes: number): Record<string, unknown> | undefined => {
  if (!isRecord(value)) return undefined
  try {
    return utf8(JSON.stringify(value)) <= maxBytes ? value : undefined
  } catch {
    return undefined
  }
}

/** Metadata the gateway takes: at most 16 keys of at most 64 characters, each value at most 512 serialized. */
const metadata = (value: unknown): Record<string, unknown> | undefined => {
  if (!isRecord(value)) return undefined
  const { metadataKeyMaxLength, metadataMaxKeys, metadataValueMaxLength } = Limits.thread
  const out: Record<string, unknown> = {}
  let count = 0
  for (const [key, item] of Object.entries(value)) {
    if (key.length > metadataKeyMaxLength) continue
    let json: string | undefined
    try {
      json = JSON.stringify(item)
    } catch {
      continue
    }
    if (json === undefined || json.length > metadataValueMaxLength) continue
    out[key] = item
    if (++count === metadataMaxKeys) break
  }
  return count === 0 && Object.keys(value).length > 0 ? undefined : out
}

const costDetails = (value: RunReportCostDetails | undefined): Record<string, number> | undefined => {
  if (!isRecord(value)) return undefined
  const out: Record<string, number> = {}
  const fields = [
    ["input", value.input],
    ["input_cached_tokens", value.inputCachedTokens],
    ["output", value.output],
    ["total", value.total]
  ] as const
  for (const [key, amount] of fields) {
    if (typeof amount === "number" && Number.isFinite(amount)) out[key] = amount
  }
  return Object.keys(out).length === 0 ? undefined : out
}

/**
 * The wire report of a client-side report object (docs/client-library.md "Building blocks"), normalized
 * so the gateway takes it: `trace_id` lower-cased and kept only when 32 hex
 * digits (`root_span_id`: 16); `provider` also sent as `provider_type`; usage
 * under its normalized names; with `steps`, `total_steps` is their count; a
 * step's `finish_reason` cut to 32; `duration_ms` and `first_token_ms` rounded,
 * at least 0, left out when not finite; `output_text` cut to 50,000; tags
 * trimmed, cut to 64, empty and duplicates dropped, at most 20; error and code
 * cut to 2,048 and 64, environment and release to 64 and 255; token counts
 * whole and at most 100,000,000; at most 1,000 steps, tool calls and sampling
 * calls, each with only the wire's fields.
 */
export const createRunReport = (init: RunReportInit): CloudRunReport => {
  const report: Writable<CloudRunReport> = { thread_id: init.threadId, status: init.status }
  put(report, "message_id", messageId(init.messageId))
  put(report, "user_message_id", messageId(init.userMessageId))
  put(report, "trace_id", hexId(init.traceId, 32))
  put(report, "root_span_id", hexId(init.rootSpanId, 16))
  if (OUTCOMES.includes(init.outcome)) put(report, "outcome_type", init.outcome)
  if (typeof init.error === "string") report.error = cut(init.error, run.errorMaxLength)
  if (typeof init.errorCode === "string") report.error_code = cut(init.errorCode, run.errorCodeMaxLength)
  put(report, "model_id", name(init.modelId))
  const provider = name(init.provider)
  if (provider !== undefined) {
    report.provider = provider
    report.provider_type = cut(provider, run.providerTypeMaxLength)
  }
  putUsage(report, init.usage)
  const steps = entries(init.steps, step)
  if (steps !== undefined) {
    report.steps = steps
    report.total_steps = steps.length
  } else {
    const total = millis(init.totalSteps)
    if (total !== undefined) report.total_steps = Math.min(total, run.entriesMax)
  }
  put(report, "tool_calls", entries(init.toolCalls, toolCall))
  put(report, "sampling_calls", entries(init.samplingCalls, samplingCall))
  put(report, "duration_ms", millis(init.durationMs))
  put(report, "first_token_ms", millis(init.firstTokenMs))
  if (typeof init.costUsd === "number" && Number.isFinite(init.costUsd) && init.costUsd >= 0) {
    report.cost_usd = Math.min(init.costUsd, run.costUsdMax)
  }
  put(report, "cost_details", costDetails(init.costDetails))
  if (typeof init.outputText === "string") report.output_text = truncateRunTelemetryText(init.outputText)
  put(report, "attributes", jsonObject(init.attributes, run.attributesMaxBytes))
  put(report, "metadata", metadata(init.metadata))
  const telemetry = init.telemetry
  if (typeof telemetry?.environment === "string")
    report.environment = cut(telemetry.environment, run.environmentMaxLength)
  if (typeof telemetry?.release === "string") report.release = cut(telemetry.release, run.releaseMaxLength)
  const tags = isList(telemetry?.tags) ? normalizeTags(telemetry.tags) : undefined
  if (tags !== undefined) report.tags = tags
  return report
}
