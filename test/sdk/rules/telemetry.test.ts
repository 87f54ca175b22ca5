/**
 * docs/client-library.md "Building blocks" (the `./telemetry` entry) and docs/decisions.md
 * "Client building blocks (svc-client, issue 14)" (its telemetry bullet), over the real
 * OpenTelemetry SDK: spans from a BasicTracerProvider, the real batch
 * processor and an in-memory exporter, the real OTLP/HTTP exporter against a
 * recording HTTP server, and the async-hooks context manager for the active
 * span. The gateway end of it is test/sdk/blocks-telemetry.test.ts.
 */
import { once } from "node:events"
import { createServer, type IncomingHttpHeaders, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { fileURLToPath } from "node:url"
import { type Attributes, context, diag, INVALID_SPAN_CONTEXT, type Span, trace } from "@opentelemetry/api"
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks"
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http"
import {
  BasicTracerProvider,
  BatchSpanProcessor,
  InMemorySpanExporter,
  type ReadableSpan,
  type SpanProcessor
} from "@opentelemetry/sdk-trace-base"
import * as esbuild from "esbuild"
import {
  assistantCloudTraceExportOptions,
  assistantCloudTraceMetadata,
  createAssistantCloudSpanProcessor,
  createAssistantCloudTraceExporter,
  isAssistantCloudSpan,
  withAssistantCloudTraceMetadata
} from "svc-client/telemetry"
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest"

beforeAll(() => {
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable())
})
afterAll(() => {
  context.disable()
})
afterEach(() => {
  vi.restoreAllMocks()
})

const names = (spans: ReadonlyArray<ReadableSpan>) => spans.map((span) => span.name)

/** An in-memory exporter that counts its shutdowns and keeps what it exported past them (its own list is cleared). */
class RecordingExporter extends InMemorySpanExporter {
  shutdowns = 0
  readonly exported: Array<string> = []
  override export(spans: Array<ReadableSpan>, done: Parameters<InMemorySpanExporter["export"]>[1]): void {
    if (!this._stopped) this.exported.push(...names(spans))
    super.export(spans, done)
  }
  override shutdown(): Promise<void> {
    this.shutdowns++
    return super.shutdown()
  }
}

/** A tracer provider whose only processor is `processor`. */
const providerWith = (processor: SpanProcessor) => new BasicTracerProvider({ spanProcessors: [processor] })

/** Starts and ends a span now. */
const endSpan = (provider: BasicTracerProvider, name: string, attributes: Record<string, string | number> = {}) =>
  provider.getTracer("rules").startSpan(name, { attributes }).end()

/** A span's name and attributes, as isAssistantCloudSpan reads them. */
const named = (name: string, attributes: Attributes = {}) => ({ name, attributes })

