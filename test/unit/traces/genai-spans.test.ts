/**
 * src/traces/GenAiSpans.ts on its own: which convention and role a span is read as
 * (precedence when a span carries several), token counts read defensively,
 * limits on what a run takes, and no throw on odd values.
 */
import { describe, expect, it } from "vitest"
import { deriveRun, recognise, toolBelongsTo, toolCallOf } from "../../../src/traces/GenAiSpans.js"
import type { Attributes, SpanInput } from "../../../src/traces/SpanModel.js"

const T0 = 1_764_000_000_000_000_000n

const span = (name: string, attributes: Attributes, extra: Partial<SpanInput> = {}): SpanInput => ({
  trace_id: "5b8efff798038103d269b633813fc60c",
  span_id: "eee19b7ec3c1b174",
  parent_span_id: null,
  trace_state: "",
  name,
  kind: 3,
  start_time_unix_nano: T0.toString(),
  end_time_unix_nano: (T0 + 1_234_567_890n).toString(),
  attributes,
  events: [],
  links: [],
  status_code: 0,
  status_message: "",
  resource: {},
  scope: { name: "", version: "", attributes: {} },
  ...extra
})

describe("recognise", () => {
  it("reads each convention and role, the AI SDK first, then OpenInference, then GenAI", () => {
    const cases: Array<[SpanInput, string | null, string | null]> = [
      [span("ai.streamText", { "ai.operationId": "ai.streamText" }), "ai_sdk", "model_call"],
      // doStream carries gen_ai.* too: a step of the AI SDK call, never a second run.
      [
        span("ai.streamText.doStream", { "ai.operationId": "ai.streamText.doStream", "gen_ai.system": "openai" }),
        "ai_sdk",
        "model_step"
      ],
      [span("ai.toolCall weather", { "ai.toolCall.name": "weather" }), "ai_sdk", "tool_call"],
      [span("ai.embed", {}), "ai_sdk", null],
      [
        span("llm", { "openinference.span.kind": "LLM", "gen_ai.operation.name": "chat" }),
        "openinference",
        "model_call"
      ],
      [span("tool", { "openinference.span.kind": "TOOL" }), "openinference", "tool_call"],
      [span("chain", { "openinference.span.kind": "CHAIN" }), "openinference", null],
      [span("chat", { "gen_ai.operation.name": "chat" }), "gen_ai", "model_call"],
      [span("gen", { "gen_ai.operation.name": "generate_content" }), "gen_ai", "model_call"],
      [span("tool", { "gen_ai.operation.name": "execute_tool" }), "gen_ai", "tool_call"],
      [span("agent", { "gen_ai.operation.name": "invoke_agent" }), "gen_ai", null],
      [span("embed", { "gen_ai.operation.name": "embeddings" }), "gen_ai", null],
      // Older instrumentations name no operation.
      [span("openai.chat", { "gen_ai.system": "openai", "gen_ai.request.model": "gpt-4" }), "gen_ai", "model_call"],
      [span("GET /", { "http.route": "/" }), null, null],
      [span("odd", { "gen_ai.operation.name": 5, "openinference.span.kind": ["LLM"] }), "gen_ai", null]
    ]
    for (const [input, convention, role] of cases) {
      expect(recognise(input), input.name).toEqual({ convention, role })
    }
  })
})

