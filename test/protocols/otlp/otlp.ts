/**
 * OTLP bodies for the trace tests: spans in OTLP/JSON (hex ids, int64 as
 * strings) and the same in protobuf (through the receiver's own message
 * declarations, checked against the stock exporters in exporters.test.ts).
 */
import { ExportTraceServiceRequest, ExportTraceServiceResponse } from "../../../protocols/otlp/Proto.js"
import { call, type Gateway, type Reply } from "../../support/layers.js"

export const hex = (value: number | bigint, bytes: number) => value.toString(16).padStart(bytes * 2, "0")
export const traceIdOf = (n: number) => hex(BigInt(n) + 0x5b8e0000000000000000000000000000n, 16)
export const spanIdOf = (n: number) => hex(BigInt(n) + 0xee00000000000000n, 8)

/** 2025-11-24T16:00:00Z in nanoseconds: a time every test's spans start after. */
export const T0 = 1_764_000_000_000_000_000n

export type Value =
  | { stringValue: string }
  | { intValue: string }
  | { doubleValue: number }
  | { boolValue: boolean }
  | { arrayValue: { values: Array<Value> } }
  | { kvlistValue: { values: Array<{ key: string; value: Value }> } }

export const value = (raw: unknown): Value => {
  if (typeof raw === "string") return { stringValue: raw }
  if (typeof raw === "bigint") return { intValue: raw.toString() }
  if (typeof raw === "number") return Number.isInteger(raw) ? { intValue: String(raw) } : { doubleValue: raw }
  if (typeof raw === "boolean") return { boolValue: raw }
  if (Array.isArray(raw)) return { arrayValue: { values: raw.map(value) } }
  return {
    kvlistValue: {
      values: Object.entries(raw as Record<string, unknown>).map(([key, inner]) => ({ key, value: value(inner) }))
    }
  }
}

export const attributes = (record: Record<string, unknown>) =>
  Object.entries(record).map(([key, raw]) => ({ key, value: value(raw) }))

export interface SpanSpec {
  readonly trace: number
  readonly span: number
  readonly parent?: number
  readonly name?: string
  /** Milliseconds after T0. */
  readonly startMs?: number
  readonly durationMs?: number
  readonly attributes?: Record<string, unknown>
  readonly status?: 0 | 1 | 2
  readonly statusMessage?: string
  readonly events?: ReadonlyArray<{ name: string; atMs: number; attributes: Record<string, unknown> }>
}

/** A span in OTLP/JSON. */
export const jsonSpan = (spec: SpanSpec) => {
  const start = T0 + BigInt(spec.startMs ?? spec.span) * 1_000_000n
  return {
    traceId: traceIdOf(spec.trace),
    spanId: spanIdOf(spec.span),
    ...(spec.parent === undefined ? {} : { parentSpanId: spanIdOf(spec.parent) }),
    name: spec.name ?? `span ${spec.span}`,
    kind: 3,
    startTimeUnixNano: start.toString(),
    endTimeUnixNano: (start + BigInt(spec.durationMs ?? 5) * 1_000_000n).toString(),
    attributes: attributes(spec.attributes ?? {}),
    events: (spec.events ?? []).map((event) => ({
      name: event.name,
      timeUnixNano: (T0 + BigInt(event.atMs) * 1_000_000n).toString(),
      attributes: attributes(event.attributes)
    })),
    status: { code: spec.status ?? 0, ...(spec.statusMessage === undefined ? {} : { message: spec.statusMessage }) }
  }
}

/**
 * Trace `trace`'s model call (OpenTelemetry GenAI, span 2 under span 1),
 * which becomes one run: 10 tokens in, 5 out. Named "chat <model>" unless
 * `name` says otherwise; `attributes` go after the call's own.
 */
