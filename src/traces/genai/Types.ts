/**
 * What src/traces/GenAiSpans.ts answers (and re-exports), and what each
 * convention module hands it: here so that the convention modules never
 * import the facade that imports them.
 */
import type { SpanConvention, SpanRole } from "../../../schema/Trace.js"

export interface Recognised {
  readonly convention: SpanConvention | null
  readonly role: SpanRole | null
}

export interface DerivedToolCall {
  readonly tool_name: string
  readonly tool_call_id: string
  readonly tool_args?: unknown
  readonly tool_result?: unknown
  /** Milliseconds from the run span's start. */
  readonly start_ms?: number
  readonly end_ms?: number
}

export interface DerivedRun {
  readonly model_id: string | null
  readonly provider: string | null
  readonly input_tokens: number | null
  readonly output_tokens: number | null
  readonly reasoning_tokens: number | null
  readonly cached_input_tokens: number | null
  readonly duration_ms: number
  readonly first_token_ms: number | null
  readonly status: "completed" | "error"
  readonly error: string | null
  readonly finish_reason: string | null
  readonly output_text: string | null
  readonly total_steps: number | null
  readonly thread_ref: string | null
  readonly user_ref: string | null
  readonly tool_calls: ReadonlyArray<DerivedToolCall>
  readonly input_messages: unknown
  readonly output_messages: unknown
}

/**
 * The fields of a run a convention reads its own way; deriveRun makes the
 * rest (duration, status, error, user and thread refs, the tool calls) the
 * same for every convention and copies these in one by one (no spreads: see
 * deriveRun).
 */
export interface ConventionRun
  extends Pick<
    DerivedRun,
    | "model_id"
    | "provider"
    | "input_tokens"
    | "output_tokens"
    | "reasoning_tokens"
    | "cached_input_tokens"
    | "first_token_ms"
    | "finish_reason"
    | "output_text"
    | "total_steps"
    | "input_messages"
    | "output_messages"
  > {
  /** Tool calls the run's steps declare, put before those the run span declares. */
  readonly step_tool_calls: ReadonlyArray<DerivedToolCall>
}
