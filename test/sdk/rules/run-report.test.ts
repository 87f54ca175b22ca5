/**
 * docs/client-library.md "Building blocks" (createRunReport and the run telemetry
 * helpers) and docs/decisions.md "Client building blocks (svc-client, issue 14)"; the limits of
 * docs/api-and-auth.md "Run reports, scores and events" / schema/Limits.ts that a built report must stay within: every
 * report createRunReport builds is decoded here by the gateway's own RunReport
 * schema.
 */
import * as Schema from "effect/Schema"
import {
  type AssistantCloudRunReportToolCall,
  type AssistantCloudRunReport as CloudRunReport,
  createRunReport,
  createRunTelemetryToolCall,
  deriveRunOutcome,
  describeRunError,
  extractRunTelemetryModelId,
  normalizeRunTelemetryUsage,
  type RunReportInit,
  truncateRunTelemetryText
} from "svc-client"
import { describe, expect, it } from "vitest"
import { Limits } from "../../../schema/Limits.js"
import { RunReport } from "../../../schema/Run.js"

const base = { threadId: "thread_1", status: "completed" } as const

/** The report built from `init`, after checking that the gateway's schema accepts it as it is. */
const build = (init: Partial<RunReportInit>): CloudRunReport => {
  const report = createRunReport({ ...base, ...init })
  const decoded = Schema.decodeUnknownEither(RunReport)(report)
  if (decoded._tag === "Left") expect.fail(`the gateway would refuse the report: ${decoded.left.message}`)
  return report
}

/** A base64 payload of `bytes` bytes. */
const base64 = (bytes: number) => Buffer.alloc(bytes, 7).toString("base64")

