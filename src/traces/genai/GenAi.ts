/**
 * The OpenTelemetry GenAI convention (`gen_ai`): `gen_ai.operation.name`
 * chat, text_completion, generate_content (or, for older instrumentations, a
 * `gen_ai.system` / model without one) and execute_tool; messages as
 * attributes, on span events, or in the older `gen_ai.prompt` /
 * `gen_ai.completion` forms (also indexed, as OpenLLMetry writes them).
 */
import { Limits } from "../../../schema/Limits.js"
import type { Attributes, SpanInput } from "../SpanModel.js"
import {
  cut,
  declaredInMessages,
  finishReasonOf,
  firstCount,
  firstText,
  memo,
  parsed,
  text,
  textOf
} from "./Attributes.js"
import type { ConventionRun, DerivedToolCall, Recognised } from "./Types.js"

const GEN_AI_CALLS = new Set(["chat", "text_completion", "generate_content"])
const { nameMaxLength, textMaxLength } = Limits.run

/** The span's reading as a GenAI span; null when it carries no `gen_ai.*` attribute. */
export const recogniseGenAi = (span: SpanInput): Recognised | null => {
  const attributes = span.attributes
  const genAiOperation = text(attributes["gen_ai.operation.name"])
  if (genAiOperation !== null) {
    if (GEN_AI_CALLS.has(genAiOperation)) return { convention: "gen_ai", role: "model_call" }
    return { convention: "gen_ai", role: genAiOperation === "execute_tool" ? "tool_call" : null }
  }
  const keys = Object.keys(attributes)
  if (!keys.some((key) => key.startsWith("gen_ai."))) return null
  if (text(attributes["gen_ai.tool.name"]) !== null) return { convention: "gen_ai", role: "tool_call" }
  // Older instrumentations name no operation: a system or a model makes it a model call.
  const call = firstText(attributes, "gen_ai.system", "gen_ai.provider.name", "gen_ai.request.model") !== null
  return { convention: "gen_ai", role: call ? "model_call" : null }
}

/** OpenLLMetry's indexed `gen_ai.prompt.{i}.role` / `.content` attributes as messages. */
const indexedMessages = (attributes: Attributes, prefix: string): Array<Record<string, unknown>> | null => {
  const messages = new Map<number, Record<string, unknown>>()
  for (const [key, value] of Object.entries(attributes)) {
    if (!key.startsWith(prefix)) continue
    const match = /^(\d+)\.(.+)$/.exec(key.slice(prefix.length))
    if (match === null) continue
    const message = messages.get(Number(match[1])) ?? {}
    messages.set(Number(match[1]), message)
    message[match[2] as string] = value
  }
  if (messages.size === 0) return null
  return [...messages.entries()].sort(([a], [b]) => a - b).map(([, message]) => message)
}

const OLD_MESSAGE_EVENTS: Readonly<Record<string, string>> = {
  "gen_ai.system.message": "system",
  "gen_ai.user.message": "user",
  "gen_ai.assistant.message": "assistant",
  "gen_ai.tool.message": "tool"
}

/** A messages attribute on the span, or on one of its events. */
const messagesAttribute = (span: SpanInput, key: string): unknown => {
  if (span.attributes[key] !== undefined) return parsed(span.attributes[key])
  for (const event of span.events) if (event.attributes[key] !== undefined) return parsed(event.attributes[key])
  return null
}

const genAiMessages = memo((span: SpanInput): { readonly input: unknown; readonly output: unknown } => {
  const a = span.attributes
  let input = messagesAttribute(span, "gen_ai.input.messages")
  let output = messagesAttribute(span, "gen_ai.output.messages")
  if (input === null) {
    const events = span.events.filter((event) => event.name in OLD_MESSAGE_EVENTS)
    if (events.length > 0) {
      input = events.map((event) => ({
        role: OLD_MESSAGE_EVENTS[event.name],
        content: parsed(event.attributes.content ?? event.attributes.message ?? event.attributes.body ?? null)
      }))
    }
  }
  if (output === null) {
    const choices = span.events.filter((event) => event.name === "gen_ai.choice")
    if (choices.length > 0) {
      output = choices.map((event) => parsed(event.attributes.message ?? event.attributes.body ?? event.attributes))
    }
  }
  input ??= a["gen_ai.prompt"] === undefined ? indexedMessages(a, "gen_ai.prompt.") : parsed(a["gen_ai.prompt"])
  output ??=
    a["gen_ai.completion"] === undefined ? indexedMessages(a, "gen_ai.completion.") : parsed(a["gen_ai.completion"])
  return { input, output }
})

/** Tool calls the output messages declare, or else OpenLLMetry's indexed `gen_ai.completion.{i}.tool_calls.{j}.*`. */
export const declaredByGenAi = (span: SpanInput): Array<DerivedToolCall> => {
  const output = genAiMessages(span).output
  const indexed = indexedMessages(span.attributes, "gen_ai.completion.")
  const flattened = indexed?.map((message) => {
    const calls = indexedMessages(message as Attributes, "tool_calls.")
    return calls === null ? message : Object.assign({}, message, { tool_calls: calls })
  })
  return declaredInMessages(output).concat(output === null ? declaredInMessages(flattened ?? null) : [])
}

export const genAiRun = (span: SpanInput): ConventionRun => {
  const a = span.attributes
  const messages = genAiMessages(span)
  return {
    model_id: cut(firstText(a, "gen_ai.response.model", "gen_ai.request.model"), nameMaxLength),
    provider: cut(firstText(a, "gen_ai.provider.name", "gen_ai.system"), nameMaxLength),
    input_tokens: firstCount(a, "gen_ai.usage.input_tokens", "gen_ai.usage.prompt_tokens"),
    output_tokens: firstCount(a, "gen_ai.usage.output_tokens", "gen_ai.usage.completion_tokens"),
    reasoning_tokens: firstCount(a, "gen_ai.usage.reasoning_tokens", "gen_ai.usage.reasoning.output_tokens"),
    cached_input_tokens: firstCount(a, "gen_ai.usage.cache_read.input_tokens", "gen_ai.usage.cache_read_input_tokens"),
    first_token_ms: null,
    finish_reason: finishReasonOf(a["gen_ai.response.finish_reasons"]),
    output_text: cut(textOf(messages.output), textMaxLength),
    total_steps: null,
    input_messages: messages.input,
    output_messages: messages.output,
    step_tool_calls: []
  }
}
