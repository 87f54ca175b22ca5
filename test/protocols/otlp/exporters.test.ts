/**
 * The stock OpenTelemetry exporters (OTLP/HTTP JSON and protobuf, plain and
 * gzip) driven by sdk-trace-base export to a gateway on a real socket; what
 * they sent reads back through the project API, and model calls become runs:
 * a span with GenAI attributes, and the spans the real AI SDK makes (with a
 * mock model, a tool and two steps).
 */
import { context, SpanStatusCode, type Tracer, trace } from "@opentelemetry/api"
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks"
import { OTLPTraceExporter as JsonExporter } from "@opentelemetry/exporter-trace-otlp-http"
import { OTLPTraceExporter as ProtobufExporter } from "@opentelemetry/exporter-trace-otlp-proto"
import { resourceFromAttributes } from "@opentelemetry/resources"
import { BasicTracerProvider, SimpleSpanProcessor, type SpanExporter } from "@opentelemetry/sdk-trace-base"
import { generateText, stepCountIs, tool } from "ai"
import { MockLanguageModelV3 } from "ai/test"
import { beforeAll, describe, expect, it } from "vitest"
import { z } from "zod"
import { asUser, call, createProject, type Reply, stores, useGateway } from "../../support/layers.js"

interface ReadSpan {
  readonly span_id: string
  readonly parent_span_id: string | null
  readonly name: string
  readonly status_code: string
  readonly attributes: Record<string, unknown>
  readonly convention: string | null
  readonly role: string | null
  readonly run_id: string | null
  readonly service_name: string | null
}

const usage = (input: number, output: number) => ({
  inputTokens: { total: input, noCache: input, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: output, text: output, reasoning: undefined }
})

