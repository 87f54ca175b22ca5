/**
 * Runs made from model-call spans (docs/decisions.md "Traces (OTLP/HTTP)"):
 * one run per span, made once however often the span is exported, with the
 * tool calls and steps of the spans that belong to it. A tool or step span
 * may come in a later export than its model call (the GenAI conventions'
 * tool spans start after the call that asked for them): the run then takes
 * it in. A run made here raises `run.created` like a reported one.
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { SpanConvention, SpanRole } from "../../schema/Trace.js"
import { newId } from "../platform/Ids.js"
import { fn } from "../platform/telemetry/Traced.js"
import { type DerivedRunRow, Runs } from "../runs/Runs.js"
import { Threads } from "../threads/Threads.js"
import { NO_USER, Usage } from "../usage/Usage.js"
import { Outbox } from "../webhooks/Outbox.js"
import { type DerivedRun, deriveRun, toolBelongsTo } from "./GenAiSpans.js"
import type { SpanInput } from "./SpanModel.js"
import { SpansRepo, type StoredSpan } from "./SpansRepo.js"

/** A span stored by this export, with what was recognised in it. */
export interface NewPart {
  readonly span: SpanInput
  readonly convention: SpanConvention | null
  readonly role: SpanRole
}

const belongs = (part: StoredSpan, model: SpanInput) =>
  part.span.parent_span_id === model.span_id || (part.role === "tool_call" && toolBelongsTo(part.span, model))

/**
 * The run's detail: where it came from, the output text and tool calls. The
 * prompt and completion messages stay in the span (the run names it): a
 * copy in every run would double what a model-call span costs to store.
 */
const detailOf = (run: DerivedRun, span: SpanInput, convention: string | null) => ({
  attributes: {
    source: "trace",
    convention,
    span_name: span.name,
    ...(run.finish_reason === null ? {} : { finish_reason: run.finish_reason })
  },
  tool_calls: run.tool_calls,
  output_text: run.output_text
})

export interface Derived {
  readonly made: number
  /** Counts the runs made in usage: call it once their transaction has committed. */
  readonly recordUsage: () => void
}

const NONE: Derived = { made: 0, recordUsage: () => {} }

