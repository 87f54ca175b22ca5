/**
 * tools/call answered without the SDK's server and transport (docs/decisions.md
 * "MCP"). A stateless request through the SDK makes a `Server` and a transport,
 * a web `Request` and `Response`, and runs the message through a dozen zod
 * parses (most of them failing tests of what the message is not); for a
 * tools/call that is most of the request's time beyond the tool itself. This
 * answers the same bytes the SDK answers for the requests it takes, and takes
 * only the plainest: one JSON-RPC request to tools/call whose headers the
 * transport accepts and whose params the SDK's schema accepts, without task
 * augmentation. Anything else (undefined here) goes through the SDK as before.
 */
import { isJsonContentType } from "@modelcontextprotocol/sdk/shared/mediaType.js"
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  type McpError,
  SUPPORTED_PROTOCOL_VERSIONS
} from "@modelcontextprotocol/sdk/types.js"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import type { Answer } from "./Batch.js"
import type { ToolCallParams } from "./Server.js"

/** What the transport reads of a request's headers (lower-case names). */
export type HeaderOf = (name: string) => string | undefined

/** A tools/call of a project, settled as the SDK would answer it (Server.ts). */
export type CallTool = (
  projectId: string,
  params: ToolCallParams
) => Effect.Effect<Either.Either<CallToolResult, McpError>>

const JSON_HEADERS = { "content-type": "application/json" }

/** The keys a JSON-RPC request may carry: the SDK's JSONRPCRequestSchema is strict. */
const REQUEST_KEYS = new Set(["jsonrpc", "id", "method", "params"])

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** What the transport would refuse before any server sees the message (406, 415, 400): left to it. */
const headersTaken = (header: HeaderOf): boolean => {
  const accept = header("accept")
  if (accept === undefined || !accept.includes("application/json") || !accept.includes("text/event-stream")) {
    return false
  }
  if (!isJsonContentType(header("content-type") ?? null)) return false
  const version = header("mcp-protocol-version")
  return version === undefined || SUPPORTED_PROTOCOL_VERSIONS.includes(version)
}

/** The id of a request the SDK takes as one (a string or a safe integer), else undefined. */
const idOf = (message: Record<string, unknown>): string | number | undefined => {
  const id = message.id
  return typeof id === "string" || (typeof id === "number" && Number.isSafeInteger(id)) ? id : undefined
}

/**
 * The answer to `message` when it is a tools/call this path takes, else undefined.
 * The bodies are the SDK's: `{"result":…,"jsonrpc":"2.0","id":…}` and
 * `{"jsonrpc":"2.0","id":…,"error":{"code":…,"message":…}}`, the message of an
 * McpError carrying its "MCP error <code>: " prefix as the SDK writes it.
 */
export const directCall = (
  callTool: CallTool,
  projectId: string,
  header: HeaderOf,
  message: unknown
): Effect.Effect<Answer> | undefined => {
  if (!isRecord(message) || message.jsonrpc !== "2.0" || message.method !== "tools/call") return undefined
  for (const key of Object.keys(message)) if (!REQUEST_KEYS.has(key)) return undefined
  const id = idOf(message)
  const params = message.params
  // A task-augmented call is refused by the SDK's server (no tasks capability): left to it.
  if (id === undefined || !isRecord(params) || Object.hasOwn(params, "task") || !headersTaken(header)) {
    return undefined
  }
  // The params the SDK's handler would get (its schema's output); a refusal is Params.ts's to answer.
  const parsed = CallToolRequestSchema.safeParse({ method: "tools/call", params })
  if (!parsed.success) return undefined
  return Effect.map(callTool(projectId, parsed.data.params), (settled) => ({
    status: 200,
    headers: JSON_HEADERS,
    body: Either.isRight(settled)
      ? JSON.stringify({ result: settled.right, jsonrpc: "2.0", id })
      : JSON.stringify({
          jsonrpc: "2.0",
          id,
          error: {
            code: Number.isSafeInteger(settled.left.code) ? settled.left.code : ErrorCode.InternalError,
            message: settled.left.message,
            ...(settled.left.data === undefined ? {} : { data: settled.left.data })
          }
        })
  }))
}
