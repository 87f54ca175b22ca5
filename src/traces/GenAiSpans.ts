/**
 * Which instrumentation convention a span follows, and the run a model-call
 * span makes (docs/decisions.md "Traces (OTLP/HTTP)"). Pure functions over src/traces/SpanModel.ts spans.
 *
 * - AI SDK (`ai_sdk`): `ai.generateText`, `ai.streamText`, `ai.generateObject`,
 *   `ai.streamObject` are the calls (runs); their `…doGenerate`/`…doStream`
 *   children are steps (they carry `gen_ai.*` too, so the AI SDK is read
 *   first: one call is one run); `ai.toolCall` spans are tool calls.
 * - OpenInference (`openinference`): `openinference.span.kind` LLM and TOOL,
 *   flattened `llm.*_messages.{i}.message.*` attributes.
 * - OpenTelemetry GenAI (`gen_ai`): `gen_ai.operation.name` chat,
 *   text_completion, generate_content (or, for older instrumentations, a
 *   `gen_ai.system` / model without one) and execute_tool; messages as
 *   attributes, on span events, or in the older `gen_ai.prompt` /
 *   `gen_ai.completion` forms (also indexed, as OpenLLMetry writes them).
 *
 * Nothing here throws on odd values: a number where a string was expected is
 * ignored, a JSON string that does not parse stays a string.
 */
import { Limits } from "../../schema/Limits.js"
import type { SpanConvention, SpanRole } from "../../schema/Trace.js"
import type { Attributes, AttributeValue, SpanInput } from "./SpanModel.js"

export interface Recognised {
  readonly convention: SpanConvention | null
  readonly role: SpanRole | null
}

export interface DerivedToolCall {
  readonly tool_name: string
  readonly tool_call_id: string
  readonly tool_args?: unknown
  readonly tool_result?: unknown
  /** Milliseconds from the run span's start. */
  readonly start_ms?: number
  readonly end_ms?: number
}

export interface DerivedRun {
  readonly model_id: string | null
  readonly provider: string | null
  readonly input_tokens: number | null
  readonly output_tokens: number | null
  readonly reasoning_tokens: number | null
  readonly cached_input_tokens: number | null
  readonly duration_ms: number
  readonly first_token_ms: number | null
  readonly status: "completed" | "error"
  readonly error: string | null
  readonly finish_reason: string | null
  readonly output_text: string | null
  readonly total_steps: number | null
  readonly thread_ref: string | null
  readonly user_ref: string | null
  readonly tool_calls: ReadonlyArray<DerivedToolCall>
  readonly input_messages: unknown
  readonly output_messages: unknown
}

const NONE: Recognised = { convention: null, role: null }
const AI_SDK_CALLS = new Set(["ai.generateText", "ai.streamText", "ai.generateObject", "ai.streamObject"])
const GEN_AI_CALLS = new Set(["chat", "text_completion", "generate_content"])
const { nameMaxLength, textMaxLength, errorMaxLength, finishReasonMaxLength, tokensMax, entriesMax } = Limits.run

const text = (value: AttributeValue | undefined): string | null =>
  typeof value === "string" && value !== "" ? value : null

const firstText = (attributes: Attributes, ...keys: ReadonlyArray<string>): string | null => {
  for (const key of keys) {
    const found = text(attributes[key])
    if (found !== null) return found
  }
  return null
}

const cut = (value: string | null, max: number): string | null => (value === null ? null : value.slice(0, max))

/** A token count: an integer 0..100,000,000 from a number or a decimal string, else null. */
const count = (value: AttributeValue | undefined): number | null => {
  const number =
    typeof value === "number" ? value : typeof value === "string" && /^\d+$/.test(value) ? Number(value) : NaN
  return Number.isInteger(number) && number >= 0 && number <= tokensMax ? number : null
}

const firstCount = (attributes: Attributes, ...keys: ReadonlyArray<string>): number | null => {
  for (const key of keys) {
    const found = count(attributes[key])
    if (found !== null) return found
  }
  return null
}

/** A JSON string parsed when it is an object or array; anything else as it is. */
const parsed = (value: unknown): unknown => {
  if (typeof value !== "string") return value
  const trimmed = value.trimStart()
  if (!trimmed.startsWith("{") && !trimmed.startsWith("[")) return value
  try {
    return JSON.parse(value)
  } catch {
    return value
  }
}

