/**
 * The stock OTLP/HTTP exporters sending an export over the receiver's 4 MiB
 * cap. They send it chunked (no Content-Length), and treat a reset as
 * retryable: a server that cuts the connection instead of letting them read
 * the 413 gets the same batch up to five more times. The 413 is final for
 * them: one request, one failed export. The exporters reach the gateway
 * through a relay (test/support/relay-proxy.ts: a network hop, which passes a reset
 * on as a reset) that counts their requests. The embedded store only: the
 * subject is the transport.
 */
import { OTLPTraceExporter as JsonExporter } from "@opentelemetry/exporter-trace-otlp-http"
import { OTLPTraceExporter as ProtobufExporter } from "@opentelemetry/exporter-trace-otlp-proto"
import { resourceFromAttributes } from "@opentelemetry/resources"
import { BasicTracerProvider, SimpleSpanProcessor, type SpanExporter } from "@opentelemetry/sdk-trace-base"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { TRACES_PATH } from "../../../schema/Trace.js"
import { createProject, pglite, useGateway } from "../../support/layers.js"
import { type RelayProxy, startRelayProxy } from "../../support/relay-proxy.js"

const MiB = 1024 * 1024

type ExportResult = Parameters<Parameters<SpanExporter["export"]>[1]>[0]

/** `inner`, keeping the result of every export. */
const recording = (inner: SpanExporter) => {
  const results: Array<ExportResult> = []
  const exporter: SpanExporter = {
    export: (spans, done) =>
      inner.export(spans, (result) => {
        results.push(result)
        done(result)
      }),
    shutdown: () => inner.shutdown(),
    forceFlush: () => inner.forceFlush?.() ?? Promise.resolve()
  }
  return { exporter, results }
}

describe("stock OTLP exporters over the 4 MiB cap (pglite)", () => {
  const gateway = useGateway(pglite)
  let proxy: RelayProxy
  let apiKey: string

  beforeAll(async () => {
    apiKey = (await createProject(gateway.current, "oversize-exports")).api_key
    proxy = await startRelayProxy(gateway.current.baseUrl, { method: "POST", path: TRACES_PATH })
  })
  afterAll(() => proxy.close())

  const variants = [
    { label: "OTLP/JSON", make: (url: string, headers: Record<string, string>) => new JsonExporter({ url, headers }) },
    {
      label: "protobuf",
      make: (url: string, headers: Record<string, string>) => new ProtobufExporter({ url, headers })
    }
  ] as const

  for (const variant of variants) {
    // Just over the cap, and 2 MiB over it (the part after the cap is more than the 64 KiB a cut allows).
    for (const attributeBytes of [4 * MiB, 6 * MiB]) {
      it(`${variant.label}, one span with a ${attributeBytes / MiB} MiB attribute: one request, a 413, no retry`, async () => {
        const { exporter, results } = recording(
          variant.make(`${proxy.url}${TRACES_PATH}`, { authorization: `Bearer ${apiKey}` })
        )
        const provider = new BasicTracerProvider({
          resource: resourceFromAttributes({ "service.name": "oversize" }),
          spanProcessors: [new SimpleSpanProcessor(exporter)]
        })
        const before = proxy.requests()
        const started = Date.now()
        provider
          .getTracer("oversize-test")
          .startSpan("big", { attributes: { blob: "x".repeat(attributeBytes) } })
          .end()
        // The processor hands a failed export to the global error handler, which may throw it here: the result
        // recorded above is what is checked.
        await provider.forceFlush().catch(() => undefined)
        const took = Date.now() - started
        await provider.shutdown()
        const result = results[0]
        const error = result?.error
        const story = `${proxy.requests() - before} request(s) in ${took} ms; result: ${
          error === undefined ? "none" : `${error.name} ${error.message}`
        } ${error !== undefined && "code" in error ? `code ${String(error.code)}` : ""}`
        expect(results, story).toHaveLength(1)
        expect(error !== undefined && "code" in error ? error.code : undefined, story).toBe(413)
        expect(proxy.requests() - before, story).toBe(1)
      }, 30_000)
    }
  }
})
