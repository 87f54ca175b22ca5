/**
 * Which instrumentation convention a span follows, and the run a model-call
 * span makes (docs/decisions.md "Traces (OTLP/HTTP)"). Pure functions over src/traces/SpanModel.ts spans.
 *
 * Each convention is read in its own module under src/traces/genai/: the AI
 * SDK (`ai_sdk`, AiSdk.ts), OpenInference (`openinference`, OpenInference.ts)
 * and OpenTelemetry GenAI (`gen_ai`, GenAi.ts, with the older OpenLLMetry
 * forms); the readers they share are in Attributes.ts. Here: the order they
 * are tried in, and what a run makes the same whatever its convention (its
 * tool calls, error, user and thread refs, duration and status).
 *
 * Nothing here throws on odd values: a number where a string was expected is
 * ignored, a JSON string that does not parse stays a string.
 */
import { Limits } from "../../schema/Limits.js"
import { aiSdkRun, declaredByAiSdk, recogniseAiSdk } from "./genai/AiSdk.js"
import { bounded, cut, firstText, memo, millisBetween, parsed, text } from "./genai/Attributes.js"
import { declaredByGenAi, genAiRun, recogniseGenAi } from "./genai/GenAi.js"
import { declaredByOpenInference, openInferenceRun, recogniseOpenInference } from "./genai/OpenInference.js"
import type { DerivedRun, DerivedToolCall, Recognised } from "./genai/Types.js"
import type { SpanInput } from "./SpanModel.js"

export type { DerivedRun, DerivedToolCall, Recognised } from "./genai/Types.js"

const NONE: Recognised = { convention: null, role: null }
const { nameMaxLength, errorMaxLength, entriesMax } = Limits.run

// The AI SDK first: its steps carry `gen_ai.*` too, and one call is one run.
export const recognise = memo(
  (span: SpanInput): Recognised => recogniseAiSdk(span) ?? recogniseOpenInference(span) ?? recogniseGenAi(span) ?? NONE
)

const declaredToolCalls = memo((span: SpanInput): ReadonlyArray<DerivedToolCall> => {
  const convention = recognise(span).convention
  if (convention === "ai_sdk") return declaredByAiSdk(span)
  if (convention === "openinference") return declaredByOpenInference(span)
  return declaredByGenAi(span)
})

const toolCallIdOf = (tool: SpanInput): string | null =>
  firstText(tool.attributes, "ai.toolCall.id", "gen_ai.tool.call.id", "tool_call.id")

export const toolBelongsTo = (tool: SpanInput, run: SpanInput): boolean => {
  if (tool.parent_span_id === run.span_id) return true
  const id = toolCallIdOf(tool)
  return id !== null && declaredToolCalls(run).some((call) => call.tool_call_id === id)
}

export const toolCallOf = (tool: SpanInput, runStartNano: string): DerivedToolCall | undefined => {
  const a = tool.attributes
  const name = firstText(a, "ai.toolCall.name", "gen_ai.tool.name", "tool.name", "tool_call.function.name")
  if (name === null) return undefined
  const args =
    a["ai.toolCall.args"] ??
    a["ai.toolCall.input"] ??
    a["gen_ai.tool.call.arguments"] ??
    a["tool.parameters"] ??
    a["input.value"]
  const result = a["ai.toolCall.result"] ?? a["ai.toolCall.output"] ?? a["gen_ai.tool.call.result"] ?? a["output.value"]
  // Built in place, not with spreads between properties (see deriveRun); the keys keep this order.
  const call: { -readonly [K in keyof DerivedToolCall]: DerivedToolCall[K] } = {
    tool_name: name.slice(0, nameMaxLength),
    tool_call_id: (toolCallIdOf(tool) ?? tool.span_id).slice(0, nameMaxLength)
  }
  if (args !== undefined) call.tool_args = bounded(parsed(args))
  if (result !== undefined) call.tool_result = bounded(parsed(result))
  call.start_ms = millisBetween(runStartNano, tool.start_time_unix_nano)
  call.end_ms = millisBetween(runStartNano, tool.end_time_unix_nano)
  return call
}

