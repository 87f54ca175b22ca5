/**
 * `svc-client/telemetry` against a real gateway on every store, with the real
 * OpenTelemetry SDK (BasicTracerProvider, the async-hooks context manager)
 * and the real AI SDK (`ai`, with `ai/test`'s MockLanguageModelV3 as the
 * model): spans pass through createAssistantCloudSpanProcessor over
 * createAssistantCloudTraceExporter to the gateway's /v1/traces; only the
 * GenAI ones arrive; the trace and the run the gateway makes from its model
 * call read back through the project API (`cloud.projects.*`, API key). The
 * trace id that withAssistantCloudTraceMetadata puts on the AI SDK's `start`
 * part is the trace the gateway stored.
 */
import { context, SpanKind, type SpanOptions, trace } from "@opentelemetry/api"
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks"
import { resourceFromAttributes } from "@opentelemetry/resources"
import { BasicTracerProvider } from "@opentelemetry/sdk-trace-base"
import { streamText, type UIMessageChunk } from "ai"
import { convertArrayToReadableStream, MockLanguageModelV3 } from "ai/test"
import { AssistantCloud } from "svc-client"
import {
  createAssistantCloudSpanProcessor,
  createAssistantCloudTraceExporter,
  withAssistantCloudTraceMetadata
} from "svc-client/telemetry"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { clientStores } from "../support/layers.js"
import { apiError, apiKeyConfig, type Fixture, makeFixture, useSdkGateway } from "./gateway-helpers.js"

const usage = (input: number, output: number) => ({
  inputTokens: { total: input, noCache: input, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: output, text: output, reasoning: undefined }
})

const collect = async <A>(stream: ReadableStream<A>): Promise<Array<A>> => {
  const out: Array<A> = []
  const reader = stream.getReader()
  for (let next = await reader.read(); !next.done; next = await reader.read()) out.push(next.value)
  return out
}

const sortedNames = (spans: ReadonlyArray<{ readonly name: string }>) => spans.map((span) => span.name).sort()

beforeAll(() => {
  // What NodeSDK registers: the active span follows awaits (the AI SDK nests its spans by it).
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable())
})
afterAll(() => {
  context.disable()
})

