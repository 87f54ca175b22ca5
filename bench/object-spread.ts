/**
 * `npx tsx bench/object-spread.ts`: why src/traces/GenAiSpans.ts writes its run
 * objects out instead of `{ ...common, more }`. On Node 20.20's V8 an object
 * literal that opens with a spread and goes on with properties is built
 * about a thousand times slower than the same literal written out. Prints
 * ns per literal for the forms, and µs per `deriveRun` of a GenAI chat span
 * (the gateway's run mapping, the spans decoded by the gateway's decoder).
 */
import { decodeExport } from "../protocols/otlp/Decode.js"
import { deriveRun } from "../src/traces/GenAiSpans.js"

let sink = 0
const time = (label: string, n: number, make: (i: number) => unknown) => {
  for (let i = 0; i < n / 10; i++) sink += make(i) === undefined ? 0 : 1
  const started = process.hrtime.bigint()
  for (let i = 0; i < n; i++) sink += make(i) === undefined ? 0 : 1
  const ns = Number(process.hrtime.bigint() - started) / n
  process.stdout.write(`${label.padEnd(44)} ${ns < 1000 ? `${ns.toFixed(0)} ns` : `${(ns / 1000).toFixed(2)} µs`}\n`)
}

const common = (i: number) => ({ duration_ms: i, status: "completed", error: null, user_ref: null })
time("spread, then 14 properties", 200_000, (i) => ({
  ...common(i),
  model_id: "m",
  provider: "p",
  input_tokens: 1,
  output_tokens: 2,
  reasoning_tokens: null,
  cached_input_tokens: null,
  first_token_ms: null,
  finish_reason: null,
  output_text: "t",
  total_steps: null,
  thread_ref: null,
  tool_calls: [],
  input_messages: null,
  output_messages: null
}))
time("the same 18 properties written out", 2_000_000, (i) => {
  const c = common(i)
  return {
    duration_ms: c.duration_ms,
    status: c.status,
    error: c.error,
    user_ref: c.user_ref,
    model_id: "m",
    provider: "p",
    input_tokens: 1,
    output_tokens: 2,
    reasoning_tokens: null,
    cached_input_tokens: null,
    first_token_ms: null,
    finish_reason: null,
    output_text: "t",
    total_steps: null,
    thread_ref: null,
    tool_calls: [],
    input_messages: null,
    output_messages: null
  }
})
time("Object.assign({}, common, rest)", 2_000_000, (i) =>
  Object.assign({}, common(i), { model_id: "m", provider: "p", input_tokens: 1, output_tokens: 2 })
)

const kv = (key: string, value: string | number) => ({
  key,
  value: typeof value === "number" ? { intValue: String(value) } : { stringValue: value }
})
const OUTPUT = JSON.stringify([{ role: "assistant", parts: [{ type: "text", content: "Sunny, 21°C. ".repeat(16) }] }])
const spans = decodeExport(
  {
    resourceSpans: [
      {
        resource: { attributes: [kv("service.name", "bench")] },
        scopeSpans: [
          {
            spans: Array.from({ length: 10 }, (_, i) => ({
              traceId: "5b8e0000000000000000000000000001",
              spanId: (0xa0 + i).toString(16).padStart(16, "0"),
              ...(i === 0 ? {} : { parentSpanId: "00000000000000a0" }),
              name: i === 0 ? "invoke_agent" : "chat gpt-4o-mini",
              kind: 3,
              startTimeUnixNano: String(1_764_000_000_000_000_000n + BigInt(i) * 100_000_000n),
              endTimeUnixNano: String(1_764_000_000_090_000_000n + BigInt(i) * 100_000_000n),
              attributes:
                i === 0
                  ? [kv("gen_ai.operation.name", "invoke_agent")]
                  : [
                      kv("gen_ai.operation.name", "chat"),
                      kv("gen_ai.provider.name", "openai"),
                      kv("gen_ai.request.model", "gpt-4o-mini"),
                      kv("gen_ai.usage.input_tokens", 812),
                      kv("gen_ai.usage.output_tokens", 164),
                      kv("gen_ai.output.messages", OUTPUT)
                    ]
            }))
          }
        ]
      }
    ]
  },
  "json"
).spans
const chat = spans[3]
if (chat === undefined) throw new Error("no chat span")
const related = spans.filter((span) => span !== chat)
time("deriveRun of a GenAI chat span", 200_000, () => deriveRun(chat, related))
if (sink < 0) process.stdout.write("\n")
