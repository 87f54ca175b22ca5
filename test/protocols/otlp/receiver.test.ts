/**
 * POST /v1/traces through a real socket on both stores: encodings, gzip, the
 * status table, the limits through partial_success, dedup, tenancy, and the
 * spans read back through the project API as they were sent.
 */
import { gzipSync } from "node:zlib"
import { beforeAll, describe, expect, it } from "vitest"
import { call, createProject, type Reply, stores, useGateway } from "../../support/layers.js"
import { decodeProtobufAnswer, exportOf, jsonSpan, postJson, postRaw, protobufOf, spanIdOf, traceIdOf } from "./otlp.js"

const MiB = 1024 * 1024

describe.each(stores)("OTLP receiver ($name)", (storeUnderTest) => {
  const gateway = useGateway(storeUnderTest)
  let apiKey: string
  let otherKey: string
  let projectId: string
  const base = () => gateway.current.baseUrl
  const read = (path: string, key = apiKey): Promise<Reply> =>
    call(base(), "GET", `/v1/projects${path}`, { headers: { authorization: `Bearer ${key}` } })
  const auth = () => ({ authorization: `Bearer ${apiKey}` })

  beforeAll(async () => {
    const project = await createProject(gateway.current, "traces")
    apiKey = project.api_key
    projectId = project.project_id
    otherKey = (await createProject(gateway.current, "other")).api_key
  })

  const sample = (trace: number) =>
    exportOf([
      jsonSpan({ trace, span: 1, name: "root", attributes: { "http.route": "/chat" }, status: 1 }),
      jsonSpan({
        trace,
        span: 2,
        parent: 1,
        name: "child",
        attributes: {
          text: "héllo",
          int: 42,
          big: 9007199254740993n,
          double: 1.5,
          flag: true,
          list: ["a", 1],
          map: { nested: { deep: "x" } }
        },
        events: [{ name: "exception", atMs: 3, attributes: { "exception.message": "boom" } }],
        status: 2,
        statusMessage: "failed"
      })
    ])

  const expectSample = async (trace: number) => {
    const reply = await read(`/traces/${traceIdOf(trace)}`)
    expect(reply.status, reply.text).toBe(200)
    const [root, child] = reply.body.spans
    expect(root).toMatchObject({
      trace_id: traceIdOf(trace),
      span_id: spanIdOf(1),
      parent_span_id: null,
      name: "root",
      kind: "client",
      status_code: "ok",
      service_name: "chat-app",
      resource: { "service.name": "chat-app" },
      scope: { name: "tests", version: "1.0.0", attributes: {} },
      attributes: { "http.route": "/chat" },
      convention: null,
      role: null,
      run_id: null
    })
    expect(child).toMatchObject({
      parent_span_id: spanIdOf(1),
      status_code: "error",
      status_message: "failed",
      attributes: {
        text: "héllo",
        int: 42,
        big: "9007199254740993",
        double: 1.5,
        flag: true,
        list: ["a", 1],
        map: { nested: { deep: "x" } }
      },
      events: [{ name: "exception", attributes: { "exception.message": "boom" } }]
    })
    expect(child.start_time_unix_nano).toBe(String(1_764_000_000_002_000_000n))
    expect(child.start_time).toBe("2025-11-24T16:00:00.002Z")
    expect(child.duration_ms).toBe(5)
    expect(reply.body.trace).toMatchObject({ name: "root", span_count: 2, error_count: 1, run_count: 0 })
  }

  it("takes OTLP/JSON and protobuf, each plain and gzip, and answers in the request's encoding", async () => {
    const plainJson = await postJson(base(), apiKey, sample(101))
    expect([plainJson.status, plainJson.text]).toEqual([200, "{}"])
    expect(plainJson.headers.get("content-type")).toContain("application/json")

    const gzipJson = await postRaw(
      base(),
      { ...auth(), "content-type": "application/json", "content-encoding": "gzip" },
      gzipSync(JSON.stringify(sample(102)))
    )
    expect(gzipJson.status).toBe(200)

    const protobuf = await postRaw(
      base(),
      { ...auth(), "content-type": "application/x-protobuf" },
      protobufOf(sample(103))
    )
    expect(protobuf.status).toBe(200)
    expect(protobuf.headers.get("content-type")).toBe("application/x-protobuf")
    expect(decodeProtobufAnswer(protobuf.bytes)).toEqual({})

    const gzipProtobuf = await postRaw(
      base(),
      { ...auth(), "content-type": "application/x-protobuf", "content-encoding": "gzip" },
      gzipSync(protobufOf(sample(104)))
    )
    expect(gzipProtobuf.status).toBe(200)
    for (const trace of [101, 102, 103, 104]) await expectSample(trace)
  })

  it("answers 415 for another media type or content encoding, 401 without a valid key, 404 on a frontend URL", async () => {
    const text = await postRaw(base(), { ...auth(), "content-type": "text/plain" }, "{}")
    expect(text.status).toBe(415)
    const brotli = await postRaw(
      base(),
      { ...auth(), "content-type": "application/json", "content-encoding": "br" },
      "{}"
    )
    expect(brotli.status).toBe(415)
    const none = await postRaw(base(), { "content-type": "application/json" }, JSON.stringify(sample(110)))
    expect(none.status).toBe(401)
    const wrong = await postRaw(
      base(),
      { authorization: "Bearer sk_not_a_key_0000000000000000000000000000", "content-type": "application/x-protobuf" },
      protobufOf(sample(110))
    )
    expect(wrong.status).toBe(401)
    // In protobuf, a google.rpc.Status: field 1 (code) varint 16, field 2 (message).
    expect([...wrong.bytes.slice(0, 2)]).toEqual([0x08, 16])
    const frontend = await call(base(), "POST", `/p/${projectId}/v1/traces`, {
      raw: JSON.stringify(sample(110)),
      headers: { ...auth(), "content-type": "application/json" }
    })
    expect(frontend.status).toBe(404)
    expect((await read(`/traces/${traceIdOf(110)}`)).status).toBe(404)
  })

  it("answers 400 for a body that does not decode", async () => {
    const cases: Array<[Record<string, string>, Uint8Array | string]> = [
      [{ "content-type": "application/json" }, "{not json"],
      [{ "content-type": "application/json" }, JSON.stringify({ resourceSpans: 5 })],
      [{ "content-type": "application/json" }, JSON.stringify([1, 2])],
      [
        { "content-type": "application/json" },
        JSON.stringify(exportOf([{ ...jsonSpan({ trace: 120, span: 1 }), startTimeUnixNano: "soon" }]))
      ],
      [{ "content-type": "application/json" }, `{"resourceSpans":${"[".repeat(500)}${"]".repeat(500)}}`],
      [{ "content-type": "application/x-protobuf" }, new Uint8Array([0x0a, 0xff, 0xff, 0xff, 0x0f, 1, 2, 3])],
      [{ "content-type": "application/json", "content-encoding": "gzip" }, "not gzip at all"]
    ]
    for (const [headers, body] of cases) {
      const reply = await postRaw(base(), { ...auth(), ...headers }, body)
      expect(reply.status, String(body).slice(0, 60)).toBe(400)
    }
    const json = await postJson(base(), apiKey, { resourceSpans: [{ scopeSpans: [{ spans: [{ traceId: 7 }] }] }] })
    expect(json.body).toMatchObject({ error: "invalid_request", message: expect.stringContaining("traceId") })
  })

  it("answers 413 past 4 MiB sent, and past 4 MiB inflated without inflating the rest", async () => {
    const big = JSON.stringify(exportOf([jsonSpan({ trace: 130, span: 1, attributes: { pad: "x".repeat(5 * MiB) } })]))
    const sent = await postRaw(base(), { ...auth(), "content-type": "application/json" }, big)
    expect(sent.status).toBe(413)
    // 64 MiB of zeros in about 64 KiB: a small gzip bomb.
    const bomb = gzipSync(Buffer.alloc(64 * MiB))
    expect(bomb.length).toBeLessThan(100 * 1024)
    const started = Date.now()
    const inflated = await postRaw(
      base(),
      { ...auth(), "content-type": "application/x-protobuf", "content-encoding": "gzip" },
      bomb
    )
    expect(inflated.status).toBe(413)
    expect(Date.now() - started).toBeLessThan(2_000)
    // Just under the cap inflated is read.
    const under = gzipSync(JSON.stringify(exportOf([jsonSpan({ trace: 131, span: 1 })])) + " ".repeat(3 * MiB))
    const ok = await postRaw(
      base(),
      { ...auth(), "content-type": "application/json", "content-encoding": "gzip" },
      under
    )
    expect(ok.status).toBe(200)
  })

  it("refuses spans over 16 KiB of attributes and malformed ids through partial_success, keeping the rest", async () => {
    const body = exportOf([
      jsonSpan({ trace: 140, span: 1, attributes: { small: "ok" } }),
      jsonSpan({ trace: 140, span: 2, attributes: { large: "y".repeat(17_000) } }),
      { ...jsonSpan({ trace: 140, span: 3 }), traceId: "00000000000000000000000000000000" },
      { ...jsonSpan({ trace: 140, span: 4 }), spanId: "abcd" }
    ])
    const json = await postJson(base(), apiKey, body)
    expect(json.status).toBe(200)
    expect(json.body.partialSuccess.rejectedSpans).toBe("3")
    expect(json.body.partialSuccess.errorMessage).toMatch(/16384 bytes/)
    expect(json.body.partialSuccess.errorMessage).toMatch(/malformed trace id/)
    const protobuf = await postRaw(
      base(),
      { ...auth(), "content-type": "application/x-protobuf" },
      protobufOf(exportOf([jsonSpan({ trace: 141, span: 1, attributes: { large: "y".repeat(17_000) } })]))
    )
    expect(decodeProtobufAnswer(protobuf.bytes).partialSuccess).toMatchObject({ rejectedSpans: "1" })
    const kept = await read(`/traces/${traceIdOf(140)}`)
    expect(kept.body.spans.map((span: { attributes: unknown }) => span.attributes)).toEqual([{ small: "ok" }])
    expect((await read(`/traces/${traceIdOf(141)}`)).status).toBe(404)
  })

  it("keeps 500 spans a trace across exports, and a re-exported span once", async () => {
    const spans = (from: number, count: number) =>
      Array.from({ length: count }, (_, i) => jsonSpan({ trace: 150, span: from + i }))
    const first = await postJson(base(), apiKey, exportOf(spans(1, 300)))
    expect(first.text).toBe("{}")
    // The same 300 again: stored once, not refused.
    const again = await postJson(base(), apiKey, exportOf(spans(1, 300)))
    expect(again.text).toBe("{}")
    // 300 new ones, two exports at once: 200 fit.
    const [a, b] = await Promise.all([
      postJson(base(), apiKey, exportOf(spans(1000, 150))),
      postJson(base(), apiKey, exportOf(spans(2000, 150)))
    ])
    const rejected = [a, b].map((reply) => Number(reply.body.partialSuccess?.rejectedSpans ?? 0))
    expect(rejected[0] + rejected[1]).toBe(100)
    expect([a, b].find((reply) => reply.body.partialSuccess)?.body.partialSuccess.errorMessage).toMatch(
      /past the 500th of (its|their) trace/
    )
    const trace = await read(`/traces/${traceIdOf(150)}`)
    expect(trace.body.spans).toHaveLength(500)
    expect(trace.body.trace.span_count).toBe(500)
    // A span already kept is no refusal even when the trace is full.
    const full = await postJson(base(), apiKey, exportOf(spans(1, 10)))
    expect(full.text).toBe("{}")
  })

  it("lists traces newest first with filters and keyset pages; another project sees none", async () => {
    const service = `svc-${storeUnderTest.name}`
    for (let i = 0; i < 5; i++) {
      const status = i === 3 ? 2 : 1
      const body = exportOf([jsonSpan({ trace: 160 + i, span: 1, startMs: 10_000_000 + i, status })], service)
      expect((await postJson(base(), apiKey, body)).status).toBe(200)
    }
    const all: Array<string> = []
    let after: string | null = null
    do {
      const page: Reply = await read(
        `/traces?service_name=${service}&limit=2${after === null ? "" : `&after=${after}`}`
      )
      expect(page.status, page.text).toBe(200)
      all.push(...page.body.traces.map((trace: { trace_id: string }) => trace.trace_id))
      after = page.body.next_after
    } while (after !== null)
    expect(all).toEqual([164, 163, 162, 161, 160].map(traceIdOf))
    const errors = await read(`/traces?service_name=${service}&has_error=true`)
    expect(errors.body.traces.map((trace: { trace_id: string }) => trace.trace_id)).toEqual([traceIdOf(163)])
    const from = new Date(1_764_000_000_000 + 10_000_003).toISOString()
    const late = await read(`/traces?service_name=${service}&from=${from}`)
    expect(late.body.traces).toHaveLength(2)
    expect((await read(`/traces?after=nonsense`)).status).toBe(400)
    expect((await read(`/traces?after=99999999999999999999-${traceIdOf(1)}`)).status).toBe(400)
    const other = await read(`/traces?service_name=${service}`, otherKey)
    expect(other.body.traces).toEqual([])
    expect((await read(`/traces/${traceIdOf(160)}`, otherKey)).status).toBe(404)
  })
})