for (const store of clientStores)
  describe(`svc-client/telemetry against the gateway (${store.name})`, () => {
    const { handle, errors } = useSdkGateway(store)
    let fixture: Omit<Fixture, "traceId">
    let cloud: AssistantCloud
    let threadId: string

    beforeAll(async () => {
      fixture = await makeFixture(handle.current, "sdk-telemetry")
      cloud = new AssistantCloud(apiKeyConfig(fixture, "alice", "ws-a"))
      threadId = (await cloud.threads.create({ last_message_at: new Date(), title: "Lisbon trip" })).thread_id
    })

    /** A provider whose one processor is ours, over our exporter to the gateway (base URL with a trailing slash). */
    const providerFor = (service: string, apiKey = fixture.apiKey) =>
      new BasicTracerProvider({
        resource: resourceFromAttributes({ "service.name": service }),
        spanProcessors: [
          createAssistantCloudSpanProcessor(
            createAssistantCloudTraceExporter({ apiKey, baseUrl: `${handle.current.baseUrl}/` })
          )
        ]
      })

    it("a GenAI span tree reaches /v1/traces, the non-GenAI spans around it never do; the trace and its run read back", async () => {
      const provider = providerFor("trip-planner")
      const tracer = provider.getTracer("trip-planner", "1.0.0")
      const t0 = Date.now() - 5_000
      const at = (ms: number) => new Date(t0 + ms)
      const child = (name: string, options: SpanOptions, parent: ReturnType<typeof tracer.startSpan>) =>
        tracer.startSpan(name, options, trace.setSpan(context.active(), parent))

      // POST /api/chat (HTTP server) > [SELECT threads (db), invoke_agent > [chat gpt-4o-mini, execute_tool get_weather > GET (HTTP client)]]
      const http = tracer.startSpan("POST /api/chat", {
        kind: SpanKind.SERVER,
        startTime: at(0),
        attributes: { "http.request.method": "POST", "http.route": "/api/chat" }
      })
      child("SELECT threads", { startTime: at(5), attributes: { "db.system.name": "postgresql" } }, http).end(at(20))
      const agent = child(
        "invoke_agent trip-planner",
        {
          startTime: at(30),
          attributes: { "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "trip-planner" }
        },
        http
      )
      child(
        "chat gpt-4o-mini",
        {
          kind: SpanKind.CLIENT,
          startTime: at(40),
          attributes: {
            "gen_ai.operation.name": "chat",
            "gen_ai.provider.name": "openai",
            "gen_ai.request.model": "gpt-4o-mini",
            "gen_ai.response.model": "gpt-4o-mini-2024-07-18",
            "gen_ai.usage.input_tokens": 812,
            "gen_ai.usage.output_tokens": 164,
            "gen_ai.conversation.id": threadId,
            "gen_ai.output.messages": JSON.stringify([
              {
                role: "assistant",
                parts: [
                  { type: "text", content: "Let me look at the weather." },
                  { type: "tool_call", id: "call_1", name: "get_weather", arguments: { city: "Lisbon" } }
                ]
              }
            ])
          }
        },
        agent
      ).end(at(940))
      const tool = child(
        "execute_tool get_weather",
        {
          startTime: at(950),
          attributes: {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": "get_weather",
            "gen_ai.tool.call.id": "call_1",
            "gen_ai.tool.call.result": JSON.stringify({ sky: "sunny" })
          }
        },
        agent
      )
      child(
        "GET",
        {
          kind: SpanKind.CLIENT,
          startTime: at(960),
          attributes: { "url.full": "https://weather.example.test/lisbon" }
        },
        tool
      ).end(at(990))
      tool.end(at(1_000))
      agent.end(at(1_010))
      http.end(at(1_020))
      const traceId = http.spanContext().traceId

      await provider.forceFlush()
      await provider.shutdown()

      const { traces } = await cloud.projects.traces.list({ service_name: "trip-planner" })
      expect(traces.map((one) => one.trace_id)).toEqual([traceId])
      // The HTTP root never arrived: the trace is named after its earliest span.
      expect(traces[0]).toMatchObject({
        name: "invoke_agent trip-planner",
        span_count: 3,
        run_count: 1,
        error_count: 0
      })

      const detail = await cloud.projects.traces.get(traceId)
      expect(sortedNames(detail.spans)).toEqual([
        "chat gpt-4o-mini",
        "execute_tool get_weather",
        "invoke_agent trip-planner"
      ])
      const byName = new Map(detail.spans.map((span) => [span.name, span]))
      const agentRead = byName.get("invoke_agent trip-planner")
      const chatRead = byName.get("chat gpt-4o-mini")
      // The tree as it was, the filtered parent named but absent.
      expect(agentRead).toMatchObject({ parent_span_id: http.spanContext().spanId, convention: "gen_ai", role: null })
      expect(agentRead?.service_name).toBe("trip-planner")
      expect(chatRead).toMatchObject({
        parent_span_id: agentRead?.span_id,
        kind: "client",
        duration_ms: 900,
        convention: "gen_ai",
        role: "model_call",
        attributes: { "gen_ai.usage.input_tokens": 812, "gen_ai.conversation.id": threadId }
      })
      expect(byName.get("execute_tool get_weather")).toMatchObject({
        parent_span_id: agentRead?.span_id,
        role: "tool_call",
        run_id: null
      })
      expect(detail.runs).toEqual([expect.objectContaining({ id: chatRead?.run_id, span_id: chatRead?.span_id })])

      const { runs } = await cloud.projects.runs.list({ trace_id: traceId })
      expect(runs).toHaveLength(1)
      const run = await cloud.projects.runs.get(runs[0]?.id ?? "")
      expect(run).toMatchObject({
        thread_id: threadId,
        workspace_id: expect.any(String),
        user_id: "alice",
        status: "completed",
        model_id: "gpt-4o-mini-2024-07-18",
        provider: "openai",
        input_tokens: 812,
        output_tokens: 164,
        duration_ms: 900,
        trace_id: traceId,
        span_id: chatRead?.span_id,
        output_text: "Let me look at the weather.",
        tool_call_count: 1,
        tool_calls: [
          expect.objectContaining({
            tool_name: "get_weather",
            tool_call_id: "call_1",
            tool_args: { city: "Lisbon" },
            tool_result: { sky: "sunny" }
          })
        ]
      })
      // The thread's workspace is alice's: the run is hers.
      expect(run.workspace_id).toBe((await cloud.threads.get(threadId)).workspace_id)
    })

    it("the AI SDK's streamText under an HTTP span: its ai.* spans arrive, the HTTP span does not; toUIMessageStream's start part carries that trace id", async () => {
      const provider = providerFor("ai-sdk-chat")
      const tracer = provider.getTracer("chat-route")
      const model = new MockLanguageModelV3({
        provider: "mock-provider",
        modelId: "mock-model-telemetry",
        doStream: async () => ({
          stream: convertArrayToReadableStream([
            { type: "stream-start", warnings: [] },
            { type: "response-metadata", id: "resp-1", modelId: "mock-model-telemetry", timestamp: new Date() },
            { type: "text-start", id: "t1" },
            { type: "text-delta", id: "t1", delta: "Pack " },
            { type: "text-delta", id: "t1", delta: "sunscreen." },
            { type: "text-end", id: "t1" },
            { type: "finish", finishReason: { unified: "stop", raw: "stop" }, usage: usage(33, 4) }
          ])
        })
      })

      const { traceId, httpSpanId, chunks } = await tracer.startActiveSpan(
        "POST /api/chat",
        { kind: SpanKind.SERVER },
        async (http) => {
          const result = streamText({
            model,
            prompt: "What to pack for Lisbon?",
            experimental_telemetry: { isEnabled: true, tracer, metadata: { "svc.thread_id": threadId } }
          })
          const chunks = await collect<UIMessageChunk>(
            result.toUIMessageStream({
              messageMetadata: withAssistantCloudTraceMetadata(({ part }) =>
                part.type === "finish" ? { finishReason: part.finishReason } : undefined
              )
            })
          )
          http.end()
          return { traceId: http.spanContext().traceId, httpSpanId: http.spanContext().spanId, chunks }
        }
      )

      // The trace id on the start part only; the inner callback's metadata on the finish part.
      expect(chunks[0]).toEqual({ type: "start", messageMetadata: { traceId } })
      expect(chunks.at(-1)).toEqual({ type: "finish", finishReason: "stop", messageMetadata: { finishReason: "stop" } })
      expect(chunks.filter((chunk) => chunk.type === "message-metadata")).toEqual([])
      expect(chunks.flatMap((chunk) => (chunk.type === "text-delta" ? [chunk.delta] : [])).join("")).toBe(
        "Pack sunscreen."
      )

      await provider.forceFlush()
      await provider.shutdown()

      const detail = await cloud.projects.traces.get(traceId)
      expect(sortedNames(detail.spans).map((name) => name.split(" ")[0])).toEqual([
        "ai.streamText",
        "ai.streamText.doStream"
      ])
      expect(detail.spans.some((span) => span.span_id === httpSpanId)).toBe(false)
      const call = detail.spans.find((span) => span.role === "model_call")
      expect(call).toMatchObject({ convention: "ai_sdk", parent_span_id: httpSpanId, service_name: "ai-sdk-chat" })

      const { runs } = await cloud.projects.runs.list({ trace_id: traceId })
      expect(runs).toEqual([
        expect.objectContaining({
          thread_id: threadId,
          user_id: "alice",
          status: "completed",
          model_id: "mock-model-telemetry",
          provider: "mock-provider",
          input_tokens: 33,
          output_tokens: 4,
          total_steps: 1,
          span_id: call?.span_id
        })
      ])
      expect(await cloud.projects.runs.get(runs[0]?.id ?? "")).toMatchObject({ output_text: "Pack sunscreen." })
    })

    it("a key the gateway does not know: the export is refused (forceFlush rejects) and nothing is stored", async () => {
      const provider = providerFor("wrong-key", "sk_not_a_key_of_this_gateway")
      provider
        .getTracer("t")
        .startSpan("chat gpt-4o-mini", { attributes: { "gen_ai.operation.name": "chat", "gen_ai.request.model": "m" } })
        .end()
      await expect(provider.forceFlush()).rejects.toThrow()
      await provider.shutdown().catch(() => undefined)
      expect((await cloud.projects.traces.list({ service_name: "wrong-key" })).traces).toEqual([])
      await apiError(
        new AssistantCloud(
          apiKeyConfig({ ...fixture, apiKey: "sk_not_a_key_of_this_gateway" }, "a", "w")
        ).projects.traces.list(),
        401
      )
    })

    it("the gateway logged no error", () => {
      expect(errors).toEqual([])
    })
  })
