import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { Run, RunSummary } from "../../schema/Run.js"
import { RowNotFound } from "../platform/db/RowNotFound.js"
import { whenReferenceGone } from "../platform/db/SqlErrors.js"
import { isoTimestampSql } from "../platform/db/SqlText.js"
import type { TenantScope } from "../platform/db/TenantScope.js"
import { fn } from "../platform/telemetry/Traced.js"

export interface NewRun {
  readonly id: string
  readonly threadId: string
  readonly userId: string
  readonly messageId: string | null
  readonly userMessageId: string | null
  readonly status: string
  readonly outcomeType: string | null
  readonly modelId: string | null
  readonly provider: string | null
  readonly providerType: string | null
  readonly inputTokens: number | null
  readonly outputTokens: number | null
  readonly reasoningTokens: number | null
  readonly cachedInputTokens: number | null
  readonly costUsd: number | null
  readonly durationMs: number | null
  readonly firstTokenMs: number | null
  readonly totalSteps: number | null
  readonly toolCallCount: number
  readonly error: string | null
  readonly errorCode: string | null
  readonly traceId: string | null
  readonly rootSpanId: string | null
  readonly tags: ReadonlyArray<string>
  readonly environment: string | null
  readonly release: string | null
  /** attributes, metadata, cost_details, steps, tool_calls, sampling_calls and output_text, serialized. */
  readonly detailJson: string
  readonly idempotencyKey: string | null
  readonly requestHash: string | null
}

/** A run made from a model-call span (src/traces/TraceRuns.ts). */
export interface DerivedRunRow {
  readonly id: string
  readonly trace_id: string
  readonly span_id: string
  readonly thread_id: string | null
  readonly workspace_id: string | null
  readonly user_id: string | null
  readonly status: "completed" | "error"
  readonly model_id: string | null
  readonly provider: string | null
  readonly input_tokens: number | null
  readonly output_tokens: number | null
  readonly reasoning_tokens: number | null
  readonly cached_input_tokens: number | null
  readonly duration_ms: number
  readonly first_token_ms: number | null
  readonly total_steps: number | null
  readonly tool_call_count: number
  readonly error: string | null
  /** attributes, steps, tool_calls and output_text, as for a report. */
  readonly detail: unknown
}

const DERIVED_COLUMNS = `id text, trace_id text, span_id text, thread_id text, workspace_id text, user_id text, status text,
  model_id text, provider text, input_tokens bigint, output_tokens bigint, reasoning_tokens bigint,
  cached_input_tokens bigint, duration_ms bigint, first_token_ms bigint, total_steps integer, tool_call_count integer,
  error text, detail jsonb`

/** A derived run as its upsert answers it: `created` when made now, not taken from an earlier export. */
export interface DerivedRunWritten {
  readonly id: string
  readonly trace_id: string
  readonly span_id: string
  readonly created: boolean
}

/**
 * The upsert of derived runs (`runs`: a JSON array of DerivedRunRow), one
 * run per span, made once; a run made before takes the new tool calls, steps
 * and detail. With `spansIn` (the name of a CTE of `trace_id, span_id` in the
 * same statement), only the runs of those spans: the trace receiver writes
 * spans, traces and runs in one statement (src/traces/SpansRepo.ts).
 */
export const upsertDerivedSql = (sql: SqlClient.SqlClient, projectId: string, runs: string, spansIn?: "inserted") =>
  sql<DerivedRunWritten>`INSERT INTO runs (project_id, id, trace_id, span_id, thread_id, workspace_id, user_id, status, model_id,
      provider, input_tokens, output_tokens, reasoning_tokens, cached_input_tokens, duration_ms, first_token_ms,
      total_steps, tool_call_count, error, detail)
    SELECT ${projectId}, r.id, r.trace_id, r.span_id, r.thread_id, r.workspace_id, r.user_id, r.status, r.model_id,
      r.provider, r.input_tokens, r.output_tokens, r.reasoning_tokens, r.cached_input_tokens, r.duration_ms,
      r.first_token_ms, r.total_steps, r.tool_call_count, r.error, r.detail
    FROM jsonb_to_recordset(${runs}::jsonb) AS r(${sql.literal(DERIVED_COLUMNS)})
    ${sql.literal(spansIn === undefined ? "" : `WHERE (r.trace_id, r.span_id) IN (SELECT trace_id, span_id FROM ${spansIn})`)}
    ON CONFLICT (project_id, trace_id, span_id) WHERE span_id IS NOT NULL DO UPDATE SET
      total_steps = excluded.total_steps, tool_call_count = excluded.tool_call_count, detail = excluded.detail
    RETURNING id, trace_id, span_id, (xmax = 0) AS created`

