/**
 * docs/client-library.md "Building blocks" (`aiSDKV6FormatAdapter`,
 * `extractAISDKRunTelemetry`; `./ai-sdk` uses `ai` for types only) and
 * docs/decisions.md "Client building blocks (svc-client, issue 14)". The messages are typed
 * with the real `ai` package's `UIMessage`; the end-to-end run through the
 * real AI SDK and a gateway is test/sdk/blocks-ai-sdk.test.ts.
 */
import { fileURLToPath } from "node:url"
import type { UIMessage } from "ai"
import * as esbuild from "esbuild"
import { createRunReport } from "svc-client"
import { type AISDKMessageLike, aiSDKV6FormatAdapter, extractAISDKRunTelemetry } from "svc-client/ai-sdk"
import { describe, expect, it } from "vitest"

type Part = UIMessage["parts"][number]

const assistant = (parts: Array<Part>, metadata?: Record<string, unknown>, id = "a1"): UIMessage =>
  metadata === undefined ? { id, role: "assistant", parts } : { id, role: "assistant", parts, metadata }

const toolPart = (name: string, toolCallId: string, input: unknown, output: unknown): Part => ({
  type: `tool-${name}`,
  toolCallId,
  state: "output-available",
  input,
  output
})

const dynamicPart = (toolName: string, toolCallId: string, input: unknown, output: unknown): Part => ({
  type: "dynamic-tool",
  toolName,
  toolCallId,
  state: "output-available",
  input,
  output
})

const stepStart: Part = { type: "step-start" }
const text = (value: string): Part => ({ type: "text", text: value })

describe("aiSDKV6FormatAdapter", () => {
  const message = assistant([text("Hi")], { modelId: "m" }, "local-7")

  it("format `ai-sdk/v6`", () => {
    expect(aiSDKV6FormatAdapter.format).toBe("ai-sdk/v6")
    expect(aiSDKV6FormatAdapter.getId(message)).toBe("local-7")
  })

  it("encode drops the message `id`", () => {
    const stored = aiSDKV6FormatAdapter.encode({ parentId: "u1", message })
    expect(stored).toEqual({ role: "assistant", parts: [{ type: "text", text: "Hi" }], metadata: { modelId: "m" } })
    expect(Object.keys(stored)).not.toContain("id")
    // The message itself is left as it was.
    expect(message.id).toBe("local-7")
  })

  it("decode gives `{ parentId: parent_id, message: { id, ...content } }`", () => {
    const content = aiSDKV6FormatAdapter.encode({ parentId: null, message })
    expect(aiSDKV6FormatAdapter.decode({ id: "msg_srv", parent_id: "msg_u", format: "ai-sdk/v6", content })).toEqual({
      parentId: "msg_u",
      message: { id: "msg_srv", role: "assistant", parts: [{ type: "text", text: "Hi" }], metadata: { modelId: "m" } }
    })
    const root = aiSDKV6FormatAdapter.decode({ id: "msg_r", parent_id: null, format: "ai-sdk/v6", content })
    expect(root.parentId).toBeNull()
    expect(root.message.id).toBe("msg_r")
  })
})

