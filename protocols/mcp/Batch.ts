/**
 * JSON-RPC batches (decisions.md "MCP"). MCP 2025-03-26 has them (a server
 * must accept them) and 2025-06-18 removed them; the SDK still negotiates
 * 2025-03-26, and a request without MCP-Protocol-Version is taken as
 * 2025-03-26, so a batch is answered, not refused. The SDK's transport would
 * run a batch's calls all at once; here they run one at a time, each as a
 * request of its own, and the batch's answers together stay within
 * BATCH_ANSWERS_MAX_BYTES: the answer that would pass it is left out, the
 * requests after it are not run, and each is answered with an error that
 * says to send it again. So a batch does at most 1 MiB and one answer's work.
 */
import { ErrorCode, JSONRPCMessageSchema } from "@modelcontextprotocol/sdk/types.js"
import { jsonRpcError, methodOf, refusedParams, requestIdOf } from "./Params.js"

/** Messages in one batch, at most (the SDK's own cap). */
export const BATCH_MAX_MESSAGES = 100
/** The answers of one batch, at most (UTF-8 bytes of JSON): four full get_thread pages. */
export const BATCH_ANSWERS_MAX_BYTES = 1024 * 1024

/** What a request gets back over HTTP. */
export interface Answer {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  readonly body: string
}

/** The answer to one JSON-RPC message: 200 with one JSON-RPC answer, 202 with none, or a transport error. */
export type Exchange = (message: unknown) => Promise<Answer>

const JSON_HEADERS = { "content-type": "application/json" }

/** A whole batch refused: 400 with a JSON-RPC error, as the SDK answers a request it cannot take. */
const refused = (message: string): Answer => ({
  status: 400,
  headers: JSON_HEADERS,
  body: JSON.stringify(jsonRpcError(null, ErrorCode.InvalidRequest, `Invalid Request: ${message}`))
})

const NOT_RUN =
  "not run: this batch's answers reached 1 MiB, the most one batch answers; send this request again in another request"
const LEFT_OUT =
  "left out: its answer would take this batch's answers past 1 MiB, the most one batch answers; send this request again on its own"

export const answerBatch = async (messages: ReadonlyArray<unknown>, exchange: Exchange): Promise<Answer> => {
  if (messages.length === 0) return refused("an empty batch")
  if (messages.length > BATCH_MAX_MESSAGES) return refused(`a batch carries at most ${BATCH_MAX_MESSAGES} messages`)
  if (messages.some((message) => methodOf(message) === "initialize")) {
    return refused("initialize must not be part of a JSON-RPC batch")
  }
  const answers: Array<string> = []
  let used = 0
  for (const message of messages) {
    const id = requestIdOf(message)
    // Answered here, or the SDK would refuse the whole body. A request to a method of the server whose
    // params are of the wrong shape is still a request: Params.ts answers it -32602.
    if (!JSONRPCMessageSchema.safeParse(message).success && refusedParams(message) === undefined) {
      answers.push(
        JSON.stringify(jsonRpcError(id ?? null, ErrorCode.InvalidRequest, "Invalid Request: not a JSON-RPC message"))
      )
      continue
    }
    if (id !== undefined && used >= BATCH_ANSWERS_MAX_BYTES) {
      answers.push(JSON.stringify(jsonRpcError(id, -32000, NOT_RUN)))
      continue
    }
    const answer = await exchange(message)
    // A notification or a response: nothing to answer.
    if (answer.status === 202) continue
    // The transport refused the request itself (its headers): the same for every message, so for the batch.
    if (answer.status !== 200) return answer
    // Counted even when left out: the work is done, and the requests after it are not run.
    const bytes = Buffer.byteLength(answer.body, "utf8")
    used += bytes
    answers.push(
      id !== undefined && used > BATCH_ANSWERS_MAX_BYTES
        ? JSON.stringify(jsonRpcError(id, -32000, LEFT_OUT))
        : answer.body
    )
  }
  if (answers.length === 0) return { status: 202, headers: {}, body: "" }
  return { status: 200, headers: JSON_HEADERS, body: `[${answers.join(",")}]` }
}
