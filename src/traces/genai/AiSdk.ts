/**
 * The Vercel AI SDK convention (`ai_sdk`): `ai.generateText`, `ai.streamText`,
 * `ai.generateObject`, `ai.streamObject` are the calls (runs); their
 * `…doGenerate`/`…doStream` children are steps (they carry `gen_ai.*` too, so
 * the AI SDK is read first: one call is one run); `ai.toolCall` spans are
 * tool calls.
 */
import { Limits } from "../../../schema/Limits.js"
import type { SpanInput } from "../SpanModel.js"
import { bounded, cut, finishReasonOf, firstCount, firstText, isObject, parsed, text } from "./Attributes.js"
import type { ConventionRun, DerivedToolCall, Recognised } from "./Types.js"

const AI_SDK_CALLS = new Set(["ai.generateText", "ai.streamText", "ai.generateObject", "ai.streamObject"])
const { nameMaxLength, textMaxLength } = Limits.run

const aiSdkOperation = (span: SpanInput): string | null => {
  const id = text(span.attributes["ai.operationId"])
  if (id?.startsWith("ai.")) return id
  return span.name.startsWith("ai.") ? (span.name.split(" ")[0] ?? null) : null
}

/** The span's reading as an AI SDK span; null when it is not one. */
export const recogniseAiSdk = (span: SpanInput): Recognised | null => {
  const operation = aiSdkOperation(span)
  if (operation === null) return null
  if (/\.(doGenerate|doStream)$/.test(operation)) return { convention: "ai_sdk", role: "model_step" }
  if (operation === "ai.toolCall") return { convention: "ai_sdk", role: "tool_call" }
  return { convention: "ai_sdk", role: AI_SDK_CALLS.has(operation) ? "model_call" : null }
}

/** Tool calls the AI SDK records on a call or step span (`ai.response.toolCalls`). */
export const declaredByAiSdk = (span: SpanInput): Array<DerivedToolCall> => {
  const list = parsed(span.attributes["ai.response.toolCalls"])
  if (!Array.isArray(list)) return []
  return list.flatMap((call): Array<DerivedToolCall> => {
    if (!isObject(call) || typeof call.toolName !== "string" || typeof call.toolCallId !== "string") return []
    const args = call.input ?? call.args
    return [
      {
        tool_name: call.toolName.slice(0, nameMaxLength),
        tool_call_id: call.toolCallId.slice(0, nameMaxLength),
        ...(args === undefined ? {} : { tool_args: bounded(parsed(args)) })
      }
    ]
  })
}

export const aiSdkRun = (span: SpanInput, related: ReadonlyArray<SpanInput>): ConventionRun => {
  const a = span.attributes
  // Read by the AI SDK's reading, not by the facade's recognise (which imports this module): the AI SDK is
  // read first, so a span it takes for a step is a step whatever else it carries (and only children are read).
  const steps = related.filter(
    (other) => other.parent_span_id === span.span_id && recogniseAiSdk(other)?.role === "model_step"
  )
  const firstChunk = a["ai.response.msToFirstChunk"]
  return {
    model_id: cut(firstText(a, "ai.response.model", "ai.model.id", "gen_ai.response.model"), nameMaxLength),
    provider: cut(firstText(a, "ai.model.provider", "gen_ai.system"), nameMaxLength),
    input_tokens: firstCount(a, "ai.usage.inputTokens", "ai.usage.promptTokens"),
    output_tokens: firstCount(a, "ai.usage.outputTokens", "ai.usage.completionTokens"),
    reasoning_tokens: firstCount(a, "ai.usage.reasoningTokens"),
    cached_input_tokens: firstCount(a, "ai.usage.cachedInputTokens"),
    first_token_ms: typeof firstChunk === "number" && firstChunk >= 0 ? Math.round(firstChunk) : null,
    finish_reason: finishReasonOf(a["ai.response.finishReason"]),
    output_text: cut(firstText(a, "ai.response.text", "ai.response.object"), textMaxLength),
    total_steps: steps.length === 0 ? null : steps.length,
    input_messages: parsed(a["ai.prompt.messages"] ?? a["ai.prompt"] ?? null),
    output_messages: null,
    step_tool_calls: steps.flatMap(declaredByAiSdk)
  }
}
