import { createHash } from "node:crypto"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { CallerShape } from "../../schema/Api/Security.js"
import { Conflict } from "../../schema/Errors.js"
import type { RunListQuery, RunReport } from "../../schema/Run.js"
import { settled } from "../platform/db/WriteOutcome.js"
import { orNotFound, rowNotFoundAs404 } from "../platform/Found.js"
import { newId } from "../platform/Ids.js"
import { fn } from "../platform/telemetry/Traced.js"
import { Usage } from "../usage/Usage.js"
import { Outbox } from "../webhooks/Outbox.js"
import { type InsertOutcome, RunsRepo } from "./RunsRepo.js"

export { type DerivedRunRow, type DerivedRunWritten, upsertDerivedSql } from "./RunsRepo.js"

/**
 * The run's tool calls, counted once each by `tool_call_id` across the
 * top-level list and the steps' lists: the client library reports each call
 * in both, another client may report them in the steps only.
 */
export const toolCallCount = (input: Pick<RunReport, "tool_calls" | "steps">): number =>
  new Set([
    ...(input.tool_calls ?? []).map((call) => call.tool_call_id),
    ...(input.steps ?? []).flatMap((step) => (step.tool_calls ?? []).map((call) => call.tool_call_id))
  ]).size

export class Runs extends Effect.Service<Runs>()("svc/Runs", {
  dependencies: [RunsRepo.Default, Usage.Default, Outbox.Default],
  effect: Effect.gen(function* () {
    const repo = yield* RunsRepo
    const usage = yield* Usage
    const outbox = yield* Outbox

    /**
     * Stores a run report for a thread of the caller's workspace. With an
     * idempotency key, a retry of the same report answers the first run id;
     * the same key with another report is 409.
     */
    const report = fn("Runs.report")(function* (
      caller: CallerShape,
      input: RunReport,
      idempotencyKey: string | undefined
    ) {
      const detail = {
        attributes: input.attributes,
        metadata: input.metadata,
        cost_details: input.cost_details,
        steps: input.steps,
        tool_calls: input.tool_calls,
        sampling_calls: input.sampling_calls,
        output_text: input.output_text
      }
      const id = newId("run")
      const insert = rowNotFoundAs404(
        repo.insert(caller, {
          id,
          threadId: input.thread_id,
          userId: caller.userId,
          messageId: input.message_id ?? null,
          userMessageId: input.user_message_id ?? null,
          status: input.status,
          outcomeType: input.outcome_type ?? null,
          modelId: input.model_id ?? null,
          provider: input.provider ?? null,
          providerType: input.provider_type ?? null,
          inputTokens: input.input_tokens ?? null,
          outputTokens: input.output_tokens ?? null,
          reasoningTokens: input.reasoning_tokens ?? null,
          cachedInputTokens: input.cached_input_tokens ?? null,
          costUsd: input.cost_usd ?? null,
          durationMs: input.duration_ms ?? null,
          firstTokenMs: input.first_token_ms ?? null,
          totalSteps: input.total_steps ?? null,
          toolCallCount: toolCallCount(input),
          error: input.error ?? null,
          errorCode: input.error_code ?? null,
          traceId: input.trace_id ?? null,
          rootSpanId: input.root_span_id ?? null,
          tags: input.tags ?? [],
          environment: input.environment ?? null,
          release: input.release ?? null,
          detailJson: JSON.stringify(detail),
          idempotencyKey: idempotencyKey ?? null,
          // The sender and the decoded report, as sent: a retry sends the same; another user of the
          // workspace reusing the key is refused rather than answered with a run that is not theirs.
          requestHash:
            idempotencyKey === undefined
              ? null
              : createHash("sha256")
                  .update(`${caller.userId}\n${JSON.stringify(input)}`)
                  .digest("base64url")
        })
      )
      // run.created goes out with the run (the outbox), as the project API reads it; a replay sends nothing.
      // Cut off from the store, the report is looked up by its id before answering (WriteOutcome.ts).
      const outcome = yield* outbox
        .withEvent(caller.projectId, "run.created", insert, (written) =>
          written._tag === "Created"
            ? Effect.map(repo.get(caller.projectId, written.id), (run) => (Option.isSome(run) ? run.value : undefined))
            : Effect.succeed(undefined)
        )
        .pipe(
          settled(
            "run report",
            Effect.map(
              repo.get(caller.projectId, id),
              Option.map((): InsertOutcome => ({ _tag: "Created", id }))
            )
          )
        )
      switch (outcome._tag) {
        case "Created":
          usage.record(caller.projectId, caller.userId, {
            runs: 1,
            run_errors: input.status === "error" ? 1 : 0,
            input_tokens: input.input_tokens ?? 0,
            output_tokens: input.output_tokens ?? 0,
            cost_usd: input.cost_usd ?? 0
          })
          return outcome.id
        case "Replayed":
          return outcome.id
        case "KeyReused":
          return yield* Effect.fail(
            new Conflict({ message: "this Idempotency-Key was used for a different run report" })
          )
      }
    })

    const filters = (query: RunListQuery) => ({
      limit: query.limit,
      after: query.after,
      threadId: query.thread_id,
      status: query.status,
      modelId: query.model_id,
      traceId: query.trace_id,
      tag: query.tag,
      environment: query.environment,
      from: query.from,
      to: query.to
    })

    /** A page of the project's runs, newest first, as one JSON text per run (RunSummary's shape). */
    const listJson = fn("Runs.listJson")(function* (projectId: string, query: RunListQuery) {
      return yield* repo.listJson(projectId, filters(query))
    })

    const get = fn("Runs.get")(function* (projectId: string, runId: string) {
      return yield* Effect.flatMap(repo.get(projectId, runId), orNotFound("run"))
    })

    return {
      report,
      listJson,
      get,
      /** The run, if the project has it. */
      find: repo.get,
      /** Runs derived from model-call spans, written or updated in one statement (traces). */
      upsertDerived: repo.upsertDerived
    } as const
  })
}) {}
