/**
 * `npm run bench:otlp-memory`: what one 4 MB OTLP export costs the gateway in
 * memory, for the worst shapes we know of. Each shape runs against a fresh
 * gateway process (`node --import tsx app/main.ts`, default settings, logging
 * included): after a warm-up export its peak resident memory (VmHWM) is reset
 * (/proc/<pid>/clear_refs), the shape is sent `BENCH_OTLP_REPEAT` times one
 * after another, and the peak above the warmed-up resident set is printed with
 * the answer and how long it took. The baseline in the same run is the
 * gateway's own cost of a small export of 100 spans (the first shape).
 *
 * Env: BENCH_DATABASE_URL (a PostgreSQL server URL: a fresh database per
 * shape; unset: the embedded store in a temporary directory), BENCH_OTLP_SHAPES
 * (comma-separated names, default all), BENCH_OTLP_REPEAT (3),
 * BENCH_OTLP_CONCURRENCY (1: the repeats one after another; N: N clients
 * each sending the shape REPEAT times at once, with fresh trace ids, to see
 * what exports at once cost together).
 * Linux only (/proc).
 */
import { gzipSync } from "node:zlib"
import { ExportTraceServiceRequest } from "../protocols/otlp/Proto.js"
import { memoryMb, resetPeak, startProcessGateway } from "./lib/gateway-process.js"
import { killAllNow } from "./lib/proc.js"

const MB = 1024 * 1024
const CAP = 4 * MB
const REPEAT = Number(process.env.BENCH_OTLP_REPEAT ?? 3)
const CONCURRENCY = Number(process.env.BENCH_OTLP_CONCURRENCY ?? 1)

let idCounter = 1
const hex = (bytes: number) => (idCounter++).toString(16).padStart(bytes * 2, "0")
const traceId = () => hex(16)
const spanId = () => hex(8)
const str = (key: string, value: string) => ({ key, value: { stringValue: value } })

interface Shape {
  readonly name: string
  readonly note: string
  readonly encoding: "json" | "protobuf"
  readonly gzip?: boolean
  /** The export as OTLP/JSON-shaped objects (ids hex); protobuf shapes are encoded from it. */
  readonly build: () => unknown
}

const span = (trace: string, extra: Record<string, unknown> = {}) => ({
  traceId: trace,
  spanId: spanId(),
  name: "s",
  kind: 1,
  startTimeUnixNano: "1700000000000000000",
  endTimeUnixNano: "1700000000100000000",
  ...extra
})

const spansIn = (count: number, perTrace: number, extra?: () => Record<string, unknown>) => {
  const spans: Array<unknown> = []
  let trace = traceId()
  for (let i = 0; i < count; i++) {
    if (i > 0 && i % perTrace === 0) trace = traceId()
    spans.push(span(trace, extra?.()))
  }
  return spans
}

const exportOf = (resourceAttributes: Array<unknown>, spans: Array<unknown>, scopeAttributes: Array<unknown> = []) => ({
  resourceSpans: [
    {
      resource: { attributes: resourceAttributes },
      scopeSpans: [{ scope: { name: "bench", version: "1", attributes: scopeAttributes }, spans }]
    }
  ]
})

/** Fills an export up to just under the cap with `make(i)` items, measured in the given encoding. */
const fill = (encoding: "json" | "protobuf", wrap: (count: number) => unknown, estimate: number) => {
  let count = estimate
  for (;;) {
    const size = encode(encoding, wrap(count)).length
    if (size <= CAP - 1024) {
      const next = Math.floor(count * ((CAP - 1024) / size))
      if (next <= count + 1 || encode(encoding, wrap(next)).length > CAP - 1024) return wrap(count)
      count = next
    } else count = Math.floor(count * 0.97)
  }
}

const toProto = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(toProto)
  if (typeof value !== "object" || value === null) return value
  const out: Record<string, unknown> = {}
  for (const [key, inner] of Object.entries(value)) {
    out[key] =
      (key === "traceId" || key === "spanId" || key === "parentSpanId") && typeof inner === "string"
        ? Buffer.from(inner, "hex")
        : toProto(inner)
  }
  return out
}

function encode(encoding: "json" | "protobuf", body: unknown): Buffer {
  if (encoding === "json") return Buffer.from(JSON.stringify(body))
  const message = ExportTraceServiceRequest.fromObject(toProto(body) as Record<string, unknown>)
  return Buffer.from(ExportTraceServiceRequest.encode(message).finish())
}

