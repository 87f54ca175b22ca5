/**
 * The dashboard bench's trace, sent as one OTLP/JSON export (POST /v1/traces
 * with the project's API key): an agent span, its steps, in each a GenAI
 * chat span (model, tokens) and three tool spans (`execute_tool`) of three
 * HTTP calls each, so four deep, cut at `count` spans.
 */
import { randomBytes } from "node:crypto"

const attribute = (key: string, value: string | number) => ({
  key,
  value: typeof value === "number" ? { intValue: String(value) } : { stringValue: value }
})

interface PlannedSpan {
  readonly parent: number | undefined
  readonly name: string
  readonly startMs: number
  readonly durationMs: number
  readonly attributes: ReadonlyArray<ReturnType<typeof attribute>>
}

/** The trace's spans (numbered from 0, parents before children). */
export const planSpans = (count: number): Array<PlannedSpan> => {
  const spans: Array<PlannedSpan> = []
  const add = (span: PlannedSpan) => {
    if (spans.length < count) spans.push(span)
    return spans.length - 1
  }
  add({ parent: undefined, name: "invoke_agent support", startMs: 0, durationMs: 0, attributes: [] })
  for (let step = 0; spans.length < count; step++) {
    const at = 5 + step * 60
    const stepSpan = add({ parent: 0, name: `step ${step + 1}`, startMs: at, durationMs: 55, attributes: [] })
    add({
      parent: stepSpan,
      name: "chat gpt-4o-mini",
      startMs: at + 1,
      durationMs: 20,
      attributes: [
        attribute("gen_ai.operation.name", "chat"),
        attribute("gen_ai.provider.name", "openai"),
        attribute("gen_ai.request.model", "gpt-4o-mini"),
        attribute("gen_ai.usage.input_tokens", 1200 + step * 40),
        attribute("gen_ai.usage.output_tokens", 80 + step)
      ]
    })
    for (let tool = 0; tool < 3; tool++) {
      const toolAt = at + 22 + tool * 10
      const toolSpan = add({
        parent: stepSpan,
        name: `execute_tool lookup_${tool + 1}`,
        startMs: toolAt,
        durationMs: 9,
        attributes: [
          attribute("gen_ai.operation.name", "execute_tool"),
          attribute("gen_ai.tool.name", `lookup_${tool}`)
        ]
      })
      for (let call = 0; call < 3; call++) {
        add({
          parent: toolSpan,
          name: `GET /lookup/${call + 1}`,
          startMs: toolAt + 0.5 + call * 2.5,
          durationMs: 2,
          attributes: [attribute("http.request.method", "GET"), attribute("url.path", `/lookup/${call + 1}`)]
        })
      }
    }
  }
  const last = spans[spans.length - 1]
  const root = spans[0]
  if (root !== undefined) spans[0] = { ...root, durationMs: (last?.startMs ?? 0) + 60 }
  return spans
}

export const sendTrace = async (baseUrl: string, apiKey: string, count: number, traceId: string) => {
  const ids = Array.from({ length: count }, () => randomBytes(8).toString("hex"))
  const base = BigInt(Date.now() - 120_000) * 1_000_000n
  const at = (ms: number) => (base + BigInt(Math.round(ms * 1000)) * 1000n).toString()
  const spans = planSpans(count).map((span, i) => ({
    traceId,
    spanId: ids[i],
    ...(span.parent === undefined ? {} : { parentSpanId: ids[span.parent] }),
    name: span.name,
    kind: span.parent === undefined ? 2 : 1,
    startTimeUnixNano: at(span.startMs),
    endTimeUnixNano: at(span.startMs + span.durationMs),
    attributes: span.attributes,
    status: { code: 0 }
  }))
  const body = {
    resourceSpans: [
      {
        resource: { attributes: [attribute("service.name", "bench-dashboard")] },
        scopeSpans: [{ scope: { name: "bench", version: "1.0.0" }, spans }]
      }
    ]
  }
  const response = await fetch(`${baseUrl}/v1/traces`, {
    method: "POST",
    headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" },
    body: JSON.stringify(body)
  })
  const text = await response.text()
  if (response.status !== 200 || text !== "{}") throw new Error(`POST /v1/traces: ${response.status} ${text}`)
}