describe("Reporting: createRunReport", () => {
  it("maps the client-side report object (camelCase) to the wire names", () => {
    expect(
      build({
        status: "error",
        outcome: "length",
        messageId: "msg_1",
        userMessageId: "msg_0",
        modelId: "gpt-4o-mini",
        error: "boom",
        errorCode: "E_BOOM",
        toolCalls: [{ tool_name: "search", tool_call_id: "c1", tool_args: '{"q":1}', tool_source: "backend" }],
        samplingCalls: [{ model_id: "m", input_tokens: 3, duration_ms: 4 }],
        outputText: "Hello",
        attributes: { feature: "chat" },
        metadata: { page: "home" },
        rootSpanId: "00F067AA0BA902B7"
      })
    ).toEqual({
      thread_id: "thread_1",
      status: "error",
      outcome_type: "length",
      message_id: "msg_1",
      user_message_id: "msg_0",
      model_id: "gpt-4o-mini",
      error: "boom",
      error_code: "E_BOOM",
      tool_calls: [{ tool_name: "search", tool_call_id: "c1", tool_args: '{"q":1}', tool_source: "backend" }],
      sampling_calls: [{ model_id: "m", input_tokens: 3, duration_ms: 4 }],
      output_text: "Hello",
      attributes: { feature: "chat" },
      metadata: { page: "home" },
      root_span_id: "00f067aa0ba902b7"
    })
    // Nothing given, nothing sent.
    expect(build({})).toEqual({ thread_id: "thread_1", status: "completed" })
  })

  it("trace_id lower-cased and kept only when 32 hex", () => {
    expect(build({ traceId: "4BF92F3577B34DA6A3CE929D0E0E4736" }).trace_id).toBe("4bf92f3577b34da6a3ce929d0e0e4736")
    for (const traceId of ["4bf92f3577b34da6a3ce929d0e0e473", "4bf92f3577b34da6a3ce929d0e0e47360", "zz", ""]) {
      expect(build({ traceId })).not.toHaveProperty("trace_id")
    }
    expect(build({ traceId: "4bf92f3577b34da6a3ce929d0e0e473g" })).not.toHaveProperty("trace_id")
    // root_span_id likewise, at 16 hex digits.
    expect(build({ rootSpanId: "00f067aa0ba902b" })).not.toHaveProperty("root_span_id")
  })

  it("provider copied to provider_type", () => {
    expect(build({ provider: "openai" })).toMatchObject({ provider: "openai", provider_type: "openai" })
    // provider_type holds 64 characters on the gateway, provider 255.
    const long = "p".repeat(300)
    const report = build({ provider: long })
    expect(report.provider).toBe("p".repeat(Limits.run.nameMaxLength))
    expect(report.provider_type).toBe("p".repeat(Limits.run.providerTypeMaxLength))
    expect(build({ provider: "" })).not.toHaveProperty("provider")
  })

  it("usage names normalized (promptTokens/completionTokens, cached and reasoning details)", () => {
    expect(build({ usage: { promptTokens: 10, completionTokens: 5 } })).toMatchObject({
      input_tokens: 10,
      output_tokens: 5
    })
    expect(
      build({
        usage: {
          inputTokens: 100,
          outputTokens: 40,
          inputTokenDetails: { cacheReadTokens: 60 },
          outputTokenDetails: { reasoningTokens: 12 }
        }
      })
    ).toMatchObject({ input_tokens: 100, output_tokens: 40, cached_input_tokens: 60, reasoning_tokens: 12 })
    // The current names win over the legacy ones and the details.
    expect(
      build({
        usage: {
          inputTokens: 1,
          promptTokens: 2,
          reasoningTokens: 3,
          outputTokenDetails: { reasoningTokens: 4 },
          cachedInputTokens: 5,
          inputTokenDetails: { cacheReadTokens: 6 }
        }
      })
    ).toMatchObject({ input_tokens: 1, reasoning_tokens: 3, cached_input_tokens: 5 })
    // Steps take the same names.
    expect(build({ steps: [{ usage: { promptTokens: 7, inputTokenDetails: { cacheReadTokens: 2 } } }] }).steps).toEqual(
      [{ input_tokens: 7, cached_input_tokens: 2 }]
    )
  })

  it("normalizeRunTelemetryUsage: the report's names, undefined when no count is present", () => {
    expect(normalizeRunTelemetryUsage({ promptTokens: 3, completionTokens: 0 })).toEqual({
      inputTokens: 3,
      outputTokens: 0
    })
    expect(
      normalizeRunTelemetryUsage({
        inputTokenDetails: { cacheReadTokens: 9 },
        outputTokenDetails: { reasoningTokens: 8 }
      })
    ).toEqual({ cachedInputTokens: 9, reasoningTokens: 8 })
    expect(normalizeRunTelemetryUsage({})).toBeUndefined()
    expect(normalizeRunTelemetryUsage({ inputTokens: undefined, inputTokenDetails: {} })).toBeUndefined()
  })

  it("token counts are whole numbers from 0 to 100,000,000 (not finite: left out)", () => {
    expect(
      build({ usage: { inputTokens: 12.6, outputTokens: -4, reasoningTokens: 1e12, cachedInputTokens: Number.NaN } })
    ).toMatchObject({ input_tokens: 13, output_tokens: 0, reasoning_tokens: Limits.run.tokensMax })
    expect(build({ usage: { cachedInputTokens: Number.POSITIVE_INFINITY } })).not.toHaveProperty("cached_input_tokens")
  })

  it("with steps, total_steps is their count", () => {
    expect(build({ steps: [{}, {}, {}], totalSteps: 9 }).total_steps).toBe(3)
    expect(build({ steps: [], totalSteps: 9 }).total_steps).toBe(0)
    // Without steps, totalSteps as given (whole, 0 to 1,000).
    expect(build({ totalSteps: 4 }).total_steps).toBe(4)
    expect(build({ totalSteps: 5_000 }).total_steps).toBe(Limits.run.entriesMax)
  })

  it("a step's finish_reason cut to 32", () => {
    const [step] =
      build({ steps: [{ finishReason: "x".repeat(40), startMs: 1.4, endMs: 9.6, input: "hi" }] }).steps ?? []
    expect(step).toEqual({ finish_reason: "x".repeat(32), start_ms: 1, end_ms: 10, input: "hi" })
  })

  it("duration_ms and first_token_ms rounded, at least 0, dropped when not finite", () => {
    expect(build({ durationMs: 1234.5, firstTokenMs: 99.4 })).toMatchObject({ duration_ms: 1235, first_token_ms: 99 })
    expect(build({ durationMs: -5, firstTokenMs: -0.2 })).toMatchObject({ duration_ms: 0, first_token_ms: 0 })
    for (const value of [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY]) {
      const report = build({ durationMs: value, firstTokenMs: value })
      expect(report).not.toHaveProperty("duration_ms")
      expect(report).not.toHaveProperty("first_token_ms")
    }
  })

  it("output_text cut to 50,000", () => {
    expect(build({ outputText: "a".repeat(60_000) }).output_text).toHaveLength(50_000)
    expect(build({ outputText: "short" }).output_text).toBe("short")
  })

  it("tags trimmed, cut to 64, empty and duplicates dropped, at most 20", () => {
    const many = Array.from({ length: 30 }, (_, index) => `tag-${index}`)
    expect(
      build({ telemetry: { tags: ["  beta ", "beta", "", "   ", "x".repeat(70), `${"x".repeat(64)}y`, ...many] } }).tags
    ).toEqual(["beta", "x".repeat(64), ...many.slice(0, 18)])
    expect(build({ telemetry: { tags: [" ", ""] } })).not.toHaveProperty("tags")
  })

  it("environment and release from the telemetry share, cut to 64 and 255", () => {
    expect(build({ telemetry: { environment: "production", release: "1.2.3" } })).toMatchObject({
      environment: "production",
      release: "1.2.3"
    })
    const report = build({ telemetry: { environment: "e".repeat(100), release: "r".repeat(300) } })
    expect(report.environment).toHaveLength(Limits.run.environmentMaxLength)
    expect(report.release).toHaveLength(Limits.run.releaseMaxLength)
  })

  it("error cut to 2,048 and error_code to 64", () => {
    const report = build({ status: "error", error: "e".repeat(3_000), errorCode: "c".repeat(100) })
    expect(report.error).toHaveLength(Limits.run.errorMaxLength)
    expect(report.error_code).toHaveLength(Limits.run.errorCodeMaxLength)
  })

  it("cost_usd, cost_details, root_span_id and user_message_id (later 0.2 clients)", () => {
    expect(
      build({
        costUsd: 0.0123,
        costDetails: { input: 0.01, inputCachedTokens: 0.0003, output: 0.002, total: 0.0123 },
        rootSpanId: "00f067aa0ba902b7",
        userMessageId: "msg_user"
      })
    ).toMatchObject({
      cost_usd: 0.0123,
      cost_details: { input: 0.01, input_cached_tokens: 0.0003, output: 0.002, total: 0.0123 },
      root_span_id: "00f067aa0ba902b7",
      user_message_id: "msg_user"
    })
    // A cost the gateway cannot take is left out (or held to its ceiling).
    expect(build({ costUsd: -1, costDetails: { input: Number.NaN } })).not.toHaveProperty("cost_usd")
    expect(build({ costDetails: { input: Number.NaN } })).not.toHaveProperty("cost_details")
    expect(build({ costUsd: 5e9 }).cost_usd).toBe(Limits.run.costUsdMax)
    // An id the gateway cannot store (over 48 characters, or empty) is left out.
    expect(build({ userMessageId: "u".repeat(49), messageId: "" })).toEqual({
      thread_id: "thread_1",
      status: "completed"
    })
  })

  it("attributes over 16 KB and metadata entries over the metadata limits are left out", () => {
    expect(build({ attributes: { blob: "x".repeat(17_000) } })).not.toHaveProperty("attributes")
    // Metadata: keys of at most 64 characters, values of at most 512 serialized, at most 16 keys.
    const metadata: Record<string, unknown> = { big: "x".repeat(600), ["k".repeat(65)]: 1, ok: "fine" }
    for (let index = 0; index < 20; index++) metadata[`n${index}`] = index
    const kept = build({ metadata }).metadata as Record<string, unknown>
    expect(kept).toMatchObject({ ok: "fine", n0: 0 })
    expect(Object.keys(kept)).toHaveLength(Limits.thread.metadataMaxKeys)
    expect(kept).not.toHaveProperty("big")
    // Nothing left of a non-empty metadata: left out.
    expect(build({ metadata: { big: "x".repeat(600) } })).not.toHaveProperty("metadata")
  })

  it("at most 1,000 steps, tool calls and sampling calls (each list the gateway takes)", () => {
    const call = (index: number): AssistantCloudRunReportToolCall => ({
      tool_name: "t",
      tool_call_id: `c${index}`,
      ...(index === 0 ? { sampling_calls: Array.from({ length: 1_200 }, () => ({ input_tokens: 1 })) } : {})
    })
    const report = build({
      steps: Array.from({ length: 1_100 }, () => ({ usage: { inputTokens: 1 } })),
      toolCalls: Array.from({ length: 1_050 }, (_, index) => call(index)),
      samplingCalls: Array.from({ length: 1_001 }, () => ({ output_tokens: 2 }))
    })
    expect(report.steps).toHaveLength(Limits.run.entriesMax)
    expect(report.total_steps).toBe(Limits.run.entriesMax)
    expect(report.tool_calls).toHaveLength(Limits.run.entriesMax)
    expect(report.tool_calls?.[0]?.sampling_calls).toHaveLength(Limits.run.entriesMax)
    expect(report.sampling_calls).toHaveLength(Limits.run.entriesMax)
  })

  it("tool calls keep only the wire's fields, each within its limit; one without a name or id is left out", () => {
    const loose = {
      tool_name: "n".repeat(300),
      tool_call_id: "c1",
      tool_args: { text: "a".repeat(60_000) },
      tool_result: "r".repeat(60_000),
      start_ms: -3,
      end_ms: 4.6,
      extra: "the gateway refuses unknown fields",
      sampling_calls: [{ model_id: "m", input_tokens: 2.2, note: "dropped" }]
    }
    // Held in variables, as an app's own objects are: extra fields pass the type check.
    const nameless = { tool_name: "", tool_call_id: "c2" }
    const report = build({
      toolCalls: [loose, nameless],
      steps: [{ toolCalls: [{ tool_name: "s", tool_call_id: "c3", tool_args: { q: 1 } }] }]
    })
    expect(report.tool_calls).toHaveLength(1)
    const [call] = report.tool_calls ?? []
    expect(call?.tool_name).toHaveLength(Limits.run.nameMaxLength)
    // A JSON value too long once serialized is sent as its text, cut.
    expect(typeof call?.tool_args).toBe("string")
    expect(call?.tool_args).toHaveLength(Limits.run.textMaxLength)
    expect(call?.tool_result).toHaveLength(Limits.run.textMaxLength)
    expect(call).not.toHaveProperty("extra")
    expect(call).toMatchObject({ start_ms: 0, end_ms: 5, sampling_calls: [{ model_id: "m", input_tokens: 2 }] })
    // A JSON value that fits is kept as it is.
    expect(report.steps?.[0]?.tool_calls).toEqual([{ tool_name: "s", tool_call_id: "c3", tool_args: { q: 1 } }])
  })

  it("text is never cut between the halves of a surrogate pair (the gateway refuses a lone one)", () => {
    const text = `${"a".repeat(49_999)}😀tail`
    const cut = truncateRunTelemetryText(text)
    expect(cut).toBe("a".repeat(49_999))
    expect(build({ outputText: text }).output_text).toBe(cut)
  })
})

