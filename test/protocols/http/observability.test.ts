/**
 * The gateway's own observability, through real HTTP: Prometheus /metrics,
 * X-Request-Id, OTLP traces to a fake collector, and log lines without
 * secrets.
 */
import { createServer, type IncomingHttpHeaders } from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, describe, expect, it } from "vitest"
import { asUser, call, captureConsole, createProject, pglite, stores, useGateway } from "../../support/layers.js"

interface Sample {
  readonly name: string
  readonly labels: Record<string, string>
  readonly value: number
}

/** The samples of a Prometheus text exposition (comments skipped); fails on a line it cannot read. */
const parseExposition = (text: string): Array<Sample> =>
  text
    .split("\n")
    .filter((line) => line !== "" && !line.startsWith("#"))
    .map((line) => {
      const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line)
      if (match === null) throw new Error(`not an exposition line: ${line}`)
      const labels: Record<string, string> = {}
      for (const pair of (match[2] ?? "").matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) {
        labels[pair[1] ?? ""] = pair[2] ?? ""
      }
      return { name: match[1] ?? "", labels, value: Number(match[3]) }
    })

const sample = (samples: Array<Sample>, name: string, labels: Record<string, string>) =>
  samples.find(
    (entry) => entry.name === name && Object.entries(labels).every(([key, value]) => entry.labels[key] === value)
  )

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

for (const storeUnderTest of stores) {
  describe(`metrics and request ids (${storeUnderTest.name})`, () => {
    const gateway = useGateway(storeUnderTest)

    it("counts requests by route template and status, with process, background and pool figures", async () => {
      const { api_key } = await createProject(gateway.current)
      const client = asUser(gateway.current, api_key, "u1", "w1")
      const missing = await client("GET", "/threads/thr_does_not_exist_1234")
      expect(missing.status).toBe(404)
      expect((await call(gateway.current.baseUrl, "GET", "/no/such/route/abc123")).status).toBe(404)
      // A CORS preflight on a project's frontend URL is labelled with the route it asks about.
      const preflight = await call(gateway.current.baseUrl, "OPTIONS", "/p/proj_x/v1/threads/thr_1/messages", {
        headers: { origin: "https://app.example", "access-control-request-method": "POST" }
      })
      expect(preflight.status).toBe(403)

      const reply = await call(gateway.current.baseUrl, "GET", "/metrics")
      expect(reply.status).toBe(200)
      expect(reply.headers.get("content-type")).toMatch(/^text\/plain; version=0\.0\.4/)
      const samples = parseExposition(reply.text)
      const threads = { method: "GET", route: "/v1/threads/:thread_id", status: "404" }
      const COUNT = "http_server_request_duration_seconds_count"
      expect(sample(samples, COUNT, threads)?.value).toBe(1)
      expect(sample(samples, "http_server_request_duration_seconds_bucket", { ...threads, le: "+Inf" })?.value).toBe(1)
      const created = { method: "POST", route: "/v1/admin/projects", status: "201" }
      expect(sample(samples, COUNT, created)?.value).toBe(1)
      const unmatched = { method: "GET", route: "unmatched", status: "404" }
      expect(sample(samples, COUNT, unmatched)?.value).toBe(1)
      const asked = { method: "OPTIONS", route: "/p/:project_id/v1/threads/:thread_id/messages", status: "403" }
      expect(sample(samples, COUNT, asked)?.value).toBe(1)
      // Never a raw path as a label: ids and unknown paths would make a series each.
      expect(reply.text).not.toContain("thr_does_not_exist_1234")
      expect(reply.text).not.toContain("abc123")
      expect(sample(samples, "process_cpu_user_seconds_total", {})).toBeDefined()
      expect(sample(samples, "nodejs_eventloop_lag_seconds", {})).toBeDefined()
      expect(sample(samples, "svc_background_lag_seconds", { job: "usage_flush" })?.value).toBeGreaterThanOrEqual(0)
      expect(sample(samples, "svc_background_pending_items", { job: "usage_flush" })).toBeDefined()
      expect(sample(samples, "svc_log_lines_dropped", {})?.value).toBe(0)
      const pool = sample(samples, "svc_db_pool_max_connections", {})
      if (storeUnderTest.name === "postgres") {
        expect(pool?.value).toBe(5)
        const idle = sample(samples, "svc_db_pool_connections", { state: "idle" })?.value ?? -1
        const busy = sample(samples, "svc_db_pool_connections", { state: "busy" })?.value ?? -1
        expect(idle).toBeGreaterThanOrEqual(0)
        expect(busy).toBeGreaterThanOrEqual(0)
        expect(idle + busy).toBeLessThanOrEqual(5)
        expect(sample(samples, "svc_db_pool_waiting_requests", {})?.value).toBeGreaterThanOrEqual(0)
      } else {
        // The embedded store has no pool: nothing is reported rather than a made-up figure.
        expect(pool).toBeUndefined()
      }
      // A scrape is counted under its own route (on the next scrape).
      const next = parseExposition((await call(gateway.current.baseUrl, "GET", "/metrics")).text)
      expect(sample(next, COUNT, { route: "/metrics", status: "200" })?.value).toBe(1)
    })

    it("is not part of the REST API (no OpenAPI entry)", async () => {
      const openapi = await call(gateway.current.baseUrl, "GET", "/v1/openapi.json")
      expect(Object.keys(openapi.body.paths)).not.toContain("/metrics")
      expect(Object.keys(openapi.body.paths)).toContain("/v1/threads")
    })

    it("answers every response with an X-Request-Id: generated, or the caller's when it is sane", async () => {
      const base = gateway.current.baseUrl
      const generated = await call(base, "GET", "/v1/threads")
      expect(generated.status).toBe(401)
      expect(generated.headers.get("x-request-id")).toMatch(UUID)
      const other = await call(base, "GET", "/v1/threads")
      expect(other.headers.get("x-request-id")).not.toBe(generated.headers.get("x-request-id"))

      const kept = "req-42_ABC.def:7/x"
      for (const path of ["/v1/threads", "/nope", "/readyz", "/healthz", "/metrics"]) {
        const reply = await call(base, "GET", path, { headers: { "x-request-id": kept } })
        expect(reply.headers.get("x-request-id"), path).toBe(kept)
      }
      for (const insane of ["has space", "x".repeat(129), 'quote"d\tand tabbed']) {
        const reply = await call(base, "GET", "/v1/threads", { headers: { "x-request-id": insane } })
        expect(reply.headers.get("x-request-id"), insane).toMatch(UUID)
      }
      expect((await call(base, "GET", "/healthz")).headers.get("x-request-id")).toMatch(UUID)
    })
  })
}

