/**
 * Run reports end to end: a report built with createRunReport (steps, tool
 * calls with an MCP tool whose result carries a large base64 image, sampling
 * calls, usage under the AI SDK's detail names, tags with duplicates, an
 * upper-case trace id) sent through CloudRunReporter by the promise client in
 * its three auth modes, on each store, and read back through the project API
 * (`projects.runs.list` / `.get` with an API key): tokens, steps, tool calls,
 * tags, status. A keyed report is stored once however often it is reported; a
 * report past every limit is cut by the client so that the gateway takes it.
 */
import {
  AssistantCloud,
  CloudRunReporter,
  createRunTelemetryToolCall,
  deriveRunOutcome,
  describeRunError,
  normalizeRunTelemetryUsage,
  type RunReportInit
} from "svc-client"
import { beforeAll, describe, expect, it } from "vitest"
import { Limits } from "../../schema/Limits.js"
import { clientStores } from "../support/layers.js"
import {
  apiError,
  apiKeyConfig,
  clientsByMode,
  MODES,
  type Mode,
  makeFixture,
  useSdkGateway
} from "./gateway-helpers.js"

const TRACE_ID = "4BF92F3577B34DA6A3CE929D0E0E4736"

/** A PNG-sized base64 payload: 150,000 bytes, so 200,000 base64 characters. */
const IMAGE = Buffer.alloc(150_000, 0xab).toString("base64")
const IMAGE_SUMMARY = `[image: ${((IMAGE.length * 3) / 4 / 1024).toFixed(1)}KB]`

/** `value[key]` of a JSON value read back (undefined when it has none). */
const field = (value: unknown, key: string): unknown =>
  typeof value === "object" && value !== null ? Reflect.get(value, key) : undefined

/** What a chat run with two steps, a frontend tool and an MCP tool reports. */
const chatRun = (threadId: string, mode: Mode): RunReportInit => {
  const weather = createRunTelemetryToolCall({
    toolName: "weather",
    toolCallId: `call_weather_${mode}`,
    args: { city: "Paris" },
    result: { temperature: 21 },
    toolSource: "frontend",
    startMs: 120.4,
    endMs: 480.6
  })
  const chart = createRunTelemetryToolCall({
    toolName: "render_chart",
    toolCallId: `call_chart_${mode}`,
    args: { series: [1, 2, 3] },
    result: {
      content: [
        { type: "text", text: "Here is the chart" },
        { type: "image", data: IMAGE, mimeType: "image/png" }
      ],
      isError: false
    },
    toolSource: "mcp",
    samplingCalls: [{ model_id: "claude-haiku", input_tokens: 40, output_tokens: 12, duration_ms: 310 }]
  })
  const outcome = deriveRunOutcome({ finishReason: "stop" })
  return {
    threadId,
    ...outcome,
    messageId: `msg_${mode}`,
    traceId: TRACE_ID,
    modelId: "gpt-4o-mini",
    provider: "openai",
    // The AI SDK v6 usage shape: details under inputTokenDetails / outputTokenDetails.
    usage: {
      inputTokens: 1_200,
      outputTokens: 340,
      inputTokenDetails: { cacheReadTokens: 800 },
      outputTokenDetails: { reasoningTokens: 96 }
    },
    steps: [
      {
        usage: { promptTokens: 500, completionTokens: 40, inputTokenDetails: { cacheReadTokens: 300 } },
        toolCalls: [weather, chart],
        finishReason: "tool-calls",
        startMs: 0,
        endMs: 900.7
      },
      {
        usage: { inputTokens: 700, outputTokens: 300, outputTokenDetails: { reasoningTokens: 96 } },
        finishReason: "stop",
        startMs: 901,
        endMs: 2_310.2
      }
    ],
    toolCalls: [weather, chart],
    durationMs: 2_310.2,
    firstTokenMs: 419.6,
    outputText: "It is 21 °C in Paris; the chart is above.",
    costUsd: 0.0042,
    costDetails: { input: 0.003, output: 0.0012, total: 0.0042 }
  }
}

