/**
 * The bounds of an export's parts (docs/decisions.md "Traces (OTLP/HTTP)"),
 * through a real socket on both stores: each part of a span, and of its
 * resource and scope, over its bound is refused on its own through
 * partial_success with the rest kept; a resource and scope are stored once
 * per export and distinct value, not once per span; text PostgreSQL cannot
 * store is kept with U+FFFD; OTLP/JSON's proto field names are read; a
 * charset other than UTF-8 is 415.
 */
import { beforeAll, describe, expect, it } from "vitest"
import { call, createProject, type Reply, stores, useGateway } from "../../support/layers.js"
import {
  attributes,
  decodeProtobufAnswer,
  exportOf,
  jsonSpan,
  postJson,
  postRaw,
  protobufOf,
  spanIdOf,
  traceIdOf
} from "./otlp.js"

const KiB = 1024

describe.each(stores)("OTLP export bounds ($name)", (storeUnderTest) => {
  const gateway = useGateway(storeUnderTest)
  let apiKey: string
  let projectId: string
  const base = () => gateway.current.baseUrl
  const read = (path: string): Promise<Reply> =>
    call(base(), "GET", `/v1/projects${path}`, { headers: { authorization: `Bearer ${apiKey}` } })
  const spansOf = async (trace: number) => {
    const reply = await read(`/traces/${traceIdOf(trace)}`)
    return reply.status === 404 ? [] : (reply.body.spans as Array<Record<string, unknown>>)
  }
  const resourceRows = async () =>
    Number(
      (
        await gateway.current.sql<{ n: string }>(
          "SELECT count(*)::text AS n FROM span_resources WHERE project_id = $1",
          [projectId]
        )
      )[0]?.n
    )

  beforeAll(async () => {
    const project = await createProject(gateway.current, "bounds")
    apiKey = project.api_key
    projectId = project.project_id
  })

  /** An export of one resource and one scope, each with the given attributes and scope fields. */
  const withResource = (
    spans: ReadonlyArray<unknown>,
    resource: Record<string, unknown>,
    scope: { name?: string; version?: string; attributes?: Record<string, unknown> } = {}
  ) => ({
    resourceSpans: [
      {
        resource: { attributes: attributes(resource) },
        scopeSpans: [
          {
            scope: {
              name: scope.name ?? "tests",
              version: scope.version ?? "1.0.0",
              attributes: attributes(scope.attributes ?? {})
            },
            spans
          }
        ]
      }
    ]
  })

  it("stores a resource and scope once per export, not once per span, and reads them back on every span", async () => {
    const before = await resourceRows()
    const resource = { "service.name": "big", pad: "r".repeat(15 * KiB) }
    const spans = Array.from({ length: 1_500 }, (_, i) => jsonSpan({ trace: 1_000 + Math.floor(i / 500), span: i + 1 }))
    const reply = await postJson(base(), apiKey, withResource(spans, resource, { attributes: { s: "x" } }))
    expect(reply.status, reply.text).toBe(200)
    expect(reply.text).toBe("{}")
    expect(await resourceRows()).toBe(before + 1)
    // The database holds the 15 KiB once, not 1,500 times.
    const [bytes] = await gateway.current.sql<{ n: string }>(
      "SELECT COALESCE(sum(pg_column_size(resource)), 0)::text AS n FROM span_resources WHERE project_id = $1",
      [projectId]
    )
    expect(Number(bytes?.n)).toBeLessThan(200 * KiB)
    const read1 = await spansOf(1_002)
    expect(read1).toHaveLength(500)
    for (const span of read1) {
      expect(span.resource).toEqual(resource)
      expect(span.scope).toEqual({ name: "tests", version: "1.0.0", attributes: { s: "x" } })
      expect(span.service_name).toBe("big")
    }
    // The same export again stores nothing new, resources included.
    const again = await postJson(base(), apiKey, withResource(spans, resource, { attributes: { s: "x" } }))
    expect(again.text).toBe("{}")
    expect(await resourceRows()).toBe(before + 1)
  })

  it("stores equal resources of one export once, and distinct ones apart", async () => {
    const before = await resourceRows()
    const body = {
      resourceSpans: [
        ...withResource([jsonSpan({ trace: 1_010, span: 1 })], { "service.name": "a" }).resourceSpans,
        ...withResource([jsonSpan({ trace: 1_010, span: 2 })], { "service.name": "a" }).resourceSpans,
        ...withResource([jsonSpan({ trace: 1_010, span: 3 })], { "service.name": "b" }).resourceSpans,
        ...withResource([jsonSpan({ trace: 1_010, span: 4 })], { "service.name": "a" }, { name: "other" }).resourceSpans
      ]
    }
    expect((await postJson(base(), apiKey, body)).text).toBe("{}")
    expect(await resourceRows()).toBe(before + 3)
    const spans = await spansOf(1_010)
    expect(spans.map((span) => [span.service_name, (span.scope as { name: string }).name])).toEqual([
      ["a", "tests"],
      ["a", "tests"],
      ["b", "tests"],
      ["a", "other"]
    ])
  })

  it("refuses the spans of a resource or scope over its bounds, keeping the others of the export", async () => {
    const over = "r".repeat(16 * KiB)
    const body = {
      resourceSpans: [
        ...withResource([jsonSpan({ trace: 1_020, span: 1 })], { "service.name": "ok" }).resourceSpans,
        ...withResource([jsonSpan({ trace: 1_020, span: 2 }), jsonSpan({ trace: 1_020, span: 3 })], { pad: over })
          .resourceSpans,
        ...withResource([jsonSpan({ trace: 1_020, span: 4 })], {}, { attributes: { pad: over } }).resourceSpans,
        ...withResource([jsonSpan({ trace: 1_020, span: 5 })], {}, { name: "n".repeat(1_025) }).resourceSpans,
        ...withResource([jsonSpan({ trace: 1_020, span: 6 })], {}, { version: "v".repeat(1_025) }).resourceSpans,
        // At the bounds: kept.
        ...withResource(
          [jsonSpan({ trace: 1_020, span: 7 })],
          { pad: "r".repeat(16 * KiB - 12) },
          {
            name: "n".repeat(1_024)
          }
        ).resourceSpans
      ]
    }
    const reply = await postJson(base(), apiKey, body)
    expect(reply.status).toBe(200)
    expect(reply.body.partialSuccess).toEqual({
      rejectedSpans: "5",
      errorMessage: expect.stringMatching(/5 spans are under a resource or scope over its bounds/)
    })
    expect((await spansOf(1_020)).map((span) => span.span_id)).toEqual([spanIdOf(1), spanIdOf(7)])
  })

  it("refuses the audit's shapes whole, storing nothing of them: a 1 MB and a 3.9 MB resource over 100 and 140 spans, 3 MB names, events and links", async () => {
    const before = await resourceRows()
    const oneSpanEach = (count: number, from: number) =>
      Array.from({ length: count }, (_, i) => jsonSpan({ trace: from + i, span: 1 }))
    for (const [megabytes, count, from] of [
      [1, 100, 2_000],
      [3.9, 140, 2_200]
    ] as const) {
      const body = withResource(oneSpanEach(count, from), {
        big: "r".repeat(Math.floor(megabytes * 1024 * 1024) - 1024)
      })
      const reply = await postJson(base(), apiKey, body)
      expect(reply.status, reply.text.slice(0, 200)).toBe(200)
      expect(reply.body.partialSuccess).toMatchObject({ rejectedSpans: String(count) })
      expect(await spansOf(from)).toEqual([])
    }
    const three = 3 * 1024 * 1024
    const link = { traceId: traceIdOf(9), spanId: spanIdOf(9), attributes: attributes({ pad: "l".repeat(three) }) }
    for (const [index, extra] of [
      { name: "n".repeat(three) },
      { events: [{ name: "e", timeUnixNano: "1", attributes: attributes({ pad: "e".repeat(three) }) }] },
      { links: [link] }
    ].entries()) {
      const reply = await postJson(
        base(),
        apiKey,
        exportOf([{ ...jsonSpan({ trace: 2_400 + index, span: 1 }), ...extra }])
      )
      expect(reply.status).toBe(200)
      expect(reply.body.partialSuccess).toMatchObject({ rejectedSpans: "1" })
      expect(await spansOf(2_400 + index)).toEqual([])
    }
    expect(await resourceRows()).toBe(before)
  })

  it("refuses a span whose name, trace state, status message, attributes, events or links are over their bounds", async () => {
    const span = (n: number, extra: Record<string, unknown> = {}) => ({
      ...jsonSpan({ trace: 1_030, span: n }),
      ...extra
    })
    const event = (bytes: number) => ({
      name: "e",
      timeUnixNano: "1",
      attributes: attributes({ pad: "e".repeat(bytes) })
    })
    const link = (bytes: number) => ({
      traceId: traceIdOf(9),
      spanId: spanIdOf(9),
      attributes: attributes({ pad: "l".repeat(bytes) })
    })
    const body = exportOf([
      span(1, { name: "n".repeat(1_024) }),
      span(2, { name: "n".repeat(1_025) }),
      span(3, { name: "é".repeat(513) }),
      span(4, { traceState: "a=".padEnd(512, "b") }),
      span(5, { traceState: "a=".padEnd(513, "b") }),
      span(6, { status: { code: 2, message: "m".repeat(2_048) } }),
      span(7, { status: { code: 2, message: "m".repeat(2_049) } }),
      span(8, { events: [event(30 * KiB), event(30 * KiB)] }),
      span(9, { events: [event(30 * KiB), event(30 * KiB), event(5 * KiB)] }),
      span(10, { links: [link(15 * KiB)] }),
      span(11, { links: [link(16 * KiB)] }),
      span(12, { attributes: attributes({ pad: "a".repeat(17 * KiB) }) })
    ])
    const reply = await postJson(base(), apiKey, body)
    expect(reply.status).toBe(200)
    expect(reply.body.partialSuccess.rejectedSpans).toBe("7")
    const message: string = reply.body.partialSuccess.errorMessage
    expect(message).toContain("2 spans have a name over 1024 bytes")
    expect(message).toContain("1 span has a trace state over 512 bytes")
    expect(message).toContain("1 span has a status message over 2048 bytes")
    expect(message).toContain("1 span has attributes over 16384 bytes serialized")
    expect(message).toContain("1 span has events over 65536 bytes serialized")
    expect(message).toContain("1 span has links over 16384 bytes serialized")
    const kept = await spansOf(1_030)
    expect(kept.map((stored) => stored.span_id)).toEqual([1, 4, 6, 8, 10].map(spanIdOf))
    expect(kept.find((stored) => stored.span_id === spanIdOf(8))?.events).toHaveLength(2)
    // In protobuf too.
    const protobuf = await postRaw(
      base(),
      { authorization: `Bearer ${apiKey}`, "content-type": "application/x-protobuf" },
      protobufOf(
        exportOf([jsonSpan({ trace: 1_031, span: 1, name: "n".repeat(2_000) }), jsonSpan({ trace: 1_031, span: 2 })])
      )
    )
    expect(decodeProtobufAnswer(protobuf.bytes).partialSuccess).toMatchObject({ rejectedSpans: "1" })
    expect((await spansOf(1_031)).map((stored) => stored.span_id)).toEqual([spanIdOf(2)])
  })

  it("keeps a span with NUL or an unpaired surrogate, with U+FFFD in its place, and the rest of the export", async () => {
    const body = exportOf([
      jsonSpan({ trace: 1_040, span: 1, name: "nul\u0000name", attributes: { "k\u0000": "lone \ud800 high" } }),
      jsonSpan({
        trace: 1_040,
        span: 2,
        name: "low \udc00 first",
        statusMessage: "pair 😀 kept",
        events: [{ name: "e\u0000", atMs: 3, attributes: { v: "\udfff" } }]
      }),
      jsonSpan({ trace: 1_040, span: 3, name: "fine" })
    ])
    const reply = await postJson(base(), apiKey, body)
    expect(reply.status, reply.text).toBe(200)
    expect(reply.text).toBe("{}")
    const [first, second, third] = await spansOf(1_040)
    expect(first).toMatchObject({ name: "nul\ufffdname", attributes: { "k\ufffd": "lone \ufffd high" } })
    expect(second).toMatchObject({ name: "low \ufffd first", status_message: "pair 😀 kept" })
    expect(second?.events).toMatchObject([{ name: "e\ufffd", attributes: { v: "\ufffd" } }])
    expect(third).toMatchObject({ name: "fine" })
    // Protobuf carries NUL as a valid UTF-8 byte: the same.
    const protobuf = await postRaw(
      base(),
      { authorization: `Bearer ${apiKey}`, "content-type": "application/x-protobuf" },
      protobufOf(exportOf([jsonSpan({ trace: 1_041, span: 1, name: "a\u0000b" }), jsonSpan({ trace: 1_041, span: 2 })]))
    )
    expect(protobuf.status).toBe(200)
    expect(decodeProtobufAnswer(protobuf.bytes).partialSuccess).toBeUndefined()
    expect((await spansOf(1_041)).map((span) => span.name)).toEqual(["a\ufffdb", "span 2"])
  })

  it("reads OTLP/JSON written with the proto field names (snake_case), as the protobuf JSON mapping allows", async () => {
    const camel = exportOf([
      jsonSpan({
        trace: 1_050,
        span: 1,
        attributes: { list: ["a", 1], map: { inner: 2.5 }, flag: true },
        events: [{ name: "exception", atMs: 2, attributes: { "exception.message": "boom" } }],
        status: 2,
        statusMessage: "failed"
      }),
      jsonSpan({ trace: 1_050, span: 2, parent: 1 })
    ])
    const toSnake = (value: unknown): unknown => {
      if (Array.isArray(value)) return value.map(toSnake)
      if (typeof value !== "object" || value === null) return value
      return Object.fromEntries(
        Object.entries(value).map(([key, inner]) => [
          key.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`),
          toSnake(inner)
        ])
      )
    }
    const snakeBody = toSnake(camel) as Record<string, unknown>
    expect(Object.keys(snakeBody)).toEqual(["resource_spans"])
    const reply = await postJson(base(), apiKey, snakeBody)
    expect(reply.status, reply.text).toBe(200)
    expect(reply.text).toBe("{}")
    const [root, child] = await spansOf(1_050)
    expect(root).toMatchObject({
      span_id: spanIdOf(1),
      service_name: "chat-app",
      status_code: "error",
      status_message: "failed",
      attributes: { list: ["a", 1], map: { inner: 2.5 }, flag: true },
      events: [{ name: "exception", attributes: { "exception.message": "boom" } }],
      scope: { name: "tests", version: "1.0.0" }
    })
    expect(child).toMatchObject({ parent_span_id: spanIdOf(1) })
  })

  it("answers 415 for OTLP/JSON in a charset other than UTF-8, and takes UTF-8 however it is written", async () => {
    const body = JSON.stringify(exportOf([jsonSpan({ trace: 1_060, span: 1 })]))
    for (const contentType of ["application/json; charset=iso-8859-1", "application/json;charset=utf-16"]) {
      const reply = await postRaw(base(), { authorization: `Bearer ${apiKey}`, "content-type": contentType }, body)
      expect(reply.status, contentType).toBe(415)
    }
    expect((await spansOf(1_060)).length).toBe(0)
    for (const contentType of ["application/json; charset=utf-8", 'application/json; charset="UTF-8"']) {
      const reply = await postRaw(base(), { authorization: `Bearer ${apiKey}`, "content-type": contentType }, body)
      expect(reply.status, contentType).toBe(200)
    }
    expect((await spansOf(1_060)).length).toBe(1)
  })
})
