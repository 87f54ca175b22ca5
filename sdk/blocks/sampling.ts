import type { SamplingCall } from "../../schema/Run.js"

/**
 * One MCP sampling call as a run report takes it (an entry of a tool call's
 * `sampling_calls`): the model, the token counts the response gave, and the
 * handler's duration.
 */
export type SamplingCallData = (typeof SamplingCall)["Encoded"]

/** What a sampling handler is given: an MCP `sampling/createMessage` request (only the model hints are read). */
export interface McpSamplingRequest {
  readonly params?:
    | {
        readonly modelPreferences?:
          | { readonly hints?: ReadonlyArray<{ readonly name?: string | undefined }> | undefined }
          | undefined
      }
    | undefined
}

/**
 * What a sampling handler answers: an MCP `CreateMessageResult`, with the
 * usage some hosts add to it (only the model and the usage are read).
 */
export interface McpSamplingResponse {
  readonly model?: string | undefined
  readonly usage?: McpSamplingUsage | undefined
}

/** Token counts in either naming. */
export interface McpSamplingUsage {
  readonly inputTokens?: number | undefined
  readonly outputTokens?: number | undefined
  readonly promptTokens?: number | undefined
  readonly completionTokens?: number | undefined
  readonly reasoningTokens?: number | undefined
  readonly cachedInputTokens?: number | undefined
}

/**
 * A sampling handler: the request, then whatever else the MCP client passes
 * (its `extra`: abort signal, request id...), which the wrapper hands on.
 */
export type McpSamplingHandler<
  Request extends McpSamplingRequest = McpSamplingRequest,
  Response extends McpSamplingResponse = McpSamplingResponse,
  Rest extends ReadonlyArray<unknown> = ReadonlyArray<unknown>
> = (request: Request, ...rest: Rest) => Response | Promise<Response>

const report = (error: unknown): void => {
  try {
    console.error("[svc-client] onSamplingCall callback threw an error", error)
  } catch {
    // A console that throws must not reach the handler either.
  }
}

/** A finite number, else nothing (a count the response gave in another type is left out). */
const count = (value: unknown): number | undefined =>
  typeof value === "number" && Number.isFinite(value) ? value : undefined

const modelOf = (request: McpSamplingRequest, response: McpSamplingResponse): string | undefined => {
  if (typeof response.model === "string" && response.model !== "") return response.model
  const hint = request.params?.modelPreferences?.hints?.[0]?.name
  return typeof hint === "string" && hint !== "" ? hint : undefined
}

/** The call's data: model from the response else the first hint; both token namings; always a duration. */
const callData = (request: McpSamplingRequest, response: McpSamplingResponse, durationMs: number) => {
  const usage = response.usage
  const data: { -readonly [K in keyof SamplingCallData]: SamplingCallData[K] } = {}
  const model = modelOf(request, response)
  if (model !== undefined) data.model_id = model
  const input = count(usage?.inputTokens) ?? count(usage?.promptTokens)
  if (input !== undefined) data.input_tokens = input
  const output = count(usage?.outputTokens) ?? count(usage?.completionTokens)
  if (output !== undefined) data.output_tokens = output
  const reasoning = count(usage?.reasoningTokens)
  if (reasoning !== undefined) data.reasoning_tokens = reasoning
  const cached = count(usage?.cachedInputTokens)
  if (cached !== undefined) data.cached_input_tokens = cached
  data.duration_ms = durationMs
  return data
}

/**
 * Wraps an MCP sampling handler so each call it answers is reported to
 * `onCall` (model, usage, duration). The handler gets the same arguments
 * and its answer is returned as it is, or its error thrown as it is (a failed
 * call is not reported). `onCall` is called before the answer is returned
 * and not awaited; if it throws or rejects, the error is logged and the
 * handler's answer goes back all the same.
 */
export const wrapSamplingHandler = <
  Request extends McpSamplingRequest,
  Response extends McpSamplingResponse,
  Rest extends ReadonlyArray<unknown>
>(
  handler: McpSamplingHandler<Request, Response, Rest>,
  onCall: (data: SamplingCallData) => void
): ((request: Request, ...rest: Rest) => Promise<Response>) => {
  return async (request, ...rest) => {
    const start = Date.now()
    const response = await handler(request, ...rest)
    const durationMs = Math.max(0, Date.now() - start)
    try {
      const data = callData(request, response, durationMs)
      void Promise.resolve(onCall(data)).catch(report)
    } catch (error) {
      report(error)
    }
    return response
  }
}

/** Gathers the sampling calls of, say, one tool call: pass `collect` to `wrapSamplingHandler`. */
export interface SamplingCollector {
  /** Adds a call (the `onCall` of `wrapSamplingHandler`). */
  readonly collect: (data: SamplingCallData) => void
  /** The calls so far, oldest first, as a new array. */
  readonly getCalls: () => Array<SamplingCallData>
  /** Forgets every call. */
  readonly reset: () => void
}

export const createSamplingCollector = (): SamplingCollector => {
  const calls: Array<SamplingCallData> = []
  return {
    collect: (data) => {
      calls.push(data)
    },
    getCalls: () => [...calls],
    reset: () => {
      calls.length = 0
    }
  }
}
