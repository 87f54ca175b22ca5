/**
 * Trace exports and reads (docs/decisions.md "Traces (OTLP/HTTP)"). An
 * export's spans are checked against their bounds (src/traces/SpanChecks.ts),
 * recognised (src/traces/GenAiSpans.ts), stored once per (trace id, span id) with at
 * most 500 spans a trace across exports, and the model calls among them
 * become runs (src/traces/TraceRuns.ts) in the same transaction: one
 * statement for the traces new to the store (SpansRepo.storeNew, batched
 * with other exports of the project under load), the transaction of several
 * under each trace's lock for the others. What is
 * refused is counted and said, never shortened; the rest is kept.
 */
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { NotFound } from "../../schema/Errors.js"
import { Limits } from "../../schema/Limits.js"
import { INT64_MAX, type TraceListQuery } from "../../schema/Trace.js"
import { DatabasePool } from "../platform/db/DatabasePool.js"
import { isUnreachable } from "../platform/db/StoreErrors.js"
import { makeGroupCommit } from "../platform/GroupCommit.js"
import { fn } from "../platform/telemetry/Traced.js"
import { type DerivedRunRow, Runs } from "../runs/Runs.js"
import { checkSpans, refusalReason } from "./SpanChecks.js"
import type { SpanInput } from "./SpanModel.js"
import { bytesOf, fitsTogether, type ResourceRow, type SpanRow, SpansRepo } from "./SpansRepo.js"
import { type Derived, type NewPart, TraceRuns } from "./TraceRuns.js"
import { TracesRepo } from "./TracesRepo.js"

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
/**
 * Export bytes decoded at once by one gateway, in KiB: one export of the
 * 4 MiB cap, or several smaller ones. Decoded spans cost up to ~75 times
 * their bytes (a 4 MiB export of ~80,000 tiny spans peaks near 300 MB:
 * `npm run bench:otlp-memory`), so this, not the count of exports, is what
 * bounds the memory the receiver can take. An export waits for its share
 * within the same TURN_WAIT.
 */
const DECODE_BUDGET_KIB = 4 * 1024

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

/** An export's traces new to the store, to be written by storeNew (alone, or batched with others of its project). */
interface NewTracesWrite {
  readonly rows: ReadonlyArray<SpanRow>
  readonly resources: ReadonlyArray<ResourceRow>
  readonly planned: ReadonlyArray<DerivedRunRow>
  readonly traceIds: ReadonlySet<string>
  readonly bytes: number
}

/** An export's share of a storeNew statement. */
interface NewTracesShare {
  /** Its traces the statement made (the others held spans, or were being made). */
  readonly made: ReadonlySet<string>
  /** Its spans stored. */
  readonly stored: number
}

/** A batch being gathered: its spans, bytes and traces (exports of one trace never share a statement). */
interface BatchSize {
  readonly spans: number
  readonly bytes: number
  readonly traceIds: Set<string>
}

const busy = () => new TraceExportsBusy({ message: "too many exports are being stored; retry shortly" })

const plural = (count: number, one: string, many: string) => `${count} ${count === 1 ? one : many}`

const NS_PER_MS = 1_000_000n

/**
 * The parts of a run among these spans, as stored if every trace is new to
 * the store: a trace's first `cap` spans (the rest are over its cap).
 */
const partsOfNewTraces = (rows: ReadonlyArray<SpanRow>, cap: number): Array<NewPart> => {
  const counts = new Map<string, number>()
  const parts: Array<NewPart> = []
  for (const row of rows) {
    const n = (counts.get(row.span.trace_id) ?? 0) + 1
    counts.set(row.span.trace_id, n)
    if (row.role !== null && n <= cap) parts.push({ span: row.span, convention: row.convention, role: row.role })
  }
  return parts
}

/** A time as nanoseconds within what the store keeps (a date past 2262 is as late as any span can be). */
const nanosOf = (date: Date): string => {
  const ns = BigInt(date.getTime()) * NS_PER_MS
  return String(ns < 0n ? 0n : ns > INT64_MAX ? INT64_MAX : ns)
}

/**
 * `effect` with `permits` of `semaphore`, given back whatever happens: at
 * once when they are free, else once they are, waiting (interruptibly) at
 * most `wait`; none when they did not come in time. Only a wait is raced
 * against a timer: a timer an export cost its fiber and clock about ten
 * times what taking free permits does (some 0.1 ms of CPU an export).
 */