const isObject = (value: unknown): value is Readonly<Record<string, unknown>> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** A tool argument or result within the run limits: a longer one becomes its cut serialization. */
const bounded = (value: unknown): unknown => {
  if (value === undefined || value === null) return undefined
  if (typeof value === "string") return value.slice(0, textMaxLength)
  const serialized = JSON.stringify(value)
  return serialized.length <= textMaxLength ? value : serialized.slice(0, textMaxLength)
}

const millisBetween = (fromNano: string, toNano: string): number => {
  try {
    const ms = (BigInt(toNano) - BigInt(fromNano)) / 1_000_000n
    return ms < 0n ? 0 : Number(ms)
  } catch {
    return 0
  }
}

const aiSdkOperation = (span: SpanInput): string | null => {
  const id = text(span.attributes["ai.operationId"])
  if (id?.startsWith("ai.")) return id
  return span.name.startsWith("ai.") ? (span.name.split(" ")[0] ?? null) : null
}

const recogniseOnce = (span: SpanInput): Recognised => {
  const attributes = span.attributes
  const operation = aiSdkOperation(span)
  if (operation !== null) {
    if (/\.(doGenerate|doStream)$/.test(operation)) return { convention: "ai_sdk", role: "model_step" }
    if (operation === "ai.toolCall") return { convention: "ai_sdk", role: "tool_call" }
    return { convention: "ai_sdk", role: AI_SDK_CALLS.has(operation) ? "model_call" : null }
  }
  const kind = text(attributes["openinference.span.kind"])?.toUpperCase()
  if (kind !== undefined) {
    return { convention: "openinference", role: kind === "LLM" ? "model_call" : kind === "TOOL" ? "tool_call" : null }
  }
  const genAiOperation = text(attributes["gen_ai.operation.name"])
  if (genAiOperation !== null) {
    if (GEN_AI_CALLS.has(genAiOperation)) return { convention: "gen_ai", role: "model_call" }
    return { convention: "gen_ai", role: genAiOperation === "execute_tool" ? "tool_call" : null }
  }
  const keys = Object.keys(attributes)
  if (!keys.some((key) => key.startsWith("gen_ai."))) return NONE
  if (text(attributes["gen_ai.tool.name"]) !== null) return { convention: "gen_ai", role: "tool_call" }
  // Older instrumentations name no operation: a system or a model makes it a model call.
  const call = firstText(attributes, "gen_ai.system", "gen_ai.provider.name", "gen_ai.request.model") !== null
  return { convention: "gen_ai", role: call ? "model_call" : null }
}

/**
 * A span's reading is asked for again for each model call of its trace (a
 * tool span, for each call it might belong to): made once per span object.
 */
const memo = <A>(compute: (span: SpanInput) => A) => {
  const made = new WeakMap<SpanInput, A>()
  return (span: SpanInput): A => {
    let value = made.get(span)
    if (value === undefined) {
      value = compute(span)
      made.set(span, value)
    }
    return value
  }
}

export const recognise = memo(recogniseOnce)

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

/** The text of output messages: `parts` of type text, or a string `content`. */
const textOf = (messages: unknown): string | null => {
  if (typeof messages === "string") return messages
  const list = Array.isArray(messages) ? messages : isObject(messages) ? [messages] : []
  const texts: Array<string> = []
  for (const item of list) {
    const message = isObject(item) && isObject(item.message) ? item.message : item
    if (!isObject(message)) continue
    if (message.role !== undefined && message.role !== "assistant" && message.role !== "model") continue
    if (typeof message.content === "string") texts.push(message.content)
    const parts = Array.isArray(message.parts) ? message.parts : Array.isArray(message.content) ? message.content : []
    for (const part of parts) {
      if (isObject(part) && part.type === "text") {
        const content = part.content ?? part.text
        if (typeof content === "string") texts.push(content)
      }
    }
  }
  return texts.length === 0 ? null : texts.join("\n")
}

/** Tool calls the output messages declare (GenAI `tool_call` parts, OpenAI-style and OpenInference `tool_calls`). */
const declaredInMessages = (messages: unknown): Array<DerivedToolCall> => {
  const calls: Array<DerivedToolCall> = []
  const list = Array.isArray(messages) ? messages : isObject(messages) ? [messages] : []
  for (const item of list) {
    const message = isObject(item) && isObject(item.message) ? item.message : item
    if (!isObject(message)) continue
    const parts = Array.isArray(message.parts)
      ? message.parts.filter((part) => isObject(part) && part.type === "tool_call")
      : []
    const toolCalls = Array.isArray(message.tool_calls) ? message.tool_calls : []
    for (const call of [...parts, ...toolCalls]) {
      if (!isObject(call)) continue
      const fn = isObject(call.function) ? call.function : call
      const name = typeof fn.name === "string" ? fn.name : null
      const id = typeof call.id === "string" ? call.id : null
      if (name === null) continue
      calls.push({
        tool_name: name.slice(0, nameMaxLength),
        tool_call_id: (id ?? `${name}#${calls.length}`).slice(0, nameMaxLength),
        ...(fn.arguments === undefined ? {} : { tool_args: bounded(parsed(fn.arguments)) })
      })
    }
  }
  return calls
}

