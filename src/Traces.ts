/**
 * Trace exports and reads (decisions.md §9). An export's spans are checked
 * (attributes at most 16 KB serialized), recognised (src/GenAiSpans.ts),
 * stored once per (trace id, span id) with at most 500 spans a trace across
 * exports, and the model calls among them become runs (src/TraceRuns.ts).
 * What is refused is counted and said, never shortened; the rest is kept.
 */
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { NotFound } from "../schema/Errors.js"
import { Limits } from "../schema/Limits.js"
import { INT64_MAX, type TraceListQuery } from "../schema/Trace.js"
import { DatabasePool } from "./DatabasePool.js"
import { recognise } from "./GenAiSpans.js"
import type { SpanInput } from "./SpanModel.js"
import { RunsRepo } from "./storage/RunsRepo.js"
import { type SpanRow, SpansRepo } from "./storage/SpansRepo.js"
import { TracesRepo } from "./storage/TracesRepo.js"
import { fn } from "./Traced.js"
import { type NewPart, TraceRuns } from "./TraceRuns.js"

/** Too many exports are being stored at once: the exporter should retry shortly (503). */
export class TraceExportsBusy extends Data.TaggedError("TraceExportsBusy")<{ readonly message: string }> {}

/**
 * Exports stored at once by one gateway: as many as the PostgreSQL pool has
 * connections (an export holds one for its transaction), so that an export
 * never queues for a connection; on the embedded store, which serializes
 * its statements, a few. Another export waits at most TURN_WAIT for its
 * turn, then is answered 503, which the stock exporters retry, rather than
 * queueing until their own timeout (10 s) while holding its body in memory.
 */
const EMBEDDED_AT_ONCE = 4
const TURN_WAIT = Duration.seconds(2)

/** What an export came to: OTLP's partial success. */
export interface ExportOutcome {
  readonly rejected: number
  /** Why, one clause per rule that refused spans; empty when none was. */
  readonly message: string
}

/** An export as the protocol decoded it: the spans, and those it could not read as spans. */
export interface DecodedExport {
  readonly spans: ReadonlyArray<SpanInput>
  readonly invalid: number
  readonly invalidReason: string
}

const serviceOf = (span: SpanInput): string | null => {
  const name = span.resource["service.name"]
  return typeof name === "string" ? name : null
}

const attributesBytes = (span: SpanInput) => Buffer.byteLength(JSON.stringify(span.attributes), "utf8")

const plural = (count: number, one: string, many: string) => `${count} ${count === 1 ? one : many}`

const NS_PER_MS = 1_000_000n

/** A time as nanoseconds within what the store keeps (a date past 2262 is as late as any span can be). */
const nanosOf = (date: Date): string => {
  const ns = BigInt(date.getTime()) * NS_PER_MS
  return String(ns < 0n ? 0n : ns > INT64_MAX ? INT64_MAX : ns)
}

