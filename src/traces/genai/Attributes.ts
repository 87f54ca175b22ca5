/**
 * Readers of span attribute values that more than one convention uses
 * (src/traces/genai/AiSdk.ts, OpenInference.ts, GenAi.ts).
 *
 * Nothing here throws on odd values: a number where a string was expected is
 * ignored, a JSON string that does not parse stays a string.
 */
import { Limits } from "../../../schema/Limits.js"
import type { Attributes, AttributeValue, SpanInput } from "../SpanModel.js"
import type { DerivedToolCall } from "./Types.js"

const { nameMaxLength, textMaxLength, finishReasonMaxLength, tokensMax } = Limits.run

export const text = (value: AttributeValue | undefined): string | null =>
  typeof value === "string" && value !== "" ? value : null

export const firstText = (attributes: Attributes, ...keys: ReadonlyArray<string>): string | null => {
  for (const key of keys) {
    const found = text(attributes[key])
    if (found !== null) return found
  }
  return null
}

export const cut = (value: string | null, max: number): string | null => (value === null ? null : value.slice(0, max))

/** A token count: an integer 0..100,000,000 from a number or a decimal string, else null. */
const count = (value: AttributeValue | undefined): number | null => {
  const number =
    typeof value === "number" ? value : typeof value === "string" && /^\d+$/.test(value) ? Number(value) : NaN
  return Number.isInteger(number) && number >= 0 && number <= tokensMax ? number : null
}

export const firstCount = (attributes: Attributes, ...keys: ReadonlyArray<string>): number | null => {
  for (const key of keys) {
    const found = count(attributes[key])
    if (found !== null) return found
  }
  return null
}

/** A JSON string parsed when it is an object or array; anything else as it is. */
export const parsed = (value: unknown): unknown => {
  if (typeof value !== "string") return value
  const trimmed = value.trimStart()
  if (!trimmed.startsWith("{") && !trimmed.startsWith("[")) return value
  try {
    return JSON.parse(value)
  } catch {
    return value
  }
}

export const isObject = (value: unknown): value is Readonly<Record<string, unknown>> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** A tool argument or result within the run limits: a longer one becomes its cut serialization. */
export const bounded = (value: unknown): unknown => {
  if (value === undefined || value === null) return undefined
  if (typeof value === "string") return value.slice(0, textMaxLength)
  const serialized = JSON.stringify(value)
  return serialized.length <= textMaxLength ? value : serialized.slice(0, textMaxLength)
}

export const millisBetween = (fromNano: string, toNano: string): number => {
  try {
    const ms = (BigInt(toNano) - BigInt(fromNano)) / 1_000_000n
    return ms < 0n ? 0 : Number(ms)
  } catch {
    return 0
  }
}

/**
 * A span's reading is asked for again for each model call of its trace (a
 * tool span, for each call it might belong to): made once per span object.
 */
export const memo = <A>(compute: (span: SpanInput) => A) => {
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

export const finishReasonOf = (value: unknown): string | null => {
  const first = Array.isArray(value) ? value[0] : parsed(value)
  const reason = Array.isArray(first) ? first[0] : first
  return typeof reason === "string" && reason !== "" ? reason.slice(0, finishReasonMaxLength) : null
}

/** The text of output messages: `parts` of type text, or a string `content`. */
export const textOf = (messages: unknown): string | null => {
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
export const declaredInMessages = (messages: unknown): Array<DerivedToolCall> => {
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