/** Tool calls the AI SDK records on a call or step span (`ai.response.toolCalls`). */
const declaredByAiSdk = (attributes: Attributes): Array<DerivedToolCall> => {
  const list = parsed(attributes["ai.response.toolCalls"])
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

const declaredToolCalls = memo((span: SpanInput): ReadonlyArray<DerivedToolCall> => {
  const convention = recognise(span).convention
  if (convention === "ai_sdk") return declaredByAiSdk(span.attributes)
  if (convention === "openinference")
    return declaredInMessages(flattenedMessages(span.attributes, "llm.output_messages."))
  const output = genAiMessages(span).output
  const indexed = indexedMessages(span.attributes, "gen_ai.completion.")
  const flattened = indexed?.map((message) => {
    const calls = indexedMessages(message as Attributes, "tool_calls.")
    return calls === null ? message : Object.assign({}, message, { tool_calls: calls })
  })
  return declaredInMessages(output).concat(output === null ? declaredInMessages(flattened ?? null) : [])
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

const finishReasonOf = (value: unknown): string | null => {
  const first = Array.isArray(value) ? value[0] : parsed(value)
  const reason = Array.isArray(first) ? first[0] : first
  return typeof reason === "string" && reason !== "" ? reason.slice(0, finishReasonMaxLength) : null
}

export const deriveRun = (span: SpanInput, related: ReadonlyArray<SpanInput>): DerivedRun | undefined => {
  const { convention, role } = recognise(span)
  if (role !== "model_call") return undefined
  const a = span.attributes
  const failed = span.status_code === 2 || text(a["error.type"]) !== null
  // The fields every convention shares, written out in each literal below: V8 (Node 20) builds an object
  // literal that starts with a spread and goes on with properties a thousand times slower (29 µs here).
  const duration_ms = millisBetween(span.start_time_unix_nano, span.end_time_unix_nano)
  const status = failed ? ("error" as const) : ("completed" as const)
  const error = failed ? errorOf(span) : null
  const user_ref = cut(firstText(a, "ai.telemetry.metadata.userId", "user.id", "enduser.id"), nameMaxLength)
  const threadRef = firstText(
    a,
    "gen_ai.conversation.id",
    "svc.thread_id",
    "ai.telemetry.metadata.svc.thread_id",
    "ai.telemetry.metadata.threadId",
    "ai.telemetry.metadata.thread_id",
    "session.id"
  )
  const declared = declaredToolCalls(span)
  if (convention === "ai_sdk") {
    const steps = related.filter(
      (other) => other.parent_span_id === span.span_id && recognise(other).role === "model_step"
    )
    const fromSteps = steps.flatMap((step) => declaredByAiSdk(step.attributes))
    const firstChunk = a["ai.response.msToFirstChunk"]
    return {
      duration_ms,
      status,
      error,
      user_ref,
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
      thread_ref: cut(threadRef, nameMaxLength),
      tool_calls: toolCallsOf(span, related, [...fromSteps, ...declared]),
      input_messages: parsed(a["ai.prompt.messages"] ?? a["ai.prompt"] ?? null),
      output_messages: null
    }
  }
  if (convention === "openinference") {
    const output = flattenedMessages(a, "llm.output_messages.")
    return {
      duration_ms,
      status,
      error,
      user_ref,
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
      thread_ref: cut(threadRef, nameMaxLength),
      tool_calls: toolCallsOf(span, related, declared),
      input_messages: flattenedMessages(a, "llm.input_messages.") ?? parsed(a["input.value"] ?? null),
      output_messages: output
    }
  }
  const messages = genAiMessages(span)
  return {
    duration_ms,
    status,
    error,
    user_ref,
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
    thread_ref: cut(threadRef, nameMaxLength),
    tool_calls: toolCallsOf(span, related, declared),
    input_messages: messages.input,
    output_messages: messages.output
  }
}