describe("metrics with a token", () => {
  const token = "metrics-token-0123456789abcdef"
  const gateway = useGateway(pglite, { METRICS_TOKEN: token })

  it("answers 401 without the bearer token or with another, 200 with it", async () => {
    const base = gateway.current.baseUrl
    const none = await call(base, "GET", "/metrics")
    expect(none.status).toBe(401)
    expect(none.body.error).toBe("unauthorized")
    expect(none.text).not.toContain("http_server_request_duration_seconds")
    const wrong = await call(base, "GET", "/metrics", { headers: { authorization: `Bearer ${token}x` } })
    expect(wrong.status).toBe(401)
    const short = await call(base, "GET", "/metrics", { headers: { authorization: "Bearer m" } })
    expect(short.status).toBe(401)
    const right = await call(base, "GET", "/metrics", { headers: { authorization: `Bearer ${token}` } })
    expect(right.status).toBe(200)
    expect(right.text).toContain("http_server_request_duration_seconds")
  })
})

describe("metrics disabled", () => {
  const gateway = useGateway(pglite, { METRICS_ENABLED: "false" })

  it("has no /metrics route", async () => {
    expect((await call(gateway.current.baseUrl, "GET", "/metrics")).status).toBe(404)
  })
})

/** A fake OTLP/HTTP collector: keeps what is POSTed to /v1/traces. */
const startCollector = async () => {
  const received: Array<{ readonly headers: IncomingHttpHeaders; readonly body: Buffer }> = []
  const server = createServer((request, response) => {
    const chunks: Array<Buffer> = []
    request.on("data", (chunk: Buffer) => chunks.push(chunk))
    request.on("end", () => {
      if (request.url === "/v1/traces") received.push({ headers: request.headers, body: Buffer.concat(chunks) })
      response.writeHead(200, { "content-type": "application/json" }).end("{}")
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve()))
  }
}

interface OtlpSpan {
  readonly traceId: string
  readonly spanId: string
  readonly parentSpanId?: string
  readonly name: string
  readonly attributes: Array<{ key: string; value: { stringValue?: string; intValue?: number } }>
}

/** The spans of the http/json batches received so far. */
const spansOf = (collector: Awaited<ReturnType<typeof startCollector>>) =>
  collector.received.flatMap((batch) => {
    if (!batch.headers["content-type"]?.startsWith("application/json")) return []
    const data = JSON.parse(batch.body.toString("utf8"))
    return data.resourceSpans.flatMap(
      (resource: { resource: { attributes: OtlpSpan["attributes"] }; scopeSpans: Array<{ spans: Array<OtlpSpan> }> }) =>
        resource.scopeSpans.flatMap((scope) =>
          scope.spans.map((span) => ({
            ...span,
            service: resource.resource.attributes.find((attribute) => attribute.key === "service.name")?.value
              .stringValue
          }))
        )
    )
  }) as Array<OtlpSpan & { service: string | undefined }>

const attribute = (span: OtlpSpan, key: string) => {
  const value = span.attributes.find((entry) => entry.key === key)?.value
  return value?.stringValue ?? value?.intValue
}

const eventually = async <T>(find: () => T | undefined, what: string, ms = 10_000): Promise<T> => {
  const deadline = Date.now() + ms
  for (;;) {
    const found = find()
    if (found !== undefined) return found
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

const accessLines = (lines: Array<string>) =>
  lines
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line))
    .filter((line) => line.message === "Sent HTTP response")

const collector = await startCollector()
afterAll(() => collector.close())

describe("traces exported to an OTLP collector (http/json)", () => {
  const lines = captureConsole()
  const gateway = useGateway(
    pglite,
    {
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
      OTEL_EXPORTER_OTLP_HEADERS: "x-collector-key=abc%20def",
      OTEL_SERVICE_NAME: "gateway-under-test",
      OTEL_BSP_SCHEDULE_DELAY: "100",
      LOG_FORMAT: "json"
    },
    { logging: true }
  )

  it("sends the request's server span, its use-case and query spans, in the caller's trace", async () => {
    const { api_key } = await createProject(gateway.current)
    const client = asUser(gateway.current, api_key, "u1", "w1")
    const traceId = "4bf92f3577b34da6a3ce929d0e0e4736"
    const parent = "00f067aa0ba902b7"
    const reply = await client("GET", "/threads?limit=5", { headers: { traceparent: `00-${traceId}-${parent}-01` } })
    expect(reply.status).toBe(200)

    const server = await eventually(
      () => spansOf(collector).find((span) => span.traceId === traceId && span.name === "GET /v1/threads"),
      "the server span"
    )
    expect(server.parentSpanId).toBe(parent)
    expect(server.service).toBe("gateway-under-test")
    expect(attribute(server, "http.response.status_code")).toBe(200)
    expect(attribute(server, "http.route")).toBe("/v1/threads")
    expect(attribute(server, "http.request.id")).toBe(reply.headers.get("x-request-id"))
    // Spans of the same trace under the server span: the use case's and its queries'.
    const inTrace = await eventually(() => {
      const spans = spansOf(collector).filter((span) => span.traceId === traceId)
      return spans.some((span) => span.name.startsWith("sql.")) ? spans : undefined
    }, "the query spans")
    expect(inTrace.some((span) => span.parentSpanId === server.spanId)).toBe(true)
    expect(inTrace.some((span) => /^Threads\./.test(span.name))).toBe(true)
    expect(collector.received.some((batch) => batch.headers["x-collector-key"] === "abc def")).toBe(true)
    expect(collector.received[0]?.headers["content-type"]).toMatch(/^application\/json/)

    // The access line carries the request id and the trace id.
    const line = await eventually(
      () => accessLines(lines).find((entry) => entry.annotations.request_id === reply.headers.get("x-request-id")),
      "the access line"
    )
    expect(line.annotations.trace_id).toBe(traceId)
    expect(line.annotations["http.route"]).toBe("/v1/threads")
  })

  it("records the URL of a signed request without its signature", async () => {
    await call(gateway.current.baseUrl, "GET", "/v1/blobs/proj_1/a.png?expires=1&signature=s3cr3tsignature")
    const span = await eventually(
      () => spansOf(collector).find((entry) => entry.name === "GET /v1/blobs/*"),
      "the blob request's span"
    )
    expect(attribute(span, "url.query")).toBe("expires=1&signature=REDACTED")
    expect(JSON.stringify(spansOf(collector))).not.toContain("s3cr3tsignature")
  })
})

describe("traces exported with the default protocol (http/protobuf)", () => {
  const gateway = useGateway(pglite, {
    OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${collector.url}/v1/traces`,
    OTEL_BSP_SCHEDULE_DELAY: "100"
  })

  it("posts protobuf batches naming the service svc-gateway", async () => {
    const before = collector.received.length
    await call(gateway.current.baseUrl, "GET", "/readyz")
    // Protobuf keeps strings as UTF-8 bytes.
    const batch = await eventually(
      () => collector.received.slice(before).find((entry) => entry.body.includes("GET /readyz")),
      "a batch with the request's span"
    )
    expect(batch.headers["content-type"]).toBe("application/x-protobuf")
    expect(batch.body.includes("svc-gateway")).toBe(true)
  })
})

describe("trace sampling (parentbased_always_off)", () => {
  const gateway = useGateway(pglite, {
    OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${collector.url}/v1/traces`,
    OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
    OTEL_BSP_SCHEDULE_DELAY: "100",
    OTEL_SERVICE_NAME: "sampled-gateway",
    OTEL_TRACES_SAMPLER: "parentbased_always_off"
  })

  it("exports the traces a caller sampled, and nothing of the others", async () => {
    const base = gateway.current.baseUrl
    const unsampled = "0af7651916cd43dd8448eb211c80319c"
    const sampled = "5bf92f3577b34da6a3ce929d0e0e4737"
    await call(base, "GET", "/readyz", { headers: { traceparent: `00-${unsampled}-b7ad6b7169203331-00` } })
    await call(base, "GET", "/docs")
    await call(base, "GET", "/readyz", { headers: { traceparent: `00-${sampled}-b7ad6b7169203331-01` } })
    await eventually(
      () => spansOf(collector).find((span) => span.traceId === sampled && span.name === "GET /readyz"),
      "the sampled trace"
    )
    const mine = spansOf(collector).filter((span) => span.service === "sampled-gateway")
    expect(mine.some((span) => span.traceId === unsampled)).toBe(false)
    expect(mine.some((span) => span.name === "GET /docs")).toBe(false)
    expect(mine.every((span) => span.traceId === sampled)).toBe(true)
  })
})

for (const format of ["json", "logfmt"] as const) {
  describe(`log lines (${format})`, () => {
    const lines = captureConsole()
    const gateway = useGateway(pglite, { LOG_FORMAT: format, LOG_LEVEL: "Info" }, { logging: true })

    it("one access line per request, with its request id, and no signature or token", async () => {
      const { project_id, api_key } = await createProject(gateway.current)
      const client = asUser(gateway.current, api_key, "u1", "w1")
      const upload = await client("POST", "/files/attachments/generate-presigned-upload-url", {
        body: { filename: "a.png" }
      })
      expect(upload.status, upload.text).toBe(200)
      const signed = new URL(upload.body.signedUrl as string)
      const signature = signed.searchParams.get("signature") ?? ""
      expect(signature.length).toBeGreaterThan(16)
      const put = await fetch(`${gateway.current.baseUrl}${signed.pathname}${signed.search}`, {
        method: "PUT",
        body: new Uint8Array([137, 80, 78, 71]),
        headers: { "content-type": "image/png", "x-request-id": `upload-${format}` }
      })
      expect(put.status).toBe(200)
      await call(gateway.current.baseUrl, "GET", `/v1/threads?access_token=tok_${format}_secret&limit=1`)

      const text = await eventually(() => {
        const all = lines.join("\n")
        return all.includes(`upload-${format}`) && all.includes("access_token=") ? all : undefined
      }, "the access lines")
      expect(text).not.toContain(signature)
      expect(text).not.toContain(`tok_${format}_secret`)
      expect(text).not.toContain(api_key)
      const uploadLine = lines.find((line) => line.includes(`upload-${format}`)) ?? ""
      if (format === "json") {
        const entry = JSON.parse(uploadLine)
        expect(entry.message).toBe("Sent HTTP response")
        expect(entry.annotations).toMatchObject({
          request_id: `upload-${format}`,
          "http.method": "PUT",
          "http.route": "/p/:project_id/v1/blobs/*",
          "http.status": 200
        })
        expect(entry.annotations["http.url"]).toContain("signature=REDACTED")
        expect(entry.annotations["http.url"]).toContain(project_id)
        expect(entry.annotations.duration_ms).toBeTypeOf("number")
        // Every line is one JSON object.
        for (const line of lines) expect(() => JSON.parse(line), line).not.toThrow()
      } else {
        expect(uploadLine).toMatch(/^timestamp=\S+ level=INFO /)
        expect(uploadLine).toContain(`request_id=upload-${format}`)
        expect(uploadLine).toContain("signature=REDACTED")
        for (const line of lines) expect(line, line).toMatch(/^timestamp=\S+ level=[A-Z]+ /)
      }
      // One access line per request: three requests above carried or got an id each.
      const ids = lines.filter((line) => line.includes("Sent HTTP response")).length
      expect(ids).toBeGreaterThanOrEqual(4)
    })
  })
}