/** What an insert did; RowNotFound (the thread) is a failure. */
export type InsertOutcome =
  | { readonly _tag: "Created"; readonly id: string }
  | { readonly _tag: "Replayed"; readonly id: string }
  | { readonly _tag: "KeyReused" }

export interface RunFilters {
  readonly limit: number
  readonly after: string | undefined
  readonly threadId: string | undefined
  readonly status: string | undefined
  readonly modelId: string | undefined
  readonly traceId: string | undefined
  /** Runs whose tags include it (optional: callers made before it need not name it). */
  readonly tag?: string | undefined
  readonly environment?: string | undefined
  readonly from: Date | undefined
  readonly to: Date | undefined
}

const SUMMARY_COLUMNS = `id, thread_id, workspace_id, user_id, message_id, user_message_id, status, outcome_type,
  model_id, provider, provider_type, input_tokens::float8 AS input_tokens, output_tokens::float8 AS output_tokens,
  reasoning_tokens::float8 AS reasoning_tokens, cached_input_tokens::float8 AS cached_input_tokens, cost_usd,
  duration_ms::float8 AS duration_ms, first_token_ms::float8 AS first_token_ms, total_steps, tool_call_count,
  error, error_code, trace_id, span_id, root_span_id, tags, environment, release, created_at`

interface Detail {
  readonly attributes?: unknown
  readonly metadata?: unknown
  readonly cost_details?: unknown
  readonly steps?: ReadonlyArray<unknown>
  readonly tool_calls?: ReadonlyArray<unknown>
  readonly sampling_calls?: ReadonlyArray<unknown>
  readonly output_text?: string
}

type SummaryRow = ConstructorParameters<typeof RunSummary>[0]

const toRun = (row: SummaryRow & { readonly detail: Detail }): Run => {
  const { detail, ...summary } = row
  // Object.assign, not `{ ...summary, more }`: V8 (Node 20) makes that literal slowly (tens of µs).
  return Run.make(
    Object.assign({}, summary, {
      attributes: detail.attributes ?? null,
      metadata: detail.metadata ?? null,
      cost_details: detail.cost_details ?? null,
      steps: detail.steps ?? [],
      tool_calls: detail.tool_calls ?? [],
      sampling_calls: detail.sampling_calls ?? [],
      output_text: detail.output_text ?? null
    }),
    { disableValidation: true }
  )
}

