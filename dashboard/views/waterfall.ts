/**
 * A trace's spans as waterfall rows: depth-first by parent, siblings by start,
 * each placed on the trace's time axis in percent. GenAI spans carry their
 * model and token counts as their convention names them (src/traces/genai/).
 */
import type { Span } from "../../schema/Trace.js"

export interface Row {
  readonly span: Span
  readonly depth: number
  /** Where the bar starts and how long it is, in percent of the trace. */
  readonly left: number
  readonly width: number
  /** Milliseconds from the trace's start. */
  readonly offsetMs: number
  readonly genAi: GenAi | undefined
}

export interface GenAi {
  readonly model: string | undefined
  readonly inputTokens: number | undefined
  readonly outputTokens: number | undefined
}

const nanos = (text: string): bigint => {
  try {
    return BigInt(text)
  } catch {
    return 0n
  }
}

const firstText = (attributes: Span["attributes"], keys: ReadonlyArray<string>): string | undefined => {
  for (const key of keys) {
    const value = attributes[key]
    if (typeof value === "string" && value !== "") return value
  }
  return undefined
}

const firstCount = (attributes: Span["attributes"], keys: ReadonlyArray<string>): number | undefined => {
  for (const key of keys) {
    const value = attributes[key]
    const n = typeof value === "number" ? value : typeof value === "string" && /^\d+$/.test(value) ? Number(value) : NaN
    if (Number.isFinite(n)) return n
  }
  return undefined
}

const MODEL = ["gen_ai.request.model", "gen_ai.response.model", "ai.model.id", "ai.response.model", "llm.model_name"]
const INPUT = [
  "gen_ai.usage.input_tokens",
  "gen_ai.usage.prompt_tokens",
  "ai.usage.inputTokens",
  "ai.usage.promptTokens",
  "llm.token_count.prompt"
]
const OUTPUT = [
  "gen_ai.usage.output_tokens",
  "gen_ai.usage.completion_tokens",
  "ai.usage.outputTokens",
  "ai.usage.completionTokens",
  "llm.token_count.completion"
]

/** A span recognised as GenAI (a convention, or a model attribute): its model and tokens. */
export const genAiOf = (span: Span): GenAi | undefined => {
  const model = firstText(span.attributes, MODEL)
  if (span.convention === null && model === undefined) return undefined
  return {
    model,
    inputTokens: firstCount(span.attributes, INPUT),
    outputTokens: firstCount(span.attributes, OUTPUT)
  }
}

export interface Waterfall {
  readonly rows: ReadonlyArray<Row>
  readonly totalMs: number
}

export const waterfall = (spans: ReadonlyArray<Span>): Waterfall => {
  if (spans.length === 0) return { rows: [], totalMs: 0 }
  let start = nanos(spans[0]?.start_time_unix_nano ?? "0")
  let end = nanos(spans[0]?.end_time_unix_nano ?? "0")
  for (const span of spans) {
    const s = nanos(span.start_time_unix_nano)
    const e = nanos(span.end_time_unix_nano)
    if (s < start) start = s
    if (e > end) end = e
  }
  const totalNs = end > start ? end - start : 1n
  const totalMs = Number(totalNs) / 1e6
  const ids = new Set(spans.map((span) => span.span_id))
  const children = new Map<string, Array<Span>>()
  for (const span of spans) {
    const parent = span.parent_span_id !== null && ids.has(span.parent_span_id) ? span.parent_span_id : ""
    const list = children.get(parent)
    if (list) list.push(span)
    else children.set(parent, [span])
  }
  // Each start read once (a sort compares each span many times).
  const starts = new Map(spans.map((span) => [span, nanos(span.start_time_unix_nano)]))
  const startOf = (span: Span): bigint => starts.get(span) ?? 0n
  for (const list of children.values()) {
    list.sort((a, b) => {
      const d = startOf(a) - startOf(b)
      return d < 0n ? -1 : d > 0n ? 1 : 0
    })
  }
  const rows: Array<Row> = []
  const seen = new Set<string>()
  // Depth-first without recursion: a trace may nest deeply.
  const stack: Array<{ span: Span; depth: number }> = (children.get("") ?? [])
    .map((span) => ({ span, depth: 0 }))
    .reverse()
  while (stack.length > 0) {
    const next = stack.pop()
    if (!next || seen.has(next.span.span_id)) continue
    const { span, depth } = next
    seen.add(span.span_id)
    const offsetNs = nanos(span.start_time_unix_nano) - start
    const durationNs = nanos(span.end_time_unix_nano) - nanos(span.start_time_unix_nano)
    const left = (Number(offsetNs) / Number(totalNs)) * 100
    const width = Math.max((Number(durationNs > 0n ? durationNs : 0n) / Number(totalNs)) * 100, 0)
    rows.push({
      span,
      depth,
      left,
      width: Math.min(width, 100 - left),
      offsetMs: Number(offsetNs) / 1e6,
      genAi: genAiOf(span)
    })
    const kids = children.get(span.span_id) ?? []
    for (let i = kids.length - 1; i >= 0; i--) {
      const kid = kids[i]
      if (kid) stack.push({ span: kid, depth: depth + 1 })
    }
    // Spans no root reaches (a parent loop) are shown at the top level after the rest.
    if (stack.length === 0 && rows.length < spans.length) {
      const stray = spans.find((candidate) => !seen.has(candidate.span_id))
      if (stray) stack.push({ span: stray, depth: 0 })
    }
  }
  return { rows, totalMs }
}

/** Round times for the axis: a step of 1, 2 or 5 times a power of ten, about four steps across the trace. */
export const axisTicks = (totalMs: number): ReadonlyArray<number> => {
  if (!(totalMs > 0)) return [0]
  const rough = totalMs / 4
  const power = 10 ** Math.floor(Math.log10(rough))
  const step = [1, 2, 5, 10].map((m) => m * power).find((candidate) => candidate >= rough) ?? 10 * power
  const ticks: Array<number> = []
  for (let i = 0; i * step <= totalMs * (1 + 1e-9); i++) ticks.push(i * step)
  return ticks
}