describe("assistantCloudTraceExportOptions", () => {
  it("URL: <base without trailing slashes>/v1/traces", () => {
    for (const [baseUrl, url] of [
      ["https://gw.example.test", "https://gw.example.test/v1/traces"],
      ["https://gw.example.test/", "https://gw.example.test/v1/traces"],
      ["https://gw.example.test///", "https://gw.example.test/v1/traces"],
      ["https://gw.example.test/prefix//", "https://gw.example.test/prefix/v1/traces"]
    ] as const)
      expect(assistantCloudTraceExportOptions({ apiKey: "sk_1", baseUrl }).url).toBe(url)
  })

  it("URL: without a base URL, the API key arm's default backend (http://localhost:8787)", () => {
    expect(assistantCloudTraceExportOptions({ apiKey: "sk_1" })).toEqual({
      url: "http://localhost:8787/v1/traces",
      headers: { Authorization: "Bearer sk_1" }
    })
    expect(assistantCloudTraceExportOptions({ apiKey: "sk_1", baseUrl: undefined }).url).toBe(
      "http://localhost:8787/v1/traces"
    )
  })

  it("Authorization: Bearer <apiKey>, and the caller's other headers beside it", () => {
    expect(
      assistantCloudTraceExportOptions({
        apiKey: "sk_1",
        baseUrl: "https://gw.example.test",
        headers: { "X-Team": "a" }
      })
    ).toEqual({ url: "https://gw.example.test/v1/traces", headers: { Authorization: "Bearer sk_1", "X-Team": "a" } })
  })

  it("caller headers override: an Authorization of the caller's (in any case) replaces ours", () => {
    expect(
      assistantCloudTraceExportOptions({ apiKey: "sk_1", headers: { Authorization: "Bearer other" } }).headers
    ).toEqual({ Authorization: "Bearer other" })
    expect(
      assistantCloudTraceExportOptions({ apiKey: "sk_1", headers: { authorization: "Basic x", "x-b": "1" } }).headers
    ).toEqual({ authorization: "Basic x", "x-b": "1" })
  })

  it("the caller's headers object is not changed", () => {
    const headers = { "X-Team": "a" }
    const options = assistantCloudTraceExportOptions({ apiKey: "sk_1", headers })
    options.headers["X-Other"] = "b"
    expect(headers).toEqual({ "X-Team": "a" })
  })

  it("an empty key throws `A service API key is required`", () => {
    expect(() => assistantCloudTraceExportOptions({ apiKey: "" })).toThrow(new Error("A service API key is required"))
    expect(() => createAssistantCloudTraceExporter({ apiKey: "", baseUrl: "https://gw.example.test" })).toThrow(
      "A service API key is required"
    )
    // A JavaScript caller's missing key, the same.
    const missing = JSON.parse("{}") as { apiKey: string }
    expect(() => assistantCloudTraceExportOptions(missing)).toThrow("A service API key is required")
  })
})

/** An HTTP server recording each request and answering an empty OTLP/JSON response. */
const recordingServer = async () => {
  const requests: Array<{ method: string; url: string; headers: IncomingHttpHeaders; body: string }> = []
  const server: Server = createServer((request, response) => {
    const chunks: Array<Buffer> = []
    request.on("data", (chunk: Buffer) => chunks.push(chunk))
    request.on("end", () => {
      requests.push({
        method: request.method ?? "",
        url: request.url ?? "",
        headers: request.headers,
        body: Buffer.concat(chunks).toString("utf8")
      })
      response.writeHead(200, { "content-type": "application/json" }).end("{}")
    })
  })
  server.listen(0, "127.0.0.1")
  await once(server, "listening")
  const { port } = server.address() as AddressInfo
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    requests,
    close: () => {
      server.closeAllConnections()
      server.close()
    }
  }
}

describe("createAssistantCloudTraceExporter", () => {
  it("returns a stock OTLP/HTTP exporter, sending OTLP/JSON to <base>/v1/traces with the bearer", async () => {
    const server = await recordingServer()
    try {
      const exporter = createAssistantCloudTraceExporter({
        apiKey: "sk_export",
        baseUrl: `${server.baseUrl}/`,
        headers: { "X-Team": "rules" }
      })
      expect(exporter).toBeInstanceOf(OTLPTraceExporter)
      const provider = providerWith(new BatchSpanProcessor(exporter))
      endSpan(provider, "chat gpt-4o-mini", { "gen_ai.operation.name": "chat" })
      await provider.forceFlush()
      await provider.shutdown()
      expect(server.requests).toHaveLength(1)
      const [request] = server.requests
      expect([request?.method, request?.url]).toEqual(["POST", "/v1/traces"])
      expect(request?.headers.authorization).toBe("Bearer sk_export")
      expect(request?.headers["x-team"]).toBe("rules")
      expect(request?.headers["content-type"]).toBe("application/json")
      const body = JSON.parse(request?.body ?? "{}") as {
        resourceSpans: Array<{ scopeSpans: Array<{ spans: Array<{ name: string }> }> }>
      }
      expect(body.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans.map((span) => span.name)))).toEqual([
        "chat gpt-4o-mini"
      ])
    } finally {
      server.close()
    }
  })
})