for (const store of clientStores)
  describe(`run reports on a real gateway (${store.name})`, () => {
    const { handle } = useSdkGateway(store)
    let clouds: Record<Mode, AssistantCloud>
    /** Reads the project's runs with the API key. */
    let reader: AssistantCloud
    let fixture: Awaited<ReturnType<typeof makeFixture>>

    beforeAll(async () => {
      fixture = await makeFixture(handle.current, "sdk-run-reports")
      const telemetry = { environment: "production", release: "2.4.0", tags: [" chat ", "chat", "beta", ""] }
      clouds = clientsByMode(fixture, (config) => ({ ...config, telemetry }), { apiKey: "ws-runs", jwt: "ws-runs-j" })
      reader = new AssistantCloud(apiKeyConfig(fixture, "reader", "ws-reader"))
    })

    /** The runs of one thread, as the project API lists them. */
    const runsOf = async (threadId: string) => (await reader.projects.runs.list({ thread_id: threadId })).runs

    describe.each(MODES)("%s mode", (mode) => {
      const cloud = () => clouds[mode]

      it("a report built with createRunReport, sent through CloudRunReporter, reads back through the project API", async () => {
        const { thread_id: threadId } = await cloud().threads.create({ last_message_at: new Date() })
        const reporter = new CloudRunReporter(cloud)
        await reporter.report(chatRun(threadId, mode), `${threadId}:msg_${mode}`)

        const [summary, ...others] = await runsOf(threadId)
        expect(others).toEqual([])
        expect(summary).toMatchObject({
          thread_id: threadId,
          message_id: `msg_${mode}`,
          status: "completed",
          outcome_type: null,
          model_id: "gpt-4o-mini",
          provider: "openai",
          provider_type: "openai",
          input_tokens: 1_200,
          output_tokens: 340,
          cached_input_tokens: 800,
          reasoning_tokens: 96,
          total_steps: 2,
          tool_call_count: 2,
          duration_ms: 2_310,
          first_token_ms: 420,
          trace_id: TRACE_ID.toLowerCase(),
          cost_usd: 0.0042,
          tags: ["chat", "beta"],
          environment: "production",
          release: "2.4.0"
        })

        const run = await reader.projects.runs.get(summary?.id ?? "")
        expect(run.output_text).toBe("It is 21 °C in Paris; the chart is above.")
        expect(run.cost_details).toEqual({ input: 0.003, output: 0.0012, total: 0.0042 })
        expect(run.steps).toEqual([
          expect.objectContaining({
            input_tokens: 500,
            output_tokens: 40,
            cached_input_tokens: 300,
            finish_reason: "tool-calls",
            start_ms: 0,
            end_ms: 901,
            tool_calls: [
              expect.objectContaining({ tool_name: "weather" }),
              expect.objectContaining({ tool_name: "render_chart" })
            ]
          }),
          {
            input_tokens: 700,
            output_tokens: 300,
            reasoning_tokens: 96,
            finish_reason: "stop",
            start_ms: 901,
            end_ms: 2_310
          }
        ])
        const [weather, chart] = run.tool_calls
        expect(weather).toEqual({
          tool_name: "weather",
          tool_call_id: `call_weather_${mode}`,
          tool_args: '{"city":"Paris"}',
          tool_result: '{"temperature":21}',
          tool_source: "frontend",
          start_ms: 120,
          end_ms: 481
        })
        expect(chart).toMatchObject({
          tool_name: "render_chart",
          tool_source: "mcp",
          tool_args: '{"series":[1,2,3]}',
          sampling_calls: [{ model_id: "claude-haiku", input_tokens: 40, output_tokens: 12, duration_ms: 310 }]
        })
        // The MCP image went in as its size, not its 200,000 base64 characters.
        const chartResult = String(field(chart, "tool_result"))
        expect(JSON.parse(chartResult)).toEqual({
          content: [
            { type: "text", text: "Here is the chart" },
            { type: "image", data: IMAGE_SUMMARY, mimeType: "image/png" }
          ],
          isError: false
        })
        expect(chartResult).not.toContain(IMAGE.slice(0, 100))
      })

      it("a duplicate key sends once: again, and concurrently", async () => {
        const { thread_id: threadId } = await cloud().threads.create({ last_message_at: new Date() })
        const reporter = new CloudRunReporter(() => cloud())
        const key = `${threadId}:msg_${mode}`
        await Promise.all([1, 2, 3].map(() => reporter.report(chatRun(threadId, mode), key)))
        await reporter.report(chatRun(threadId, mode), key)
        expect(await runsOf(threadId)).toHaveLength(1)
        // Without a key (or with another one) each report is a run.
        await reporter.report(chatRun(threadId, mode))
        await reporter.report(chatRun(threadId, mode), `${key}:retry`)
        expect(await runsOf(threadId)).toHaveLength(3)
      })

      it("a failed run: deriveRunOutcome and describeRunError on the wire, then read back", async () => {
        const { thread_id: threadId } = await cloud().threads.create({ last_message_at: new Date() })
        const reporter = new CloudRunReporter(cloud())
        const failure = Object.assign(new Error("x".repeat(3_000)), { code: "provider_overloaded" })
        await reporter.report({ threadId, ...deriveRunOutcome({ isError: true }), ...describeRunError(failure) })
        await reporter.report({ threadId, ...deriveRunOutcome({ isAbort: true }), durationMs: -3 })
        await reporter.report({ threadId, ...deriveRunOutcome({ finishReason: "content-filter" }) })
        const runs = await runsOf(threadId)
        expect(runs.map((run) => [run.status, run.outcome_type]).sort()).toEqual([
          ["error", null],
          ["incomplete", "aborted"],
          ["incomplete", "content_filter"]
        ])
        const failed = runs.find((run) => run.status === "error")
        expect(failed?.error).toBe("x".repeat(Limits.run.errorMaxLength))
        expect(failed?.error_code).toBe("provider_overloaded")
        expect(runs.find((run) => run.outcome_type === "aborted")?.duration_ms).toBe(0)
      })
    })

    it("a report past every limit is cut by the client so that the gateway takes it", async () => {
      const cloud = clouds.apiKey
      const { thread_id: threadId } = await cloud.threads.create({ last_message_at: new Date() })
      // The gateway refuses such a report as it is (refused, not trimmed: docs/api-and-auth.md
      // "Run reports, scores and events") ...
      await apiError(
        cloud.runs.report({ thread_id: threadId, status: "completed", output_text: "o".repeat(60_000) }),
        400
      )
      // ... and takes it once createRunReport has made it fit.
      const tags = Array.from({ length: 30 }, (_, index) => `t${index}-${"x".repeat(70)}`)
      const big = new AssistantCloud({ ...apiKeyConfig(fixture, "alice", "ws-runs"), telemetry: { tags } })
      const steps = Array.from({ length: 1_100 }, () => ({ usage: { inputTokens: 1.6 }, finishReason: "f".repeat(40) }))
      const usage = normalizeRunTelemetryUsage({ promptTokens: 1e12, completionTokens: 2.5 })
      await new CloudRunReporter(big).report({
        threadId,
        status: "completed",
        outputText: "o".repeat(60_000),
        steps,
        ...(usage === undefined ? {} : { usage }),
        toolCalls: [
          createRunTelemetryToolCall({
            toolName: "n".repeat(300),
            toolCallId: "c1",
            argsText: "a".repeat(70_000),
            result: "r".repeat(70_000)
          })
        ],
        error: "e".repeat(5_000),
        errorCode: "E".repeat(100),
        provider: "p".repeat(100),
        traceId: "not-a-trace"
      })
      const [summary] = await runsOf(threadId)
      expect(summary).toMatchObject({
        input_tokens: Limits.run.tokensMax,
        output_tokens: 3,
        total_steps: Limits.run.entriesMax,
        trace_id: null,
        provider: "p".repeat(100),
        provider_type: "p".repeat(Limits.run.providerTypeMaxLength),
        error_code: "E".repeat(Limits.run.errorCodeMaxLength)
      })
      expect(summary?.tags).toHaveLength(Limits.run.tagsMax)
      const run = await reader.projects.runs.get(summary?.id ?? "")
      expect(run.output_text).toHaveLength(Limits.run.textMaxLength)
      expect(run.steps).toHaveLength(Limits.run.entriesMax)
      expect(run.steps[0]).toEqual({ input_tokens: 2, finish_reason: "f".repeat(Limits.run.finishReasonMaxLength) })
      const [call] = run.tool_calls
      expect(field(call, "tool_name")).toHaveLength(Limits.run.nameMaxLength)
      expect(field(call, "tool_args")).toHaveLength(Limits.run.textMaxLength)
      expect(field(call, "tool_result")).toHaveLength(Limits.run.textMaxLength)
    })
  })
