import {
  type AssistantCloudRunReportToolCall,
  createRunTelemetryToolCall,
  extractRunTelemetryModelId,
  normalizeRunTelemetryUsage,
  type RunMessageTelemetry,
  type RunReportStepInit,
  type RunTelemetryUsage,
  type RunTelemetryUsageInit,
  truncateRunTelemetryText
} from "../blocks/runReport.js"
import type { SamplingCallData } from "../blocks/sampling.js"

/**
 * A message as an AI SDK app holds it (a `UIMessage`, v6 or v7) or as it was
 * stored under `ai-sdk/v6` (without its id). Only the part `type` is typed:
 * the rest of a part is read defensively, so the entry needs no `ai` runtime.
 */
export interface AISDKMessageLike {
  readonly id?: string | undefined
  readonly role: string
  readonly parts: ReadonlyArray<{ readonly type: string; readonly [key: string]: unknown }>
  readonly metadata?: unknown
}

type Bag = Readonly<Record<string, unknown>>

const isBag = (value: unknown): value is Bag => typeof value === "object" && value !== null

/** Copies the finite numbers `source` has under `keys` onto `target`. */
const copyCounts = <K extends string>(
  source: Bag,
  keys: ReadonlyArray<K>,
  target: { [P in K]?: number | undefined }
): void => {
  for (const key of keys) {
    const value = source[key]
    if (typeof value === "number" && Number.isFinite(value)) target[key] = value
  }
}

/**
 * A usage object as the AI SDK wrote it (v6 or v7 names, or the legacy
 * prompt/completion pair), with only the token counts a report reads.
 */
const usageInit = (value: unknown): RunTelemetryUsageInit | undefined => {
  if (!isBag(value)) return undefined
  const init: RunTelemetryUsageInit = {}
  copyCounts(
    value,
    ["inputTokens", "outputTokens", "reasoningTokens", "cachedInputTokens", "promptTokens", "completionTokens"],
    init
  )
  const input: NonNullable<RunTelemetryUsageInit["inputTokenDetails"]> = {}
  if (isBag(value.inputTokenDetails)) copyCounts(value.inputTokenDetails, ["cacheReadTokens"], input)
  if (input.cacheReadTokens !== undefined) init.inputTokenDetails = input
  const output: NonNullable<RunTelemetryUsageInit["outputTokenDetails"]> = {}
  if (isBag(value.outputTokenDetails)) copyCounts(value.outputTokenDetails, ["reasoningTokens"], output)
  if (output.reasoningTokens !== undefined) init.outputTokenDetails = output
  return init
}

/** `metadata.steps[i].usage`, by step index. */
const stepUsages = (metadata: Bag | undefined): ReadonlyArray<RunTelemetryUsageInit | undefined> => {
  const steps = metadata?.steps
  return Array.isArray(steps) ? steps.map((step: unknown) => (isBag(step) ? usageInit(step.usage) : undefined)) : []
}

const addUsage = (total: RunTelemetryUsage, usage: RunTelemetryUsage): RunTelemetryUsage => {
  const sum: RunTelemetryUsage = { ...total }
  for (const key of ["inputTokens", "outputTokens", "reasoningTokens", "cachedInputTokens"] as const) {
    const count = usage[key]
    if (count !== undefined) sum[key] = (sum[key] ?? 0) + count
  }
  return sum
}

/** A message's usage: `metadata.usage` when it has a count, else the sum of its steps' usages. */
const messageUsage = (metadata: Bag | undefined): RunTelemetryUsage | undefined => {
  const init = usageInit(metadata?.usage)
  const total = init === undefined ? undefined : normalizeRunTelemetryUsage(init)
  if (total !== undefined) return total
  let sum: RunTelemetryUsage | undefined
  for (const step of stepUsages(metadata)) {
    const usage = step === undefined ? undefined : normalizeRunTelemetryUsage(step)
    if (usage !== undefined) sum = addUsage(sum ?? {}, usage)
  }
  return sum
}

/**
 * The tool call of a tool part: `tool-<name>` (a tool the app declared) is a
 * `frontend` tool, `dynamic-tool` (named by `toolName`, as MCP tools are) an
 * `mcp` one. Arguments from `input` (or the older `args`), result from
 * `output` (or `result`); `metadata.samplingCalls[toolCallId]` attached.
 */