const withPermitsWithin =
  (semaphore: Effect.Semaphore, permits: number, wait: Duration.Duration) =>
  <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<Option.Option<A>, E, R> =>
    Effect.flatMap(semaphore.withPermitsIfAvailable(permits)(effect), (ran) =>
      Option.isSome(ran)
        ? Effect.succeed(ran)
        : Effect.uninterruptibleMask((restore) =>
            Effect.flatMap(restore(semaphore.take(permits)).pipe(Effect.timeoutOption(wait)), (taken) =>
              Option.isNone(taken)
                ? Effect.succeedNone
                : restore(Effect.asSome(effect)).pipe(Effect.ensuring(semaphore.release(permits)))
            )
          )
    )

export class Traces extends Effect.Service<Traces>()("svc/Traces", {
  dependencies: [SpansRepo.Default, TracesRepo.Default, Runs.Default, TraceRuns.Default],
  effect: Effect.gen(function* () {
    const spans = yield* SpansRepo
    const traces = yield* TracesRepo
    const runs = yield* Runs
    const traceRuns = yield* TraceRuns
    const pool = yield* DatabasePool
    const atOnce = Option.match(pool.stats, { onNone: () => EMBEDDED_AT_ONCE, onSome: (stats) => stats().max })
    const turns = yield* Effect.makeSemaphore(atOnce)
    const decoding = yield* Effect.makeSemaphore(DECODE_BUDGET_KIB)
    const cap = Limits.trace.spansPerTraceMax

    /**
     * Exports of one project's new traces, batched under load
     * (src/platform/GroupCommit.ts): as many statements of a project run at
     * once as there are turns, each taking one; while they all run, the
     * exports that arrive gather and go together in the next one, up to one
     * statement's size (2,000 spans, 1 MB), instead of waiting for a turn
     * each (and being answered 503 after TURN_WAIT). What a gathering export
     * holds meanwhile is its decode share, so the decode budget still bounds
     * them. Exports that share a trace do not share a statement. Each export
     * still gets what it alone would have: its traces made, its spans stored
     * (the statement counts them by trace).
     */
    const newTraces = makeGroupCommit({
      maxInFlight: atOnce,
      sizeOf: (write: NewTracesWrite): BatchSize => ({
        spans: write.rows.length,
        bytes: write.bytes,
        traceIds: new Set(write.traceIds)
      }),
      joins: (size: BatchSize, write: NewTracesWrite): BatchSize | undefined => {
        if (!fitsTogether(size.spans + write.rows.length, size.bytes + write.bytes)) return undefined
        for (const traceId of write.traceIds) if (size.traceIds.has(traceId)) return undefined
        for (const traceId of write.traceIds) size.traceIds.add(traceId)
        return { spans: size.spans + write.rows.length, bytes: size.bytes + write.bytes, traceIds: size.traceIds }
      },
      // A batch refused for want of a turn, or cut off from the store, would fail again export by export.
      splitOnFailure: (cause) =>
        Option.match(Cause.failureOption(cause), {
          onNone: () => true,
          onSome: (error) => !(error instanceof TraceExportsBusy) && !isUnreachable(error)
        }),
      write: (projectId: string, writes: ReadonlyArray<NewTracesWrite>) =>
        Effect.gen(function* () {
          const rows = writes.flatMap((write) => write.rows)
          const planned = writes.flatMap((write) => write.planned)
          // A resource named by several exports is written once.
          const resources = [
            ...new Map(writes.flatMap((write) => write.resources.map((r) => [r.id, r] as const))).values()
          ]
          // In a transaction of its own, one statement long: a gateway killed while the statement waits leaves
          // nothing (its session ends with the transaction open), as it leaves nothing of `store`'s.
          const taken = yield* withPermitsWithin(
            turns,
            1,
            TURN_WAIT
          )(spans.transaction(spans.storeNew(projectId, rows, resources, planned, cap)))
          if (Option.isNone(taken)) return yield* Effect.fail(busy())
          const outcome = taken.value
          // Committed: the runs made count in usage now, whichever export's answer is still to be written.
          if (outcome.made.length > 0) traceRuns.madeOf(projectId, planned, outcome.created).recordUsage()
          const made = new Set(outcome.made)
          return writes.map((write): NewTracesShare => {
            const mine = new Set<string>()
            let stored = 0
            for (const traceId of write.traceIds) {
              if (!made.has(traceId)) continue
              mine.add(traceId)
              stored += outcome.stored[traceId] ?? 0
            }
            return { made: mine, stored }
          })
        })
    })

    /** Stores a decoded export; its statements for stored traces wait at most `wait` for a turn. */
    const store = (projectId: string, decoded: DecodedExport, wait: Duration.Duration) =>
      Effect.gen(function* () {
        const reasons: Array<string> = []
        let rejected = decoded.invalid
        if (decoded.invalid > 0) reasons.push(decoded.invalidReason)
        const checked = checkSpans(decoded.spans)
        for (const [rule, count] of checked.refused) {
          rejected += count
          reasons.push(refusalReason(rule, count))
        }
        if (checked.rows.length === 0) return { rejected, message: reasons.join("; ") } satisfies ExportOutcome
        let rows = checked.rows
        let fresh = 0
        let stored = 0
        const made: Array<Derived> = []
        // Traces new to the store (the usual export: a batch of whole traces), with their runs, in one statement,
        // batched with other exports of the project under load. Not when the runs' events are wanted (their
        // deliveries are written with them), nor for a large export.
        const bytes = bytesOf(rows)
        if (fitsTogether(rows.length, bytes) && !(yield* traceRuns.eventsWanted(projectId))) {
          const planned = yield* traceRuns.plan(projectId, partsOfNewTraces(rows, cap), [])
          const share = yield* newTraces.submit(projectId, {
            rows,
            resources: checked.resources,
            planned,
            traceIds: new Set(rows.map((row) => row.span.trace_id)),
            bytes
          })
          if (share.made.size > 0) {
            rows = rows.filter((row) => !share.made.has(row.span.trace_id))
            fresh += checked.rows.length - rows.length
            stored += share.stored
          }
        }
        if (rows.length > 0) {
          const rest = rows
          // The spans and the runs made of them are one unit: a failure (or a crash) between the two leaves
          // neither, and the exporter's retry stores both, where runs made apart would be lost for good.
          const taken = yield* withPermitsWithin(
            turns,
            1,
            wait
          )(
            spans.transaction(
              Effect.gen(function* () {
                const outcome = yield* spans.store(projectId, rest, checked.resources, cap)
                const storedKeys = new Set(outcome.stored.map((span) => `${span.trace_id}/${span.span_id}`))
                const parts: Array<NewPart> = []
                for (const row of rest) {
                  if (row.role !== null && storedKeys.has(`${row.span.trace_id}/${row.span.span_id}`)) {
                    parts.push({ span: row.span, convention: row.convention, role: row.role })
                  }
                }
                const derived = yield* traceRuns.derive(projectId, parts, outcome.earlier)
                return { outcome, derived }
              })
            )
          )
          if (Option.isNone(taken)) return yield* Effect.fail(busy())
          const { outcome, derived } = taken.value
          fresh += outcome.fresh
          stored += outcome.stored.length
          made.push(derived)
        }
        for (const derived of made) derived.recordUsage()
        const overCap = fresh - stored
        if (overCap > 0) {
          rejected += overCap
          reasons.push(
            `${plural(overCap, `span is past the ${cap}th of its trace`, `spans are past the ${cap}th of their trace`)} (a trace keeps at most ${cap} spans, counted across exports)`
          )
        }
        return { rejected, message: reasons.join("; ") } satisfies ExportOutcome
      })

    /**
     * Decodes and stores an export of `size` bytes: what was refused and why,
     * the rest kept. Its share of the decode budget, then (for traces the
     * store holds) its turn, are waited for interruptibly (acquireUseRelease's
     * acquire is not, and a timeout could not end the wait), within TURN_WAIT
     * in all; once taken, each is given back whatever happens. Its new
     * traces' statement takes a turn of its own (batched under load).
     */
    const ingest = fn("Traces.ingest")(<E>(projectId: string, size: number, decode: Effect.Effect<DecodedExport, E>) =>
      Effect.gen(function* () {
        const started = yield* Clock.currentTimeMillis
        const weight = Math.min(DECODE_BUDGET_KIB, Math.max(1, Math.ceil(size / 1024)))
        const outcome = yield* withPermitsWithin(
          decoding,
          weight,
          TURN_WAIT
        )(
          Effect.gen(function* () {
            const decoded = yield* decode
            const waited = (yield* Clock.currentTimeMillis) - started
            const left = Duration.millis(Math.max(0, Duration.toMillis(TURN_WAIT) - waited))
            return yield* store(projectId, decoded, left)
          })
        )
        if (Option.isNone(outcome)) return yield* Effect.fail(busy())
        return outcome.value
      })
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
        trace_id: traceId.toLowerCase()
      })
      return { trace: found.value.trace, spans: found.value.spans, runs: linked }
    })

    return { ingest, listJson, getJson, batches: newTraces.stats } as const
  })
}) {}