const SHAPES: ReadonlyArray<Shape> = [
  {
    name: "small",
    note: "100 spans in 10 traces, a 100-byte resource (the baseline)",
    encoding: "protobuf",
    build: () => exportOf([str("service.name", "x".repeat(100))], spansIn(100, 10))
  },
  {
    name: "resource-1mb",
    note: "a 1 MB resource attribute, 100 spans in 100 traces (the audit's shape)",
    encoding: "protobuf",
    build: () => exportOf([str("big", "r".repeat(MB))], spansIn(100, 1))
  },
  {
    name: "resource-3.9mb",
    note: "a 3.9 MB resource attribute, 140 spans in 140 traces (the audit's 500)",
    encoding: "protobuf",
    build: () => exportOf([str("big", "r".repeat(Math.floor(3.9 * MB) - 20_000))], spansIn(140, 1))
  },
  {
    name: "resource-16kb-many-spans",
    note: "a 15 KB resource, as many tiny spans as fit (500 a trace)",
    encoding: "protobuf",
    build: () => fill("protobuf", (count) => exportOf([str("r", "r".repeat(15_000))], spansIn(count, 500)), 60_000)
  },
  {
    name: "resource-16kb-many-scopes",
    note: "a 15 KB resource, each span in a scope of its own with 15 KB of scope attributes",
    encoding: "protobuf",
    build: () => {
      const scopes = (count: number) => ({
        resourceSpans: [
          {
            resource: { attributes: [str("r", "r".repeat(15_000))] },
            scopeSpans: Array.from({ length: count }, (_, i) => ({
              scope: { name: `s${i}`, attributes: [str("s", "s".repeat(15_000))] },
              spans: [span(traceId())]
            }))
          }
        ]
      })
      return fill("protobuf", scopes, 250)
    }
  },
  {
    name: "many-resources",
    note: "each tiny span under a resource of its own with 15 KB of attributes",
    encoding: "protobuf",
    build: () =>
      fill(
        "protobuf",
        (count) => ({
          resourceSpans: Array.from({ length: count }, () => ({
            resource: { attributes: [str("r", "r".repeat(15_000))] },
            scopeSpans: [{ scope: { name: "s" }, spans: [span(traceId())] }]
          }))
        }),
        250
      )
  },
  {
    name: "tiny-spans",
    note: "as many minimal spans as fit in 4 MB of protobuf (500 a trace)",
    encoding: "protobuf",
    build: () => fill("protobuf", (count) => exportOf([], spansIn(count, 500)), 70_000)
  },
  {
    name: "tiny-spans-json",
    note: "as many minimal spans as fit in 4 MB of OTLP/JSON (500 a trace)",
    encoding: "json",
    build: () => fill("json", (count) => exportOf([], spansIn(count, 500)), 30_000)
  },
  {
    name: "tiny-attributes",
    note: "one span with as many 1-byte attributes as fit (refused: over 16 KB)",
    encoding: "protobuf",
    build: () =>
      fill(
        "protobuf",
        (count) =>
          exportOf(
            [],
            [span(traceId(), { attributes: Array.from({ length: count }, (_, i) => str(i.toString(36), "")) })]
          ),
        400_000
      )
  },
  {
    name: "tiny-events",
    note: "one span with as many empty events as fit",
    encoding: "protobuf",
    build: () =>
      fill(
        "protobuf",
        (count) =>
          exportOf(
            [],
            [span(traceId(), { events: Array.from({ length: count }, () => ({ name: "e", timeUnixNano: "1" })) })]
          ),
        300_000
      )
  },
  {
    name: "events-per-span",
    note: "500 spans of 50 events with 100 bytes of attributes each",
    encoding: "protobuf",
    build: () =>
      fill(
        "protobuf",
        (count) =>
          exportOf(
            [],
            spansIn(count, 500, () => ({
              events: Array.from({ length: 50 }, () => ({ name: "e", attributes: [str("k", "v".repeat(100))] }))
            }))
          ),
        500
      )
  },
  {
    name: "span-attributes-15kb",
    note: "spans of 15 KB of attributes each (all kept)",
    encoding: "protobuf",
    build: () =>
      fill(
        "protobuf",
        (count) =>
          exportOf(
            [],
            spansIn(count, 500, () => ({ attributes: [str("a", "a".repeat(15_000))] }))
          ),
        250
      )
  },
  {
    name: "deep-values",
    note: "spans whose attribute is an array nested 30 deep, as many as fit",
    encoding: "json",
    build: () => {
      const deep = () => {
        let value: unknown = { stringValue: "x" }
        for (let i = 0; i < 30; i++) value = { arrayValue: { values: [value, { stringValue: "y" }] } }
        return value
      }
      return fill(
        "json",
        (count) =>
          exportOf(
            [],
            spansIn(count, 500, () => ({ attributes: [{ key: "d", value: deep() }] }))
          ),
        10
      )
    }
  },
  {
    name: "gzip-tiny-spans",
    note: "tiny spans gzipped: 4 MB inflated (the most spans a request can carry)",
    encoding: "protobuf",
    gzip: true,
    build: () => fill("protobuf", (count) => exportOf([], spansIn(count, 500)), 70_000)
  }
]

