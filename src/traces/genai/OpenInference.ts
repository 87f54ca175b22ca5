/**
 * The OpenInference convention (`openinference`): `openinference.span.kind`
 * LLM and TOOL, flattened `llm.*_messages.{i}.message.*` attributes.
 */
import { Limits } from "../../../schema/Limits.js"
import type { Attributes, SpanInput } from "../SpanModel.js"
import { cut, declaredInMessages, firstCount, firstText, parsed, text, textOf } from "./Attributes.js"
import type { ConventionRun, DerivedToolCall, Recognised } from "./Types.js"

const { nameMaxLength, textMaxLength } = Limits.run

/** The span's reading as an OpenInference span; null when it is not one. */
export const recogniseOpenInference = (span: SpanInput): Recognised | null => {
  const kind = text(span.attributes["openinference.span.kind"])?.toUpperCase()
  if (kind === undefined) return null
  return { convention: "openinference", role: kind === "LLM" ? "model_call" : kind === "TOOL" ? "tool_call" : null }
}

/** Flattened `prefix.{i}.message.*` attributes (OpenInference) as message objects. */
const flattenedMessages = (attributes: Attributes, prefix: string): Array<Record<string, unknown>> | null => {
  const messages = new Map<number, Record<string, unknown>>()
  const toolCalls = new Map<string, Record<string, unknown>>()
  for (const [key, value] of Object.entries(attributes)) {
    if (!key.startsWith(prefix)) continue
    const match = /^(\d+)\.message\.(.+)$/.exec(key.slice(prefix.length))
    if (match === null) continue
    const index = Number(match[1])
    const field = match[2] as string
    const message = messages.get(index) ?? {}
    messages.set(index, message)
    const call = /^tool_calls\.(\d+)\.tool_call\.(.+)$/.exec(field)
    if (call === null) {
      message[field] = value
      continue
    }
    const callKey = `${index}.${call[1]}`
    let entry = toolCalls.get(callKey)
    if (entry === undefined) {
      entry = {}
      toolCalls.set(callKey, entry)
      const list = Array.isArray(message.tool_calls) ? message.tool_calls : []
      message.tool_calls = [...list, entry]
    }
    const name = (call[2] as string).replace(/^function\./, "")
    entry[name] = value
  }
  if (messages.size === 0) return null
  return [...messages.entries()].sort(([a], [b]) => a - b).map(([, message]) => message)
}

/** Tool calls the LLM span's output messages declare (`tool_calls`). */
export const declaredByOpenInference = (span: SpanInput): Array<DerivedToolCall> =>
  declaredInMessages(flattenedMessages(span.attributes, "llm.output_messages."))

export const openInferenceRun = (span: SpanInput): ConventionRun => {
  const a = span.attributes
  const output = flattenedMessages(a, "llm.output_messages.")
  return {
    model_id: cut(text(a["llm.model_name"]), nameMaxLength),
    provider: cut(firstText(a, "llm.provider", "llm.system"), nameMaxLength),
    input_tokens: firstCount(a, "llm.token_count.prompt"),
    output_tokens: firstCount(a, "llm.token_count.completion"),
    reasoning_tokens: firstCount(a, "llm.token_count.completion_details.reasoning"),
    cached_input_tokens: firstCount(a, "llm.token_count.prompt_details.cache_read"),
    first_token_ms: null,
    finish_reason: null,
    output_text: cut(textOf(output) ?? text(a["output.value"]), textMaxLength),
    total_steps: null,
    input_messages: flattenedMessages(a, "llm.input_messages.") ?? parsed(a["input.value"] ?? null),
    output_messages: output,
    step_tool_calls: []
  }
}