describe("extractAISDKRunTelemetry", () => {
  it("assistant messages only (null when none)", () => {
    const user: UIMessage = { id: "u1", role: "user", parts: [text("What is the weather?")] }
    const system: UIMessage = { id: "s1", role: "system", parts: [text("Be brief.")] }
    expect(extractAISDKRunTelemetry([])).toBeNull()
    expect(extractAISDKRunTelemetry([system, user])).toBeNull()
    const telemetry = extractAISDKRunTelemetry([system, user, assistant([text("Sunny.")]), user])
    expect(telemetry).toEqual({ assistantMessageId: "a1", status: "completed", outputText: "Sunny." })
    // Stored rows carry no id: the telemetry then names no message.
    const stored: AISDKMessageLike = { role: "assistant", parts: [{ type: "text", text: "Stored." }] }
    expect(extractAISDKRunTelemetry([stored])).toEqual({ status: "completed", outputText: "Stored." })
  })

  it("a `step-start` part opens a step with usage from `metadata.steps[i].usage`", () => {
    const telemetry = extractAISDKRunTelemetry([
      assistant([stepStart, text("Let me think. "), stepStart, text("Done."), stepStart], {
        steps: [
          { usage: { inputTokens: 4, outputTokens: 1 } },
          { usage: { promptTokens: 6, completionTokens: 2 } }
          // the third step has no entry: no usage
        ]
      })
    ])
    expect(telemetry?.steps).toEqual([
      { usage: { inputTokens: 4, outputTokens: 1 } },
      { usage: { promptTokens: 6, completionTokens: 2 } },
      {}
    ])
    expect(telemetry?.totalSteps).toBe(3)
    expect(telemetry?.outputText).toBe("Let me think. Done.")
    // Each message counts its own steps from 0; no step-start part, no steps.
    const rows = extractAISDKRunTelemetry([
      assistant([stepStart], { steps: [{ usage: { inputTokens: 1 } }] }, "r1"),
      assistant([stepStart], { steps: [{ usage: { inputTokens: 2 } }] }, "r2"),
      assistant([text("no marker")], { steps: [{ usage: { inputTokens: 3 } }] }, "r3")
    ])
    expect(rows?.steps).toEqual([{ usage: { inputTokens: 1 } }, { usage: { inputTokens: 2 } }])
    expect(rows?.totalSteps).toBe(2)
    expect(extractAISDKRunTelemetry([assistant([text("x")])])?.steps).toBeUndefined()
  })

  it("`tool-<name>` parts are `frontend` tools and `dynamic-tool` parts `mcp`", () => {
    const telemetry = extractAISDKRunTelemetry([
      assistant([
        toolPart("weather", "call_1", { city: "Oslo" }, { temp: 3 }),
        dynamicPart("search", "call_2", { q: "fjords" }, [{ type: "text", text: "found" }]),
        // an MCP image result is summarized; a pending call has no result
        dynamicPart("screenshot", "call_3", {}, [{ type: "image", data: "A".repeat(400), mimeType: "image/png" }]),
        { type: "tool-lookup", toolCallId: "call_4", state: "input-available", input: { id: 1 } },
        // not tool calls: another part type, a tool part without a call id
        { type: "reasoning", text: "hmm" },
        { type: "data-progress", data: { pct: 50 } }
      ])
    ])
    expect(telemetry?.toolCalls).toEqual([
      {
        tool_name: "weather",
        tool_call_id: "call_1",
        tool_args: '{"city":"Oslo"}',
        tool_result: '{"temp":3}',
        tool_source: "frontend"
      },
      {
        tool_name: "search",
        tool_call_id: "call_2",
        tool_args: '{"q":"fjords"}',
        tool_result: '[{"type":"text","text":"found"}]',
        tool_source: "mcp"
      },
      {
        tool_name: "screenshot",
        tool_call_id: "call_3",
        tool_args: "{}",
        tool_result: '[{"type":"image","data":"[image: 0.3KB]","mimeType":"image/png"}]',
        tool_source: "mcp"
      },
      { tool_name: "lookup", tool_call_id: "call_4", tool_args: '{"id":1}', tool_source: "frontend" }
    ])
    // Stored rows of older clients: `args` / `result`; parts that are not objects or have no type are skipped.
    const legacy: AISDKMessageLike = {
      role: "assistant",
      parts: [
        { type: "tool-lookup", toolCallId: "c9", args: { id: 2 }, result: "ok" },
        { type: "dynamic-tool", toolCallId: "c10" },
        { type: "tool-", toolCallId: "c11" }
      ]
    }
    // Content read back from JSON is not checked against the types: nulls and numbers among the parts.
    const parts: AISDKMessageLike["parts"] = JSON.parse(
      '[null, 7, "text", {"toolCallId": "x"}, {"type": "text", "text": "still read"}]'
    )
    const rows = extractAISDKRunTelemetry([legacy, { role: "assistant", parts }])
    expect(rows?.toolCalls).toEqual([
      { tool_name: "lookup", tool_call_id: "c9", tool_args: '{"id":2}', tool_result: '"ok"', tool_source: "frontend" }
    ])
    expect(rows?.outputText).toBe("still read")
  })

  it("a step with tool calls finishes `tool-calls`", () => {
    const telemetry = extractAISDKRunTelemetry([
      assistant([
        stepStart,
        toolPart("weather", "call_1", { city: "Oslo" }, { temp: 3 }),
        toolPart("weather", "call_2", { city: "Bergen" }, { temp: 5 }),
        stepStart,
        text("Cold in both.")
      ])
    ])
    expect(telemetry?.steps).toEqual([
      {
        toolCalls: [
          expect.objectContaining({ tool_call_id: "call_1" }),
          expect.objectContaining({ tool_call_id: "call_2" })
        ],
        finishReason: "tool-calls"
      },
      {}
    ])
    // A tool call before any step-start belongs to no step.
    const unstepped = extractAISDKRunTelemetry([assistant([toolPart("weather", "c", {}, {}), stepStart])])
    expect(unstepped?.steps).toEqual([{}])
    expect(unstepped?.toolCalls).toHaveLength(1)
  })

  it("sampling calls from `metadata.samplingCalls[toolCallId]`", () => {
    const telemetry = extractAISDKRunTelemetry([
      assistant([dynamicPart("search", "call_1", {}, "x"), dynamicPart("search", "call_2", {}, "y")], {
        samplingCalls: {
          call_1: [
            { model_id: "gpt-sub", input_tokens: 12, output_tokens: 3, duration_ms: 40 },
            { duration_ms: 5, extra: "left out" }
          ],
          call_2: []
        }
      }),
      // a later row's sampling calls apply to its own tool calls only
      assistant([toolPart("lookup", "call_3", {}, "z")], { samplingCalls: { call_1: [{ duration_ms: 99 }] } }, "a2")
    ])
    expect(telemetry?.toolCalls).toEqual([
      expect.objectContaining({
        tool_call_id: "call_1",
        sampling_calls: [
          { model_id: "gpt-sub", input_tokens: 12, output_tokens: 3, duration_ms: 40 },
          { duration_ms: 5 }
        ]
      }),
      expect.not.objectContaining({ sampling_calls: expect.anything() }),
      expect.not.objectContaining({ sampling_calls: expect.anything() })
    ])
  })

  it("usage from `metadata.usage` else summed steps", () => {
    const fromTotal = extractAISDKRunTelemetry([
      assistant([stepStart, stepStart], {
        usage: { inputTokens: 10, outputTokens: 5 },
        steps: [{ usage: { inputTokens: 1, outputTokens: 1 } }, { usage: { inputTokens: 1, outputTokens: 1 } }]
      })
    ])
    expect(fromTotal?.usage).toEqual({ inputTokens: 10, outputTokens: 5 })
    // AI SDK v6 and v7 names, and the legacy pair, summed over the steps.
    const summed = extractAISDKRunTelemetry([
      assistant([stepStart, stepStart, stepStart], {
        usage: {},
        steps: [
          { usage: { inputTokens: 4, outputTokens: 1, totalTokens: 5, reasoningTokens: 2 } },
          { usage: { promptTokens: 6, completionTokens: 4 } },
          {
            usage: {
              inputTokens: 3,
              outputTokens: 2,
              inputTokenDetails: { cacheReadTokens: 2, noCacheTokens: 1 },
              outputTokenDetails: { reasoningTokens: 1, textTokens: 1 }
            }
          }
        ]
      })
    ])
    expect(summed?.usage).toEqual({ inputTokens: 13, outputTokens: 7, reasoningTokens: 3, cachedInputTokens: 2 })
    // Several stored rows: each row's usage, added up.
    const rows = extractAISDKRunTelemetry([
      assistant([stepStart], { steps: [{ usage: { inputTokens: 2, outputTokens: 1 } }] }, "r1"),
      assistant([text("done")], { usage: { inputTokens: 3, reasoningTokens: 7 } }, "r2")
    ])
    expect(rows?.usage).toEqual({ inputTokens: 5, outputTokens: 1, reasoningTokens: 7 })
    expect(extractAISDKRunTelemetry([assistant([text("x")], { usage: { totalTokens: 3 } })])?.usage).toBeUndefined()
  })

  it("model from `metadata.modelId`, `metadata.custom.modelId`, then the steps' response model", () => {
    const steps = [
      { response: { id: "r" } },
      { response: { modelId: "step-model" } },
      { response: { modelId: "later" } }
    ]
    const modelOf = (metadata: Record<string, unknown>) =>
      extractAISDKRunTelemetry([assistant([text("x")], metadata)])?.modelId
    expect(modelOf({ modelId: "top", custom: { modelId: "custom" }, steps })).toBe("top")
    expect(modelOf({ custom: { modelId: "custom" }, steps })).toBe("custom")
    expect(modelOf({ steps })).toBe("step-model")
    expect(modelOf({ steps: [{}] })).toBeUndefined()
    // The run's model is the last assistant message's.
    const rows = extractAISDKRunTelemetry([
      assistant([text("a")], { modelId: "first" }, "r1"),
      assistant([text("b")], { modelId: "second" }, "r2")
    ])
    expect(rows).toMatchObject({ modelId: "second", assistantMessageId: "r2", metadata: { modelId: "second" } })
  })

  it("status completed when any text or tool call, else incomplete", () => {
    const statusOf = (parts: Array<Part>) => extractAISDKRunTelemetry([assistant(parts)])?.status
    expect(statusOf([text("Hi")])).toBe("completed")
    expect(statusOf([stepStart, toolPart("lookup", "c1", {}, undefined)])).toBe("completed")
    expect(statusOf([dynamicPart("search", "c2", {}, "x")])).toBe("completed")
    expect(statusOf([])).toBe("incomplete")
    expect(statusOf([stepStart, text(""), { type: "reasoning", text: "thinking only" }])).toBe("incomplete")
  })

  it("assistant text is joined and cut to 50,000 characters", () => {
    const long = "x".repeat(49_999)
    expect(extractAISDKRunTelemetry([assistant([text(long), text("yz")])])?.outputText).toBe(`${long}y`)
  })

  it("its result fills `createRunReport` with the thread id", () => {
    const telemetry = extractAISDKRunTelemetry([
      assistant([stepStart, toolPart("weather", "call_1", { city: "Oslo" }, { temp: 3 }), stepStart, text("Cold.")], {
        usage: { inputTokens: 10, outputTokens: 5 },
        steps: [{ usage: { inputTokens: 4, outputTokens: 1 } }, { usage: { inputTokens: 6, outputTokens: 4 } }],
        modelId: "gpt-x"
      })
    ])
    if (telemetry === null) return expect.fail("no telemetry")
    const { assistantMessageId: _id, metadata: _metadata, ...init } = telemetry
    expect(createRunReport({ threadId: "t1", ...init })).toMatchObject({
      thread_id: "t1",
      status: "completed",
      model_id: "gpt-x",
      input_tokens: 10,
      output_tokens: 5,
      total_steps: 2,
      output_text: "Cold.",
      tool_calls: [{ tool_name: "weather", tool_call_id: "call_1", tool_source: "frontend" }],
      steps: [
        { input_tokens: 4, output_tokens: 1, finish_reason: "tool-calls", tool_calls: [expect.anything()] },
        { input_tokens: 6, output_tokens: 4 }
      ]
    })
  })
})

describe("the ./ai-sdk entry", () => {
  it("uses `ai` for types only: bundled, it imports nothing at run time", async () => {
    const result = await esbuild.build({
      entryPoints: [fileURLToPath(new URL("../../../sdk/ai-sdk.ts", import.meta.url))],
      bundle: true,
      format: "esm",
      platform: "neutral",
      write: false,
      metafile: true,
      logLevel: "silent"
    })
    const output = Object.values(result.metafile.outputs)[0]
    expect(output?.imports).toEqual([])
    expect(Object.keys(output?.inputs ?? {}).filter((input) => input.includes("node_modules"))).toEqual([])
    expect(output?.exports.sort()).toEqual(["aiSDKV6FormatAdapter", "extractAISDKRunTelemetry"])
  })
})