export class Traces extends Effect.Service<Traces>()("svc/Traces", {
  dependencies: [SpansRepo.Default, TracesRepo.Default, RunsRepo.Default, TraceRuns.Default],
  effect: Effect.gen(function* () {
    const spans = yield* SpansRepo
    const traces = yield* TracesRepo
    const runs = yield* RunsRepo
    const traceRuns = yield* TraceRuns
    const pool = yield* DatabasePool
    const turns = yield* Effect.makeSemaphore(
      Option.match(pool.stats, { onNone: () => EMBEDDED_AT_ONCE, onSome: (stats) => stats().max })
    )

    const store = (projectId: string, decoded: DecodedExport) =>
      Effect.gen(function* () {
        const reasons: Array<string> = []
        let rejected = decoded.invalid
        if (decoded.invalid > 0) reasons.push(decoded.invalidReason)
        const seen = new Set<string>()
        const rows: Array<SpanRow> = []
        let oversized = 0
        for (const span of decoded.spans) {
          const key = `${span.trace_id}/${span.span_id}`
          // The same span twice in one export is one span.
          if (seen.has(key)) continue
          seen.add(key)
          if (attributesBytes(span) > Limits.trace.attributesMaxBytes) {
            oversized += 1
            continue
          }
          const { convention, role } = recognise(span)
          rows.push({ span, serviceName: serviceOf(span), convention, role })
        }
        if (oversized > 0) {
          rejected += oversized
          reasons.push(
            `${plural(oversized, "span has", "spans have")} attributes over ${Limits.trace.attributesMaxBytes} bytes serialized (refused, not shortened)`
          )
        }
        if (rows.length > 0) {
          const cap = Limits.trace.spansPerTraceMax
          const outcome = yield* spans.store(projectId, rows, cap)
          const overCap = outcome.fresh - outcome.stored.length
          if (overCap > 0) {
            rejected += overCap
            reasons.push(
              `${plural(overCap, `span is past the ${cap}th of its trace`, `spans are past the ${cap}th of their trace`)} (a trace keeps at most ${cap} spans, counted across exports)`
            )
          }
          const storedKeys = new Set(outcome.stored.map((span) => `${span.trace_id}/${span.span_id}`))
          const parts: Array<NewPart> = []
          for (const row of rows) {
            if (row.role !== null && storedKeys.has(`${row.span.trace_id}/${row.span.span_id}`)) {
              parts.push({ span: row.span, convention: row.convention, role: row.role })
            }
          }
          yield* traceRuns.derive(projectId, parts, outcome.earlier)
        }
        return { rejected, message: reasons.join("; ") } satisfies ExportOutcome
      })

    /**
     * Stores an export: what was refused and why, the rest kept. Its turn is
     * waited for interruptibly (acquireUseRelease's acquire is not, and a
     * timeout could not end the wait); once taken it is given back whatever
     * happens.
     */
    const ingest = fn("Traces.ingest")((projectId: string, decoded: DecodedExport) =>
      Effect.uninterruptibleMask((restore) =>
        Effect.gen(function* () {
          const turn = yield* restore(turns.take(1)).pipe(Effect.timeoutOption(TURN_WAIT))
          if (Option.isNone(turn)) {
            return yield* Effect.fail(
              new TraceExportsBusy({ message: "too many exports are being stored; retry shortly" })
            )
          }
          return yield* restore(store(projectId, decoded)).pipe(Effect.ensuring(turns.release(1)))
        })
      )
    )

    /** A page of the project's traces, newest first, as JSON texts (TraceSummary), and the next page's cursor. */
    const listJson = fn("Traces.listJson")(function* (projectId: string, query: TraceListQuery) {
      const [startNs, traceId] = query.after === undefined ? [] : query.after.split("-")
      const rows = yield* traces.list(projectId, {
        limit: query.limit,
        after: startNs === undefined || traceId === undefined ? undefined : { startNs, traceId },
        serviceName: query.service_name,
        fromNs: query.from === undefined ? undefined : nanosOf(query.from),
        toNs: query.to === undefined ? undefined : nanosOf(query.to),
        hasError: query.has_error === undefined ? undefined : query.has_error === "true"
      })
      const last = rows.at(-1)
      return {
        traces: rows.map((row) => row.json),
        next: rows.length === query.limit && last !== undefined ? `${last.start_ns}-${last.trace_id}` : null
      }
    })

    /** One trace of the project: summary, spans and linked runs (reported or derived), as JSON texts. */
    const getJson = fn("Traces.getJson")(function* (projectId: string, traceId: string) {
      const found = yield* traces.get(projectId, traceId.toLowerCase())
      if (Option.isNone(found)) return yield* Effect.fail(new NotFound({ message: "trace not found" }))
      const linked = yield* runs.listJson(projectId, {
        limit: Limits.trace.spansPerTraceMax,
        after: undefined,
        threadId: undefined,
        status: undefined,
        modelId: undefined,
        traceId: traceId.toLowerCase(),
        from: undefined,
        to: undefined
      })
      return { trace: found.value.trace, spans: found.value.spans, runs: linked }
    })

    return { ingest, listJson, getJson } as const
  })
}) {}