export class RunsRepo extends Effect.Service<RunsRepo>()("svc/RunsRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const summary = sql.literal(SUMMARY_COLUMNS)
    const summaryJson = sql.literal(
      SUMMARY_COLUMNS.replace(/created_at$/, `${isoTimestampSql("created_at")} AS created_at`)
    )

    /**
     * One statement stores the run if the thread is in scope and the
     * idempotency key is new. When nothing was stored, a second looks for
     * the key: the same request answers its run again, another is refused.
     */
    const insert = (scope: TenantScope, run: NewRun): Effect.Effect<InsertOutcome, RowNotFound | SqlError> =>
      Effect.gen(function* () {
        const inserted = yield* sql<{ id: string }>`
          INSERT INTO runs (project_id, id, thread_id, workspace_id, user_id, message_id, user_message_id, status,
            outcome_type, model_id, provider, provider_type, input_tokens, output_tokens, reasoning_tokens,
            cached_input_tokens, cost_usd, duration_ms, first_token_ms, total_steps, tool_call_count, error,
            error_code, trace_id, root_span_id, tags, environment, release, detail, idempotency_key, request_hash)
          SELECT ${scope.projectId}, ${run.id}, t.id, ${scope.workspaceId}, ${run.userId}, ${run.messageId},
            ${run.userMessageId}, ${run.status}, ${run.outcomeType}, ${run.modelId}, ${run.provider},
            ${run.providerType}, ${run.inputTokens}, ${run.outputTokens}, ${run.reasoningTokens},
            ${run.cachedInputTokens}, ${run.costUsd}::float8, ${run.durationMs}, ${run.firstTokenMs},
            ${run.totalSteps}, ${run.toolCallCount}, ${run.error}, ${run.errorCode}, ${run.traceId},
            ${run.rootSpanId}, ARRAY(SELECT jsonb_array_elements_text(${JSON.stringify(run.tags)}::jsonb)),
            ${run.environment}, ${run.release}, ${run.detailJson}::jsonb, ${run.idempotencyKey}, ${run.requestHash}
          FROM threads t
          WHERE t.project_id = ${scope.projectId} AND t.workspace_id = ${scope.workspaceId} AND t.id = ${run.threadId}
          ON CONFLICT (project_id, workspace_id, idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING
          RETURNING id`.pipe(whenReferenceGone([]))
        const created = inserted[0]
        if (created !== undefined) return { _tag: "Created", id: created.id } satisfies InsertOutcome
        if (run.idempotencyKey !== null) {
          const [earlier] = yield* sql<{ id: string; request_hash: string | null }>`
            SELECT id, request_hash FROM runs
            WHERE project_id = ${scope.projectId} AND workspace_id = ${scope.workspaceId}
              AND idempotency_key = ${run.idempotencyKey}`
          if (earlier !== undefined) {
            return earlier.request_hash === run.requestHash
              ? ({ _tag: "Replayed", id: earlier.id } satisfies InsertOutcome)
              : ({ _tag: "KeyReused" } satisfies InsertOutcome)
          }
        }
        return yield* Effect.fail(new RowNotFound({ what: "thread" }))
      })

    /** The WHERE clause of a project's run list. */
    const where = (projectId: string, filters: RunFilters) => {
      const conditions = [sql`project_id = ${projectId}`]
      if (filters.after !== undefined) conditions.push(sql`id < ${filters.after}`)
      if (filters.threadId !== undefined) conditions.push(sql`thread_id = ${filters.threadId}`)
      if (filters.status !== undefined) conditions.push(sql`status = ${filters.status}`)
      if (filters.modelId !== undefined) conditions.push(sql`model_id = ${filters.modelId}`)
      if (filters.traceId !== undefined) conditions.push(sql`trace_id = ${filters.traceId}`)
      // Containment (not `= ANY`): the form a GIN index over tags would serve.
      if (filters.tag !== undefined) conditions.push(sql`tags @> ARRAY[${filters.tag}]::text[]`)
      if (filters.environment !== undefined) conditions.push(sql`environment = ${filters.environment}`)
      if (filters.from !== undefined) conditions.push(sql`created_at >= ${filters.from.toISOString()}::timestamptz`)
      if (filters.to !== undefined) conditions.push(sql`created_at < ${filters.to.toISOString()}::timestamptz`)
      return sql.and(conditions)
    }

    /**
     * A project's runs, newest first, as JSON text, one object a run, made by the database
     * (timestamps as ISO 8601 UTC with milliseconds): the protocol splices it
     * into the answer without building and encoding objects (measured in bench/).
     */
    const listJson = (projectId: string, filters: RunFilters) =>
      sql<{ json: string }>`SELECT row_to_json(r)::text AS json FROM (
          SELECT ${summaryJson} FROM runs WHERE ${where(projectId, filters)} ORDER BY id DESC LIMIT ${filters.limit}
        ) r ORDER BY r.id DESC`.pipe(Effect.map((rows) => rows.map((row) => row.json)))

    const get = (projectId: string, runId: string) =>
      sql<SummaryRow & { detail: Detail }>`SELECT ${summary}, detail FROM runs
        WHERE project_id = ${projectId} AND id = ${runId}`.pipe(
        Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), toRun))
      )

    /**
     * Writes the runs of model-call spans in one statement: one run per span,
     * made once; a run made before takes the new tool calls, steps and detail
     * (its tool spans may come in later exports). Answers the runs made now.
     */
    const upsertDerived = (projectId: string, runs: ReadonlyArray<DerivedRunRow>) =>
      upsertDerivedSql(sql, projectId, JSON.stringify(runs)).pipe(
        Effect.map((rows) => rows.filter((row) => row.created))
      )

    return {
      upsertDerived: fn("RunsRepo.upsertDerived")(upsertDerived, Effect.orDie),
      insert: fn("RunsRepo.insert")(insert, Effect.catchTag("SqlError", Effect.die)),
      listJson: fn("RunsRepo.listJson")(listJson, Effect.orDie),
      get: fn("RunsRepo.get")(get, Effect.orDie)
    } as const
  })
}) {}