describe("isAssistantCloudSpan", () => {
  it("a string `gen_ai.operation.name` attribute makes a GenAI span, whatever its name", () => {
    expect(isAssistantCloudSpan(named("chat gpt-4o-mini", { "gen_ai.operation.name": "chat" }))).toBe(true)
    expect(isAssistantCloudSpan(named("invoke_agent", { "gen_ai.operation.name": "invoke_agent" }))).toBe(true)
    expect(isAssistantCloudSpan(named("anything", { "gen_ai.operation.name": "" }))).toBe(true)
    // Not a string: not the attribute the rule names.
    expect(isAssistantCloudSpan(named("anything", { "gen_ai.operation.name": 1 }))).toBe(false)
    expect(isAssistantCloudSpan(named("anything", { "gen_ai.operation.name": ["chat"] }))).toBe(false)
    // Other gen_ai attributes alone do not.
    expect(isAssistantCloudSpan(named("anything", { "gen_ai.request.model": "gpt-4o-mini" }))).toBe(false)
  })

  it("a name starting `gen_ai.`, `ai.` or `llm.` makes a GenAI span", () => {
    for (const name of ["gen_ai.client", "ai.streamText", "ai.streamText.doStream", "ai.toolCall", "llm.generate"])
      expect(isAssistantCloudSpan(named(name)), name).toBe(true)
    for (const name of ["GET /api/chat", "chat gpt-4o-mini", "gen_ai", "ai", "AI.streamText", "Gen_AI.x", "x.ai.y", ""])
      expect(isAssistantCloudSpan(named(name)), name).toBe(false)
  })

  it("reads ended spans of the real SDK", async () => {
    const exporter = new InMemorySpanExporter()
    const provider = providerWith(new BatchSpanProcessor(exporter))
    endSpan(provider, "ai.generateText")
    endSpan(provider, "GET /health")
    await provider.forceFlush()
    expect(exporter.getFinishedSpans().map(isAssistantCloudSpan)).toEqual([true, false])
  })
})