export class TraceRuns extends Effect.Service<TraceRuns>()("svc/TraceRuns", {
  dependencies: [SpansRepo.Default, Runs.Default, Threads.Default, Usage.Default, Outbox.Default],
  effect: Effect.gen(function* () {
    const spans = yield* SpansRepo
    const runs = yield* Runs
    const threads = yield* Threads
    const usage = yield* Usage
    const outbox = yield* Outbox

    /**
     * The runs that the spans just stored call for, as rows to write: a new
     * model call makes one; a new tool or step span completes the model call
     * it belongs to. `earlier`: the traces that held spans before, whose
     * stored parts are read (only they can have parts elsewhere).
     */
    const plan = fn("TraceRuns.plan")(function* (
      projectId: string,
      stored: ReadonlyArray<NewPart>,
      earlier: ReadonlyArray<string>
    ) {
      if (stored.length === 0) return []
      const key = (span: SpanInput) => `${span.trace_id}/${span.span_id}`
      const isNew = new Set<SpanInput>()
      // The spans of this export are at hand; only traces that held spans before can have parts elsewhere.
      const byTrace = new Map<string, Array<StoredSpan>>()
      const add = (part: StoredSpan) => {
        const list = byTrace.get(part.span.trace_id)
        if (list === undefined) byTrace.set(part.span.trace_id, [part])
        else list.push(part)
      }
      for (const part of stored) {
        isNew.add(part.span)
        add(part)
      }
      const toLoad = earlier.filter((traceId) => byTrace.has(traceId))
      if (toLoad.length > 0) {
        const newKeys = new Set(stored.map((part) => key(part.span)))
        for (const part of yield* spans.runParts(projectId, toLoad)) if (!newKeys.has(key(part.span))) add(part)
      }
      const wanted: Array<{ readonly model: StoredSpan; readonly run: DerivedRun }> = []
      for (const list of byTrace.values()) {
        const newParts = list.filter((part) => isNew.has(part.span))
        for (const model of list) {
          if (model.role !== "model_call") continue
          const fresh = isNew.has(model.span)
          if (!fresh && !newParts.some((part) => part !== model && belongs(part, model.span))) continue
          const related = list.filter((part) => part !== model).map((part) => part.span)
          const run = deriveRun(model.span, related)
          if (run !== undefined) wanted.push({ model, run })
        }
      }
      if (wanted.length === 0) return []
      const refs = [...new Set(wanted.flatMap(({ run }) => (run.thread_ref === null ? [] : [run.thread_ref])))]
      const owners = new Map(
        refs.length === 0 ? [] : (yield* threads.ownersInProject(projectId, refs)).map((row) => [row.id, row])
      )
      return wanted.map(({ model: { span, convention }, run }): DerivedRunRow => {
        const thread = run.thread_ref === null ? undefined : owners.get(run.thread_ref)
        return {
          id: newId("run"),
          trace_id: span.trace_id,
          span_id: span.span_id,
          thread_id: thread?.id ?? null,
          workspace_id: thread?.workspace_id ?? null,
          user_id: run.user_ref ?? thread?.user_id ?? null,
          status: run.status,
          model_id: run.model_id,
          provider: run.provider,
          input_tokens: run.input_tokens,
          output_tokens: run.output_tokens,
          reasoning_tokens: run.reasoning_tokens,
          cached_input_tokens: run.cached_input_tokens,
          duration_ms: run.duration_ms,
          first_token_ms: run.first_token_ms,
          total_steps: run.total_steps,
          tool_call_count: run.tool_calls.length,
          error: run.error,
          detail: detailOf(run, span, convention)
        }
      })
    })

    /** The runs of `rows` made now (`created`), and how to count them in usage once their transaction has committed. */
    const madeOf = (
      projectId: string,
      rows: ReadonlyArray<DerivedRunRow>,
      created: ReadonlyArray<{ readonly trace_id: string; readonly span_id: string }>
    ): Derived => {
      if (created.length === 0) return NONE
      const bySpan = new Map(rows.map((row) => [`${row.trace_id}/${row.span_id}`, row]))
      const counted = created.flatMap((made) => {
        const row = bySpan.get(`${made.trace_id}/${made.span_id}`)
        return row === undefined ? [] : [row]
      })
      return {
        made: created.length,
        recordUsage: () => {
          for (const row of counted) {
            usage.record(projectId, row.user_id ?? NO_USER, {
              runs: 1,
              run_errors: row.status === "error" ? 1 : 0,
              input_tokens: row.input_tokens ?? 0,
              output_tokens: row.output_tokens ?? 0
            })
          }
        }
      }
    }

    /**
     * Makes or completes the runs that the spans just stored call for (plan),
     * and writes them. Runs in the transaction that stores the spans (src/traces/Traces.ts):
     * spans and their runs commit together, or neither does. Answers how many
     * runs were made, and how to count them in usage once that has committed
     * (usage is buffered in memory, and must not count runs that rolled back).
     */
    const derive = fn("TraceRuns.derive")(function* (
      projectId: string,
      stored: ReadonlyArray<NewPart>,
      earlier: ReadonlyArray<string>
    ) {
      const rows = yield* plan(projectId, stored, earlier)
      if (rows.length === 0) return NONE
      // run.created goes out with the runs (the outbox), as the project API reads them; a re-export sends nothing.
      const created = yield* outbox.withEvents(projectId, "run.created", runs.upsertDerived(projectId, rows), (made) =>
        Effect.map(
          Effect.forEach(made, (run) => runs.find(projectId, run.id)),
          (found) => found.flatMap((run) => (Option.isSome(run) ? [run.value] : []))
        )
      )
      return madeOf(projectId, rows, created)
    })

    /**
     * Whether the runs made now go out as run.created events (a subscription
     * of the project wants them): then they are written by `derive`, with
     * their deliveries; else they may be written with their spans (plan,
     * then madeOf with what the statement made).
     */
    const eventsWanted = (projectId: string) => outbox.wants(projectId, "run.created")

    return { plan, madeOf, derive, eventsWanted } as const
  })
}) {}