describe.each(stores)("stock OTLP exporters ($name)", (storeUnderTest) => {
  const gateway = useGateway(storeUnderTest)
  let apiKey: string
  let threadId: string
  const read = (path: string): Promise<Reply> =>
    call(gateway.current.baseUrl, "GET", `/v1/projects${path}`, { headers: { authorization: `Bearer ${apiKey}` } })

  beforeAll(async () => {
    // What NodeSDK registers: the active span follows async calls (the AI SDK nests its spans by it).
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable())
    const project = await createProject(gateway.current, "exporters")
    apiKey = project.api_key
    const thread = await asUser(
      gateway.current,
      apiKey,
      "user-9",
      "ws-9"
    )("POST", "/threads", {
      body: { last_message_at: new Date().toISOString() }
    })
    threadId = thread.body.thread_id
  })

  /** A provider exporting every span at its end through `exporter`, with a service name. */
  const providerFor = (exporter: SpanExporter, service: string) =>
    new BasicTracerProvider({
      resource: resourceFromAttributes({ "service.name": service }),
      spanProcessors: [new SimpleSpanProcessor(exporter)]
    })

  const exporterConfig = (compression: "gzip" | "none") => ({
    url: `${gateway.current.baseUrl}/v1/traces`,
    headers: { authorization: `Bearer ${apiKey}` },
    ...(compression === "gzip" ? { compression: "gzip" as never } : {})
  })

  const variants = [
    { label: "OTLP/JSON", make: (c: "gzip" | "none") => new JsonExporter(exporterConfig(c)) },
    { label: "protobuf", make: (c: "gzip" | "none") => new ProtobufExporter(exporterConfig(c)) }
  ] as const

  for (const variant of variants) {
    for (const compression of ["none", "gzip"] as const) {
      it(`${variant.label} (${compression}): spans read back as sent, the chat span as one run`, async () => {
        const service = `svc-${variant.label}-${compression}`
        const provider = providerFor(variant.make(compression), service)
        const tracer = provider.getTracer("exporters-test", "2.0.0")
        let traceId = ""
        tracer.startActiveSpan("handle request", { attributes: { "http.route": "/chat" } }, (root) => {
          traceId = root.spanContext().traceId
          const parent = trace.setSpan(context.active(), root)
          const chat = tracer.startSpan(
            "chat gpt-4o-mini",
            {
              attributes: {
                "gen_ai.operation.name": "chat",
                "gen_ai.provider.name": "openai",
                "gen_ai.request.model": "gpt-4o-mini",
                "gen_ai.usage.input_tokens": 120,
                "gen_ai.usage.output_tokens": 30,
                "gen_ai.conversation.id": threadId
              }
            },
            parent
          )
          chat.addEvent("gen_ai.client.inference.operation.details", {
            "gen_ai.output.messages": JSON.stringify([{ role: "assistant", parts: [{ type: "text", content: "Hi!" }] }])
          })
          chat.end()
          const failing = tracer.startSpan("lookup", {}, parent)
          failing.setStatus({ code: SpanStatusCode.ERROR, message: "not found" })
          failing.end()
          root.end()
        })
        await provider.forceFlush()
        await provider.shutdown()
        const reply = await read(`/traces/${traceId}`)
        expect(reply.status, reply.text).toBe(200)
        const spans = reply.body.spans as Array<ReadSpan>
        const byName = new Map(spans.map((span) => [span.name, span]))
        const root = byName.get("handle request")
        const chat = byName.get("chat gpt-4o-mini")
        expect(spans).toHaveLength(3)
        expect(root).toMatchObject({
          parent_span_id: null,
          attributes: { "http.route": "/chat" },
          service_name: service
        })
        expect(chat).toMatchObject({
          parent_span_id: root?.span_id,
          convention: "gen_ai",
          role: "model_call",
          attributes: { "gen_ai.usage.input_tokens": 120 }
        })
        expect(byName.get("lookup")).toMatchObject({ parent_span_id: root?.span_id, status_code: "error" })
        expect(reply.body.trace).toMatchObject({ name: "handle request", service_name: service, error_count: 1 })
        const run = await read(`/runs/${chat?.run_id}`)
        expect(run.body).toMatchObject({
          thread_id: threadId,
          model_id: "gpt-4o-mini",
          provider: "openai",
          input_tokens: 120,
          output_tokens: 30,
          output_text: "Hi!",
          trace_id: traceId,
          span_id: chat?.span_id
        })
      })
    }
  }

  it("the AI SDK's telemetry (generateText with a tool, two steps) becomes one run with its steps and tool call", async () => {
    const provider = providerFor(new ProtobufExporter(exporterConfig("gzip")), "ai-sdk-app")
    const tracer: Tracer = provider.getTracer("ai")
    const model = new MockLanguageModelV3({
      provider: "mock-provider",
      modelId: "mock-model-1",
      doGenerate: [
        {
          content: [{ type: "tool-call", toolCallId: "call-1", toolName: "weather", input: '{"city":"Paris"}' }],
          finishReason: { unified: "tool-calls", raw: "tool_calls" },
          usage: usage(11, 7),
          warnings: []
        },
        {
          content: [{ type: "text", text: "It is sunny in Paris." }],
          finishReason: { unified: "stop", raw: "stop" },
          usage: usage(25, 9),
          warnings: []
        }
      ]
    })
    const result = await generateText({
      model,
      prompt: "Weather in Paris?",
      tools: {
        weather: tool({
          description: "The weather in a city",
          inputSchema: z.object({ city: z.string() }),
          execute: async ({ city }) => ({ city, sky: "sunny" })
        })
      },
      stopWhen: stepCountIs(2),
      experimental_telemetry: { isEnabled: true, tracer, metadata: { threadId } }
    })
    expect(result.text).toBe("It is sunny in Paris.")
    await provider.forceFlush()
    await provider.shutdown()
    const runs = await read(`/runs?thread_id=${threadId}&model_id=mock-model-1`)
    expect(runs.body.runs, runs.text).toHaveLength(1)
    const run = await read(`/runs/${runs.body.runs[0].id}`)
    expect(run.body).toMatchObject({
      thread_id: threadId,
      model_id: "mock-model-1",
      provider: "mock-provider",
      input_tokens: 36,
      output_tokens: 16,
      total_steps: 2,
      output_text: "It is sunny in Paris.",
      tool_call_count: 1,
      tool_calls: [
        expect.objectContaining({
          tool_name: "weather",
          tool_call_id: "call-1",
          tool_args: { city: "Paris" },
          tool_result: { city: "Paris", sky: "sunny" }
        })
      ],
      attributes: { convention: "ai_sdk" }
    })
    const trace = await read(`/traces/${run.body.trace_id}`)
    const roles = (trace.body.spans as Array<ReadSpan>).map((span) => [span.name.split(" ")[0], span.role])
    expect(roles.filter(([, role]) => role === "model_call")).toEqual([["ai.generateText", "model_call"]])
    expect(roles.filter(([, role]) => role === "model_step")).toHaveLength(2)
    expect(roles.filter(([, role]) => role === "tool_call")).toEqual([["ai.toolCall", "tool_call"]])
  })
})