describe("createAssistantCloudSpanProcessor", () => {
  it("wraps a batch processor: ended spans wait for the batch, forceFlush exports them", async () => {
    const exporter = new InMemorySpanExporter()
    const provider = providerWith(createAssistantCloudSpanProcessor(exporter))
    endSpan(provider, "ai.streamText")
    expect(exporter.getFinishedSpans()).toEqual([])
    await provider.forceFlush()
    expect(names(exporter.getFinishedSpans())).toEqual(["ai.streamText"])
  })

  it("filters at onEnd with isAssistantCloudSpan by default: other spans are never exported", async () => {
    const exporter = new RecordingExporter()
    const provider = providerWith(createAssistantCloudSpanProcessor(exporter))
    const tracer = provider.getTracer("rules")
    tracer.startActiveSpan("POST /api/chat", (http) => {
      tracer.startActiveSpan("invoke_agent", { attributes: { "gen_ai.operation.name": "invoke_agent" } }, (agent) => {
        endSpan(provider, "chat gpt-4o-mini", { "gen_ai.operation.name": "chat" })
        endSpan(provider, "SELECT threads")
        agent.end()
      })
      http.end()
    })
    await provider.forceFlush()
    await provider.shutdown()
    expect(exporter.exported).toEqual(["chat gpt-4o-mini", "invoke_agent"])
  })

  it("filters at onEnd: the span as it ended counts, not as it started", async () => {
    const exporter = new InMemorySpanExporter()
    const provider = providerWith(createAssistantCloudSpanProcessor(exporter))
    const tracer = provider.getTracer("rules")
    const late = tracer.startSpan("step")
    late.setAttribute("gen_ai.operation.name", "chat")
    late.end()
    const renamed = tracer.startSpan("ai.streamText")
    renamed.updateName("render")
    renamed.end()
    await provider.forceFlush()
    expect(names(exporter.getFinishedSpans())).toEqual(["step"])
  })

  it("filter: a custom filter replaces the default one", async () => {
    const exporter = new InMemorySpanExporter()
    const seen: Array<string> = []
    const provider = providerWith(
      createAssistantCloudSpanProcessor(exporter, {
        filter: (span) => {
          seen.push(span.name)
          return span.name === "custom"
        }
      })
    )
    endSpan(provider, "ai.streamText")
    endSpan(provider, "custom")
    await provider.forceFlush()
    expect(seen).toEqual(["ai.streamText", "custom"])
    expect(names(exporter.getFinishedSpans())).toEqual(["custom"])
  })

  it("a filter that throws drops the span, reported through diag; ending the span does not throw", async () => {
    const exporter = new InMemorySpanExporter()
    const reported = vi.spyOn(diag, "error")
    const provider = providerWith(
      createAssistantCloudSpanProcessor(exporter, {
        filter: (span) => {
          if (span.name === "bad") throw new Error("filter broke")
          return true
        }
      })
    )
    expect(() => endSpan(provider, "bad")).not.toThrow()
    endSpan(provider, "good")
    await provider.forceFlush()
    expect(names(exporter.getFinishedSpans())).toEqual(["good"])
    expect(reported).toHaveBeenCalledTimes(1)
  })

  it("onStart, forceFlush and shutdown are the batch processor's: shutdown exports what waits, then shuts the exporter", async () => {
    const started = vi.spyOn(BatchSpanProcessor.prototype, "onStart")
    const exporter = new RecordingExporter()
    const processor = createAssistantCloudSpanProcessor(exporter)
    const provider = providerWith(processor)
    const span: Span = provider.getTracer("rules").startSpan("ai.generateText")
    expect(started).toHaveBeenCalledTimes(1)
    expect(started.mock.calls[0]?.[0]).toBe(span)
    span.end()
    expect(exporter.exported).toEqual([])
    await processor.shutdown()
    expect(exporter.exported).toEqual(["ai.generateText"])
    expect(exporter.shutdowns).toBe(1)
    // A second shutdown is the batch processor's one shutdown.
    await processor.shutdown()
    expect(exporter.shutdowns).toBe(1)
  })
})

describe("assistantCloudTraceMetadata", () => {
  const tracer = () => new BasicTracerProvider().getTracer("rules")

  it("{ traceId } of the active span", () => {
    const [traceId, metadata] = tracer().startActiveSpan("invoke_agent", (span) => {
      const result = [span.spanContext().traceId, assistantCloudTraceMetadata()] as const
      span.end()
      return result
    })
    expect(traceId).toMatch(/^[0-9a-f]{32}$/)
    expect(metadata).toEqual({ traceId })
  })

  it("{ traceId } of the active span after an await (the async context manager)", async () => {
    const [traceId, metadata] = await tracer().startActiveSpan("invoke_agent", async (span) => {
      await new Promise((resolve) => setTimeout(resolve, 5))
      const result = [span.spanContext().traceId, assistantCloudTraceMetadata()] as const
      span.end()
      return result
    })
    expect(metadata).toEqual({ traceId })
  })

  it("{ traceId } of a valid remote context made active (a non-recording span)", () => {
    const remote = { traceId: "0af7651916cd43dd8448eb211c80319c", spanId: "b7ad6b7169203331", traceFlags: 1 }
    expect(context.with(trace.setSpanContext(context.active(), remote), assistantCloudTraceMetadata)).toEqual({
      traceId: remote.traceId
    })
  })

  it("{} without an active span, and for an active span whose context is not valid", () => {
    expect(assistantCloudTraceMetadata()).toEqual({})
    expect(
      context.with(trace.setSpanContext(context.active(), INVALID_SPAN_CONTEXT), assistantCloudTraceMetadata)
    ).toEqual({})
    const zeroSpanId = { traceId: "0af7651916cd43dd8448eb211c80319c", spanId: "0000000000000000", traceFlags: 1 }
    expect(context.with(trace.setSpanContext(context.active(), zeroSpanId), assistantCloudTraceMetadata)).toEqual({})
  })
})