const runShape = async (shape: Shape) => {
  const gateway = await startProcessGateway({ label: `otlp-${shape.name}`, serverUrl: process.env.BENCH_DATABASE_URL })
  try {
    const send = async (body: Buffer, encoding: "json" | "protobuf", gzip: boolean) => {
      const response = await fetch(`${gateway.baseUrl}/v1/traces`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${gateway.apiKey}`,
          "content-type": encoding === "json" ? "application/json" : "application/x-protobuf",
          ...(gzip ? { "content-encoding": "gzip" } : {})
        },
        body: new Uint8Array(body)
      })
      const bytes = Buffer.from(await response.arrayBuffer())
      const text =
        encoding === "json" || response.headers.get("content-type")?.includes("json")
          ? bytes.toString("utf8").slice(0, 200)
          : `${bytes.length} bytes of protobuf`
      return { status: response.status, text }
    }
    // Warm-up: a small export, so the first-request costs are not counted.
    const small = SHAPES[0]
    if (small === undefined) throw new Error("no shapes")
    for (let i = 0; i < 3; i++) await send(encode("protobuf", small.build()), "protobuf", false)
    // One body per client (each built anew: fresh trace ids), so concurrent clients store, not re-send, their spans.
    const bodies = Array.from({ length: CONCURRENCY }, () => {
      const raw = encode(shape.encoding, shape.build())
      return { raw, body: shape.gzip ? gzipSync(raw) : raw }
    })
    const first = bodies[0]
    if (first === undefined) throw new Error("BENCH_OTLP_CONCURRENCY must be 1 or more")
    await new Promise((resolve) => setTimeout(resolve, 500))
    const pid = gateway.child.pid
    const before = memoryMb(pid, "VmRSS")
    resetPeak(pid)
    const started = performance.now()
    const answers: Array<{ status: number; text: string }> = []
    await Promise.all(
      bodies.map(async (client) => {
        for (let i = 0; i < REPEAT; i++) {
          // The same body again is a re-export (kept once): its decoding costs the same memory.
          answers.push(await send(client.body, shape.encoding, shape.gzip === true))
        }
      })
    )
    const elapsed = performance.now() - started
    const peak = memoryMb(pid, "VmHWM")
    return {
      shape: shape.name,
      note: shape.note,
      body_bytes: first.body.length,
      inflated_bytes: first.raw.length,
      rss_before_mb: before,
      peak_mb: peak,
      peak_above_mb: peak - before,
      ms_per_export: Math.round(elapsed / (REPEAT * CONCURRENCY)),
      answer: `${answers[0]?.status} ${answers[0]?.text ?? ""}`,
      statuses: answers.map((answer) => answer.status).join(",")
    }
  } finally {
    await gateway.stop()
  }
}

const wanted = process.env.BENCH_OTLP_SHAPES?.split(",")
const results: Array<Awaited<ReturnType<typeof runShape>>> = []
try {
  for (const shape of SHAPES) {
    if (wanted !== undefined && !wanted.includes(shape.name)) continue
    const result = await runShape(shape)
    results.push(result)
    console.log(JSON.stringify(result))
  }
} finally {
  killAllNow()
}
const baseline = results.find((result) => result.shape === "small")
console.log("\nshape                          body MB  peak above MB  ratio to small  ms/export  answer")
for (const result of results) {
  const ratio = baseline === undefined ? "" : (result.peak_above_mb / Math.max(1, baseline.peak_above_mb)).toFixed(1)
  console.log(
    `${result.shape.padEnd(30)} ${(result.body_bytes / MB).toFixed(2).padStart(7)}  ${String(result.peak_above_mb).padStart(13)}  ${ratio.padStart(14)}  ${String(result.ms_per_export).padStart(9)}  ${result.answer.slice(0, 90)}`
  )
}