describe("deriveRun", () => {
  it("is undefined for anything but a model call", () => {
    expect(deriveRun(span("GET /", {}), [])).toBeUndefined()
    expect(deriveRun(span("tool", { "gen_ai.operation.name": "execute_tool" }), [])).toBeUndefined()
  })

  it("reads token counts from numbers or decimal strings, and nothing else", () => {
    const read = (value: Attributes[string]) =>
      deriveRun(span("chat", { "gen_ai.operation.name": "chat", "gen_ai.usage.input_tokens": value }), [])?.input_tokens
    expect(read(12)).toBe(12)
    expect(read("12")).toBe(12)
    expect(read(-1)).toBeNull()
    expect(read(1.5)).toBeNull()
    expect(read("9007199254740993")).toBeNull()
    expect(read(100_000_001)).toBeNull()
    expect(read({ n: 1 })).toBeNull()
  })

  it("takes duration, status and error from the span, and cuts long texts to the run's limits", () => {
    const run = deriveRun(
      span(
        "chat",
        {
          "gen_ai.operation.name": "chat",
          "gen_ai.request.model": "m".repeat(300),
          "gen_ai.response.finish_reasons": ["a-finish-reason-longer-than-thirty-two-characters"],
          "gen_ai.completion": "x".repeat(60_000)
        },
        {
          status_code: 2,
          events: [{ name: "exception", time_unix_nano: "0", attributes: { "exception.message": "boom" } }]
        }
      ),
      []
    )
    expect(run).toMatchObject({ duration_ms: 1234, status: "error", error: "boom" })
    expect(run?.model_id).toHaveLength(255)
    expect(run?.finish_reason).toHaveLength(32)
    // A completion written as a plain string is the output text, cut to 50,000 characters.
    expect(run?.output_text).toHaveLength(50_000)
    const text = deriveRun(
      span("chat", {
        "gen_ai.operation.name": "chat",
        "gen_ai.output.messages": JSON.stringify([
          { role: "assistant", parts: [{ type: "text", content: "y".repeat(60_000) }] }
        ])
      }),
      []
    )
    expect(text?.output_text).toHaveLength(50_000)
  })

  it("matches tool spans by parent or by the call ids the model declared, with timing from the call's start", () => {
    const model = span("chat", {
      "gen_ai.operation.name": "chat",
      "gen_ai.output.messages": [
        { role: "assistant", parts: [{ type: "tool_call", id: "c1", name: "search", arguments: '{"q":"x"}' }] }
      ]
    })
    const sibling = span(
      "execute_tool",
      { "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "search", "gen_ai.tool.call.id": "c1" },
      {
        span_id: "aaaaaaaaaaaaaaaa",
        parent_span_id: "bbbbbbbbbbbbbbbb",
        start_time_unix_nano: (T0 + 2_000_000_000n).toString(),
        end_time_unix_nano: (T0 + 2_500_000_000n).toString()
      }
    )
    const unrelated = span(
      "execute_tool",
      { "gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "other", "gen_ai.tool.call.id": "zz" },
      { span_id: "cccccccccccccccc", parent_span_id: "bbbbbbbbbbbbbbbb" }
    )
    expect(toolBelongsTo(sibling, model)).toBe(true)
    expect(toolBelongsTo(unrelated, model)).toBe(false)
    expect(toolCallOf(sibling, model.start_time_unix_nano)).toMatchObject({ start_ms: 2000, end_ms: 2500 })
    expect(deriveRun(model, [sibling, unrelated])?.tool_calls).toEqual([
      { tool_name: "search", tool_call_id: "c1", tool_args: { q: "x" }, start_ms: 2000, end_ms: 2500 }
    ])
  })

  it("never throws on odd values", () => {
    const odd: Attributes = {
      "gen_ai.operation.name": "chat",
      "gen_ai.output.messages": "[not json",
      "gen_ai.input.messages": { role: 1 },
      "gen_ai.response.finish_reasons": 7,
      "gen_ai.completion.0.tool_calls.0.name": 3,
      "ai.response.toolCalls": "{",
      "gen_ai.conversation.id": 42,
      "user.id": ["a"]
    }
    const run = deriveRun(
      span("chat", odd, { events: [{ name: "gen_ai.choice", time_unix_nano: "0", attributes: {} }] }),
      [span("ai.toolCall", { "ai.toolCall.name": 5 }), span("tool", { "gen_ai.operation.name": "execute_tool" })]
    )
    expect(run).toMatchObject({ thread_ref: null, user_ref: null, finish_reason: null, tool_calls: [] })
  })
})