describe("Reporting: the run telemetry helpers", () => {
  it("truncateRunTelemetryText: cut to 50,000", () => {
    expect(truncateRunTelemetryText("b".repeat(50_001))).toBe("b".repeat(50_000))
    expect(truncateRunTelemetryText("b".repeat(50_000))).toBe("b".repeat(50_000))
  })

  it("createRunTelemetryToolCall: arguments and result serialized as JSON and cut to 50,000; argsText used as given", () => {
    expect(
      createRunTelemetryToolCall({
        toolName: "weather",
        toolCallId: "call_1",
        args: { city: "Paris" },
        result: { temp: 21 },
        toolSource: "frontend"
      })
    ).toEqual({
      tool_name: "weather",
      tool_call_id: "call_1",
      tool_args: '{"city":"Paris"}',
      tool_result: '{"temp":21}',
      tool_source: "frontend"
    })
    const call = createRunTelemetryToolCall({
      toolName: "t",
      toolCallId: "c",
      args: { ignored: true },
      argsText: "x".repeat(60_000),
      result: "y".repeat(60_000)
    })
    expect(call.tool_args).toBe("x".repeat(50_000))
    expect(call.tool_result).toHaveLength(50_000)
    expect(call).not.toHaveProperty("tool_source")
    // Nothing to serialize: left out (null, undefined, a cycle).
    const cycle: Record<string, unknown> = {}
    cycle.self = cycle
    expect(createRunTelemetryToolCall({ toolName: "t", toolCallId: "c", args: cycle, result: null })).toEqual({
      tool_name: "t",
      tool_call_id: "c"
    })
  })

  it("Tool results from an mcp source have base64 image or audio payloads (100+ characters) replaced by [image: N.NKB]", () => {
    const image = base64(30_000)
    const audio = base64(2_048)
    const blocks = [
      { type: "text", text: "a chart" },
      { type: "image", data: image, mimeType: "image/png" },
      { type: "audio", data: audio, mimeType: "audio/wav" },
      { type: "image", data: "c2hvcnQ=", mimeType: "image/png" }
    ]
    const summarized = [
      { type: "text", text: "a chart" },
      { type: "image", data: `[image: ${((image.length * 3) / 4 / 1024).toFixed(1)}KB]`, mimeType: "image/png" },
      { type: "audio", data: "[audio: 2.0KB]", mimeType: "audio/wav" },
      { type: "image", data: "c2hvcnQ=", mimeType: "image/png" }
    ]
    expect(summarized[1]?.data).toBe("[image: 29.3KB]")
    const mcp = (result: unknown) =>
      createRunTelemetryToolCall({ toolName: "chart", toolCallId: "c", result, toolSource: "mcp" })
    // A content array, the same as JSON text, and a CallToolResult holding it under `content`.
    expect(JSON.parse(mcp(blocks).tool_result as string)).toEqual(summarized)
    expect(JSON.parse(mcp(JSON.stringify(blocks)).tool_result as string)).toEqual(summarized)
    expect(JSON.parse(mcp({ content: blocks, isError: false }).tool_result as string)).toEqual({
      content: summarized,
      isError: false
    })
    // Not base64: kept. Another source: kept (and cut).
    const notBase64 = { type: "image", data: `${"!".repeat(120)}`, mimeType: "image/png" }
    expect(JSON.parse(mcp([notBase64]).tool_result as string)).toEqual([notBase64])
    const frontend = createRunTelemetryToolCall({
      toolName: "t",
      toolCallId: "c",
      result: blocks,
      toolSource: "frontend"
    })
    expect(frontend.tool_result).toBe(JSON.stringify(blocks).slice(0, 50_000))
    // A string that is not JSON is serialized as a string.
    expect(mcp("plain text").tool_result).toBe('"plain text"')
  })

  it("deriveRunOutcome: error, then abort (incomplete/aborted), then disconnect (incomplete/disconnected)", () => {
    expect(deriveRunOutcome({ isError: true, isAbort: true, isDisconnect: true, finishReason: "stop" })).toEqual({
      status: "error"
    })
    expect(deriveRunOutcome({ isAbort: true, isDisconnect: true, finishReason: "error" })).toEqual({
      status: "incomplete",
      outcome: "aborted"
    })
    expect(deriveRunOutcome({ isDisconnect: true, finishReason: "error" })).toEqual({
      status: "incomplete",
      outcome: "disconnected"
    })
  })

  it("deriveRunOutcome: finish reasons length, content-filter/content_filter, cancelled (aborted), error; other reasons completed", () => {
    const of = (finishReason: string) => deriveRunOutcome({ finishReason }, "incomplete")
    expect(of("length")).toEqual({ status: "incomplete", outcome: "length" })
    expect(of("content-filter")).toEqual({ status: "incomplete", outcome: "content_filter" })
    expect(of("content_filter")).toEqual({ status: "incomplete", outcome: "content_filter" })
    expect(of("cancelled")).toEqual({ status: "incomplete", outcome: "aborted" })
    expect(of("error")).toEqual({ status: "error" })
    for (const reason of ["stop", "tool-calls", "other", "unknown", ""])
      expect(of(reason)).toEqual({ status: "completed" })
  })

  it("deriveRunOutcome(input, fallback = completed): no finish reason gives the fallback", () => {
    expect(deriveRunOutcome({})).toEqual({ status: "completed" })
    expect(deriveRunOutcome({}, "incomplete")).toEqual({ status: "incomplete" })
    expect(deriveRunOutcome({ isAbort: false, isError: false }, "incomplete")).toEqual({ status: "incomplete" })
  })

  it("describeRunError: message cut to 2,048", () => {
    expect(describeRunError(new Error("m".repeat(3_000))).error).toHaveLength(2_048)
    expect(describeRunError("plain failure")).toEqual({ error: "plain failure" })
    expect(describeRunError(null)).toEqual({})
    expect(describeRunError(undefined)).toEqual({})
    expect(describeRunError(42)).toEqual({})
  })

  it("describeRunError: code from error.code (string) else the error's name when not Error, cut to 64", () => {
    expect(describeRunError(new Error("plain"))).toEqual({ error: "plain" })
    expect(describeRunError(new TypeError("bad"))).toEqual({ error: "bad", errorCode: "TypeError" })
    expect(describeRunError(Object.assign(new Error("net"), { code: "ECONNRESET" }))).toEqual({
      error: "net",
      errorCode: "ECONNRESET"
    })
    // A code that is not a string falls back to the name.
    expect(describeRunError(Object.assign(new RangeError("r"), { code: 7 }))).toEqual({
      error: "r",
      errorCode: "RangeError"
    })
    expect(describeRunError({ message: "obj", name: "N".repeat(100) }).errorCode).toHaveLength(64)
    expect(describeRunError({ code: "c".repeat(100) })).toEqual({ errorCode: "c".repeat(64) })
  })

  it("extractRunTelemetryModelId: metadata.modelId, then custom.modelId, then the steps' response.modelId", () => {
    const steps = [{ response: {} }, { response: { modelId: "from-step" } }]
    expect(extractRunTelemetryModelId({ modelId: "top", custom: { modelId: "custom" }, steps })).toBe("top")
    expect(extractRunTelemetryModelId({ custom: { modelId: "custom" }, steps })).toBe("custom")
    expect(extractRunTelemetryModelId({ steps })).toBe("from-step")
    expect(extractRunTelemetryModelId({ modelId: 3, steps: "no" })).toBeUndefined()
    expect(extractRunTelemetryModelId(undefined)).toBeUndefined()
  })
})
