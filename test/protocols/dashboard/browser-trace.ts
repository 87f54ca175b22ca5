/**
 * The 500-span trace of the dashboard's browser suites: an agent's run as
 * OpenTelemetry spans (steps, GenAI chat spans, tools and their HTTP calls,
 * one failed tool), sent as one OTLP/JSON export.
 */
import { attributes, hex } from "../otlp/otlp.js"

export const TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736"
export const spanId = (n: number) => hex(0x00f0_67aa_0ba9_0000n + BigInt(n), 8)
/** Spans in the trace (the most one trace keeps). */
export const SPANS = 500
/** The tool span that failed: step 18's second tool. */
export const ERROR_TOOL = { step: 18, tool: 2 }

interface SpanPlan {
  readonly n: number
  readonly parent: number | undefined
  readonly name: string
  readonly kind: number
  readonly startMs: number
  readonly durationMs: number
  readonly attributes: Record<string, unknown>
  readonly failed: boolean
}

/**
 * An agent's trace of SPANS spans, nested four deep: the run, its steps, in
 * each step a GenAI chat span (model, tokens: 100 + step in, 10 + step out)
 * and three tool spans of three HTTP calls each.
 */
export const planTrace = () => {
  const spans: Array<SpanPlan> = []
  const chats = new Map<number, number>()
  let errorSpan = 0
  const add = (plan: Omit<SpanPlan, "n">): number => {
    const n = spans.length + 1
    if (n <= SPANS) spans.push({ ...plan, n })
    return n
  }
  add({ parent: undefined, name: "agent run", kind: 1, startMs: 0, durationMs: 0, attributes: {}, failed: false })
  for (let step = 1; spans.length < SPANS; step++) {
    const at = 5 + (step - 1) * 55
    const stepSpan = add({
      parent: 1,
      name: `step ${step}`,
      kind: 1,
      startMs: at,
      durationMs: 50,
      attributes: { "app.step": step },
      failed: false
    })
    chats.set(
      step,
      add({
        parent: stepSpan,
        name: "chat gpt-4o-mini",
        kind: 3,
        startMs: at + 1,
        durationMs: 20,
        attributes: {
          "gen_ai.operation.name": "chat",
          "gen_ai.provider.name": "openai",
          "gen_ai.request.model": "gpt-4o-mini",
          "gen_ai.usage.input_tokens": 100 + step,
          "gen_ai.usage.output_tokens": 10 + step
        },
        failed: false
      })
    )
    for (let tool = 1; tool <= 3; tool++) {
      const toolAt = at + 22 + (tool - 1) * 9
      const failed = step === ERROR_TOOL.step && tool === ERROR_TOOL.tool
      const toolSpan = add({
        parent: stepSpan,
        name: `tool lookup_${tool}`,
        kind: 1,
        startMs: toolAt,
        durationMs: 8,
        attributes: { "app.tool": `lookup_${tool}` },
        failed
      })
      if (failed) errorSpan = toolSpan
      for (let request = 1; request <= 3; request++) {
        add({
          parent: toolSpan,
          name: `GET /lookup/${request}`,
          kind: 3,
          startMs: toolAt + 0.5 + (request - 1) * 2.5,
          durationMs: 2,
          attributes: { "http.request.method": "GET", "url.path": `/lookup/${request}` },
          failed: false
        })
      }
    }
  }
  const last = spans[spans.length - 1]
  const root = { ...spans[0], durationMs: (last?.startMs ?? 0) + 60 } as SpanPlan
  spans[0] = root
  const chatSpans = [...chats.values()].filter((n) => n <= SPANS)
  return { spans, chats, chatSpans, errorSpan }
}

/** The planned trace as one OTLP/JSON export, its run starting a minute ago. */
export const traceExport = (spans: ReadonlyArray<SpanPlan>) => {
  const base = BigInt(Date.now() - 60_000) * 1_000_000n
  const at = (ms: number) => (base + BigInt(Math.round(ms * 1_000)) * 1_000n).toString()
  return {
    resourceSpans: [
      {
        resource: { attributes: attributes({ "service.name": "browser-app" }) },
        scopeSpans: [
          {
            scope: { name: "browser-tests", version: "1.0.0" },
            spans: spans.map((span) => ({
              traceId: TRACE_ID,
              spanId: spanId(span.n),
              ...(span.parent === undefined ? {} : { parentSpanId: spanId(span.parent) }),
              name: span.name,
              kind: span.kind,
              startTimeUnixNano: at(span.startMs),
              endTimeUnixNano: at(span.startMs + span.durationMs),
              attributes: attributes(span.attributes),
              status: span.failed ? { code: 2, message: "the lookup timed out" } : { code: 0 }
            }))
          }
        ]
      }
    ]
  }
}