/**
 * The tool calls of a run: its tool spans (with results and timing), then
 * those only declared. A tool span that names no call id (OpenInference's
 * often do not) is the first declared call of its tool name not yet taken.
 */
const toolCallsOf = (span: SpanInput, related: ReadonlyArray<SpanInput>, declared: ReadonlyArray<DerivedToolCall>) => {
  const taken = new Set<string>()
  const fromSpans = related
    .filter((other) => recognise(other).role === "tool_call" && toolBelongsTo(other, span))
    .sort((a, b) => (BigInt(a.start_time_unix_nano) < BigInt(b.start_time_unix_nano) ? -1 : 1))
    .flatMap((tool) => {
      const call = toolCallOf(tool, span.start_time_unix_nano)
      if (call === undefined) return []
      // The declared call of the same id (or, without one, the first of the same tool not yet taken).
      const match =
        toolCallIdOf(tool) !== null
          ? declared.find((one) => one.tool_call_id === call.tool_call_id)
          : declared.find((one) => one.tool_name === call.tool_name && !taken.has(one.tool_call_id))
      taken.add(call.tool_call_id)
      if (match === undefined) return [call]
      taken.add(match.tool_call_id)
      // Object.assign, not a literal opening with spreads (see deriveRun).
      return [
        Object.assign({}, match, call, {
          tool_call_id: match.tool_call_id,
          tool_args: call.tool_args ?? match.tool_args
        })
      ]
    })
  const onlyDeclared = declared.filter((call) => {
    if (taken.has(call.tool_call_id)) return false
    taken.add(call.tool_call_id)
    return true
  })
  return [...fromSpans, ...onlyDeclared].slice(0, entriesMax)
}

const errorOf = (span: SpanInput): string | null => {
  const exception = span.events.find((event) => event.name === "exception")
  return cut(
    text(span.status_message) ??
      (exception === undefined ? null : firstText(exception.attributes, "exception.message", "exception.type")) ??
      text(span.attributes["error.type"]),
    errorMaxLength
  )
}

export const deriveRun = (span: SpanInput, related: ReadonlyArray<SpanInput>): DerivedRun | undefined => {
  const { convention, role } = recognise(span)
  if (role !== "model_call") return undefined
  const a = span.attributes
  const failed = span.status_code === 2 || text(a["error.type"]) !== null
  const threadRef = firstText(
    a,
    "gen_ai.conversation.id",
    "svc.thread_id",
    "ai.telemetry.metadata.svc.thread_id",
    "ai.telemetry.metadata.threadId",
    "ai.telemetry.metadata.thread_id",
    "session.id"
  )
  const fields =
    convention === "ai_sdk"
      ? aiSdkRun(span, related)
      : convention === "openinference"
        ? openInferenceRun(span)
        : genAiRun(span)
  const declared = declaredToolCalls(span)
  // One literal written out, the convention's fields copied one by one: V8 (Node 20) builds an object
  // literal that starts with a spread and goes on with properties a thousand times slower (29 µs here).
  return {
    duration_ms: millisBetween(span.start_time_unix_nano, span.end_time_unix_nano),
    status: failed ? "error" : "completed",
    error: failed ? errorOf(span) : null,
    user_ref: cut(firstText(a, "ai.telemetry.metadata.userId", "user.id", "enduser.id"), nameMaxLength),
    model_id: fields.model_id,
    provider: fields.provider,
    input_tokens: fields.input_tokens,
    output_tokens: fields.output_tokens,
    reasoning_tokens: fields.reasoning_tokens,
    cached_input_tokens: fields.cached_input_tokens,
    first_token_ms: fields.first_token_ms,
    finish_reason: fields.finish_reason,
    output_text: fields.output_text,
    total_steps: fields.total_steps,
    thread_ref: cut(threadRef, nameMaxLength),
    tool_calls: toolCallsOf(
      span,
      related,
      fields.step_tool_calls.length === 0 ? declared : [...fields.step_tool_calls, ...declared]
    ),
    input_messages: fields.input_messages,
    output_messages: fields.output_messages
  }
}