export const chatSpan = (
  trace: number,
  options: { readonly model?: string; readonly name?: string; readonly attributes?: Record<string, unknown> } = {}
) => {
  const model = options.model ?? "gpt-4o-mini"
  return jsonSpan({
    trace,
    span: 2,
    parent: 1,
    name: options.name ?? `chat ${model}`,
    attributes: {
      "gen_ai.operation.name": "chat",
      "gen_ai.provider.name": "openai",
      "gen_ai.request.model": model,
      "gen_ai.usage.input_tokens": 10,
      "gen_ai.usage.output_tokens": 5,
      ...options.attributes
    }
  })
}

/** The model whose runs the store refuses inside `whileRunsRefused`. */
export const FAULTY_MODEL = "faulty-model"

/**
 * Runs `body` while the runs table refuses FAULTY_MODEL's runs (a trigger
 * raising 'injected fault' before the insert): a fault in the run step of
 * an export. The trigger is gone after, whether `body` passed or not.
 */
export const whileRunsRefused = async <A>(gateway: Gateway, body: () => Promise<A>): Promise<A> => {
  await gateway.sql(`CREATE FUNCTION refuse_run() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF NEW.model_id = '${FAULTY_MODEL}' THEN RAISE EXCEPTION 'injected fault'; END IF;
      RETURN NEW;
    END $$`)
  await gateway.sql("CREATE TRIGGER refuse_run BEFORE INSERT ON runs FOR EACH ROW EXECUTE FUNCTION refuse_run()")
  try {
    return await body()
  } finally {
    await gateway.sql("DROP TRIGGER refuse_run ON runs")
    await gateway.sql("DROP FUNCTION refuse_run()")
  }
}

export const exportOf = (spans: ReadonlyArray<unknown>, service = "chat-app") => ({
  resourceSpans: [
    {
      resource: { attributes: attributes({ "service.name": service }) },
      scopeSpans: [{ scope: { name: "tests", version: "1.0.0" }, spans }]
    }
  ]
})

/** The OTLP/JSON export as protobuf: ids to bytes, times and ints as the decimal strings protobufjs takes. */
export const protobufOf = (body: ReturnType<typeof exportOf>): Uint8Array => {
  const bytesOf = (hexText: string) => Buffer.from(hexText, "hex")
  const message = ExportTraceServiceRequest.fromObject({
    resourceSpans: body.resourceSpans.map((resourceSpans) => ({
      ...resourceSpans,
      scopeSpans: resourceSpans.scopeSpans.map((scopeSpans) => ({
        ...scopeSpans,
        spans: scopeSpans.spans.map((raw) => {
          const span = raw as ReturnType<typeof jsonSpan>
          return {
            ...span,
            traceId: bytesOf(span.traceId),
            spanId: bytesOf(span.spanId),
            ...(span.parentSpanId === undefined ? {} : { parentSpanId: bytesOf(span.parentSpanId) })
          }
        })
      }))
    }))
  })
  return ExportTraceServiceRequest.encode(message).finish()
}

export interface PartialSuccess {
  readonly rejectedSpans: string
  readonly errorMessage: string
}

/** A protobuf ExportTraceServiceResponse's partial success, as OTLP/JSON would write it. */
export const decodeProtobufAnswer = (bytes: Uint8Array): { partialSuccess?: PartialSuccess } =>
  ExportTraceServiceResponse.toObject(ExportTraceServiceResponse.decode(bytes), { longs: String }) as {
    partialSuccess?: PartialSuccess
  }

export const postJson = (baseUrl: string, apiKey: string, body: unknown): Promise<Reply> =>
  call(baseUrl, "POST", "/v1/traces", {
    raw: JSON.stringify(body),
    headers: { authorization: `Bearer ${apiKey}`, "content-type": "application/json" }
  })

export const postRaw = async (
  baseUrl: string,
  headers: Record<string, string>,
  body: Uint8Array | string
): Promise<{ status: number; headers: Headers; bytes: Uint8Array }> => {
  const response = await fetch(`${baseUrl}/v1/traces`, {
    method: "POST",
    headers,
    body: typeof body === "string" ? body : new Uint8Array(body)
  })
  return { status: response.status, headers: response.headers, bytes: new Uint8Array(await response.arrayBuffer()) }
}