const toolCallOf = (
  part: Bag,
  type: string,
  samplingCalls: Bag | undefined
): AssistantCloudRunReportToolCall | undefined => {
  const toolCallId = part.toolCallId
  if (typeof toolCallId !== "string") return undefined
  const isStatic = type.startsWith("tool-")
  if (!isStatic && type !== "dynamic-tool") return undefined
  const toolName = isStatic ? type.slice("tool-".length) : part.toolName
  if (typeof toolName !== "string" || toolName === "") return undefined
  const sampled = samplingCalls?.[toolCallId]
  const calls = Array.isArray(sampled) ? sampled.flatMap(samplingCallOf) : []
  return createRunTelemetryToolCall({
    toolName,
    toolCallId,
    args: part.input ?? part.args,
    result: part.output ?? part.result,
    toolSource: isStatic ? "frontend" : "mcp",
    ...(calls.length > 0 ? { samplingCalls: calls } : {})
  })
}

/** A sampling call as `wrapSamplingHandler` recorded it, with only the fields a report has. */
const samplingCallOf = (value: unknown): Array<SamplingCallData> => {
  if (!isBag(value)) return []
  const call: { -readonly [K in keyof SamplingCallData]: SamplingCallData[K] } = {}
  if (typeof value.model_id === "string") call.model_id = value.model_id
  copyCounts(value, ["input_tokens", "output_tokens", "reasoning_tokens", "cached_input_tokens", "duration_ms"], call)
  return [call]
}

/**
 * The run report input read from the assistant messages of one run (null when
 * there is none): one streamed `UIMessage`, or the several assistant rows a
 * run was stored as, read in order. Each `step-start` part opens a step (its
 * usage from `metadata.steps[i].usage`); a step with tool calls finishes with
 * `tool-calls`. Usage is `metadata.usage`, else the sum of the steps'; the
 * model is `metadata.modelId`, `metadata.custom.modelId`, then the steps'
 * `response.modelId` (of the last assistant message). Status is `completed`
 * when the run produced text or a tool call, else `incomplete`.
 */
export const extractAISDKRunTelemetry = (messages: ReadonlyArray<AISDKMessageLike>): RunMessageTelemetry | null => {
  let last: AISDKMessageLike | undefined
  const texts: Array<string> = []
  const toolCalls: Array<AssistantCloudRunReportToolCall> = []
  const steps: Array<RunReportStepInit> = []
  let usage: RunTelemetryUsage | undefined
  for (const message of messages) {
    if (message.role !== "assistant") continue
    last = message
    const metadata = isBag(message.metadata) ? message.metadata : undefined
    const usages = stepUsages(metadata)
    const samplingCalls = isBag(metadata?.samplingCalls) ? metadata.samplingCalls : undefined
    let step: RunReportStepInit | undefined
    let stepIndex = 0
    for (const entry of message.parts) {
      const part: unknown = entry
      if (!isBag(part) || typeof part.type !== "string") continue
      if (part.type === "step-start") {
        const stepUsage = usages[stepIndex++]
        step = stepUsage === undefined ? {} : { usage: stepUsage }
        steps.push(step)
      } else if (part.type === "text") {
        if (typeof part.text === "string" && part.text !== "") texts.push(part.text)
      } else {
        const call = toolCallOf(part, part.type, samplingCalls)
        if (call === undefined) continue
        toolCalls.push(call)
        if (step !== undefined) {
          step.toolCalls = [...(step.toolCalls ?? []), call]
          step.finishReason = "tool-calls"
        }
      }
    }
    const own = messageUsage(metadata)
    if (own !== undefined) usage = addUsage(usage ?? {}, own)
  }
  if (last === undefined) return null
  const metadata = isBag(last.metadata) ? last.metadata : undefined
  const modelId = extractRunTelemetryModelId(metadata)
  const telemetry: RunMessageTelemetry = {
    status: texts.length > 0 || toolCalls.length > 0 ? "completed" : "incomplete"
  }
  if (last.id !== undefined) telemetry.assistantMessageId = last.id
  if (toolCalls.length > 0) telemetry.toolCalls = toolCalls
  if (steps.length > 0) {
    telemetry.steps = steps
    telemetry.totalSteps = steps.length
  }
  if (texts.length > 0) telemetry.outputText = truncateRunTelemetryText(texts.join(""))
  if (usage !== undefined) telemetry.usage = usage
  if (modelId !== undefined) telemetry.modelId = modelId
  if (metadata !== undefined) telemetry.metadata = metadata
  return telemetry
}