describe("withAssistantCloudTraceMetadata", () => {
  const inSpan = <A>(run: (traceId: string) => A): A =>
    new BasicTracerProvider().getTracer("rules").startActiveSpan("invoke_agent", (span) => {
      try {
        return run(span.spanContext().traceId)
      } finally {
        span.end()
      }
    })

  it("adds the trace id to `start` parts, over the inner callback's metadata", () => {
    const metadata = withAssistantCloudTraceMetadata(({ part }) => ({ kind: part.type, model: "m" }))
    inSpan((traceId) => {
      expect(metadata({ part: { type: "start" } })).toEqual({ kind: "start", model: "m", traceId })
    })
  })

  it("adds the trace id to `start` parts without an inner callback, or when it gives undefined", () => {
    inSpan((traceId) => {
      expect(withAssistantCloudTraceMetadata()({ part: { type: "start" } })).toEqual({ traceId })
      expect(withAssistantCloudTraceMetadata(() => undefined)({ part: { type: "start" } })).toEqual({ traceId })
    })
  })

  it("the active trace id wins over a traceId of the inner callback on `start`", () => {
    inSpan((traceId) => {
      expect(withAssistantCloudTraceMetadata(() => ({ traceId: "mine" }))({ part: { type: "start" } })).toEqual({
        traceId
      })
    })
  })

  it("start parts only: other parts get the inner callback's metadata as it is, even with an active span", () => {
    const finish = { usage: { totalTokens: 42 } }
    const calls: Array<string> = []
    const metadata = withAssistantCloudTraceMetadata(({ part }) => {
      calls.push(part.type)
      return part.type === "finish" ? finish : undefined
    })
    inSpan(() => {
      expect(metadata({ part: { type: "finish" } })).toBe(finish)
      expect(metadata({ part: { type: "text-delta" } })).toBeUndefined()
      expect(metadata({ part: { type: "start-step" } })).toBeUndefined()
      expect(withAssistantCloudTraceMetadata()({ part: { type: "finish" } })).toBeUndefined()
    })
    expect(calls).toEqual(["finish", "text-delta", "start-step"])
  })

  it("a `start` part without an active span gets the inner callback's metadata as it is", () => {
    const started = { started: true }
    expect(withAssistantCloudTraceMetadata(() => started)({ part: { type: "start" } })).toBe(started)
    expect(withAssistantCloudTraceMetadata()({ part: { type: "start" } })).toBeUndefined()
  })
})

describe("the OpenTelemetry peers", () => {
  const bundle = async (entry: string) => {
    const result = await esbuild.build({
      entryPoints: [fileURLToPath(new URL(`../../../sdk/${entry}.ts`, import.meta.url))],
      bundle: true,
      format: "esm",
      platform: "browser",
      write: false,
      metafile: true,
      external: ["ai", "@opentelemetry/*", "effect", "effect/*", "@effect/platform", "@effect/platform/*"],
      logLevel: "silent"
    })
    return Object.values(result.metafile.outputs).flatMap((output) => output.imports.map((imported) => imported.path))
  }

  it("the main entry imports no @opentelemetry package; ./telemetry imports the three peers, left external", async () => {
    expect((await bundle("index")).filter((path) => path.startsWith("@opentelemetry/"))).toEqual([])
    expect([...new Set(await bundle("telemetry"))].sort()).toEqual([
      "@opentelemetry/api",
      "@opentelemetry/exporter-trace-otlp-http",
      "@opentelemetry/sdk-trace-base"
    ])
  })
})
