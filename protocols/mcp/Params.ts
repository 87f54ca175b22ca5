/**
 * A request's params checked before the SDK sees it (decisions.md "MCP").
 * The SDK parses a request with its schema before the handler runs and
 * answers a failure as -32603 with zod's issues dumped as JSON; here a
 * request to a method this server answers whose params its schema refuses
 * is -32602 with a short message naming the field. Zod's schemas stop at
 * `unknown` (tool arguments, `_meta`), so a deeply nested value costs no
 * recursion here; the tools refuse nested arguments themselves (Tool.ts).
 */
import {
  CallToolRequestSchema,
  ErrorCode,
  InitializeRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  PingRequestSchema,
  ReadResourceRequestSchema
} from "@modelcontextprotocol/sdk/types.js"

/** A JSON-RPC error answer, as the SDK writes one. */
export interface JsonRpcError {
  readonly jsonrpc: "2.0"
  readonly id: string | number | null
  readonly error: { readonly code: number; readonly message: string }
}

export const jsonRpcError = (id: string | number | null, code: number, message: string): JsonRpcError => ({
  jsonrpc: "2.0",
  id,
  error: { code, message }
})

/** The methods the server answers (Server.ts), with the SDK's schema of each. */
const REQUESTS = {
  initialize: InitializeRequestSchema,
  ping: PingRequestSchema,
  "tools/list": ListToolsRequestSchema,
  "tools/call": CallToolRequestSchema,
  "resources/list": ListResourcesRequestSchema,
  "resources/templates/list": ListResourceTemplatesRequestSchema,
  "resources/read": ReadResourceRequestSchema
} as const

/** An error message's length, at most: enough to name a field or two, never a value echoed back. */
export const MESSAGE_MAX_CHARS = 300
/** Issues a message lists, at most. */
export const ISSUES_SHOWN = 3
/** A name or URI a message repeats (a tool, a resource), at most (characters). */
export const ECHO_MAX_CHARS = 64

/** The first ISSUES_SHOWN of `items`, and what says how many more there are (" (and 7 more)", or ""). */
export const firstFew = <A>(items: ReadonlyArray<A>): { readonly shown: ReadonlyArray<A>; readonly more: string } => {
  const shown = items.slice(0, ISSUES_SHOWN)
  const left = items.length - shown.length
  return { shown, more: left > 0 ? ` (and ${left.toLocaleString("en")} more)` : "" }
}

/** `text` cut to `max` characters with an ellipsis. */
export const shorten = (text: string, max: number): string => (text.length <= max ? text : `${text.slice(0, max - 1)}…`)

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** The id of a JSON-RPC request (an object with a method and a string or integer id), else undefined. */
export const requestIdOf = (message: unknown): string | number | undefined => {
  if (!isRecord(message) || message.jsonrpc !== "2.0" || typeof message.method !== "string") return undefined
  const id = message.id
  return typeof id === "string" || (typeof id === "number" && Number.isInteger(id)) ? id : undefined
}

const isAnswered = (method: string): method is keyof typeof REQUESTS => Object.hasOwn(REQUESTS, method)

export const methodOf = (message: unknown): string | undefined =>
  isRecord(message) && typeof message.method === "string" ? message.method : undefined

const article = (type: string) =>
  type === "record" || type === "object" ? "an object" : type === "array" ? "an array" : `a ${type}`

/** zod's "Invalid input: expected record, received array" as "expected an object, received an array". */
const readable = (message: string) =>
  message
    .replace(/^Invalid input: /, "")
    .replace(
      /\b(expected|received) (record|object|array|string|number|boolean)\b/g,
      (_, word: string, type: string) => `${word} ${article(type)}`
    )

/** The -32602 answer to a request whose params its method's schema refuses; undefined for anything else. */
export const refusedParams = (message: unknown): JsonRpcError | undefined => {
  const id = requestIdOf(message)
  const method = methodOf(message)
  if (id === undefined || method === undefined || !isAnswered(method) || !isRecord(message)) return undefined
  const parsed = REQUESTS[method].safeParse({ method, params: message.params })
  if (parsed.success) return undefined
  const { shown: issues, more } = firstFew(parsed.error.issues)
  const shown = issues.map((issue) => {
    const path = issue.path.length === 1 ? issue.path : issue.path.slice(1)
    return `${path.map(String).join(".")}: ${readable(issue.message)}`
  })
  return jsonRpcError(
    id,
    ErrorCode.InvalidParams,
    shorten(`invalid params of ${method}: ${shown.join("; ")}${more}`, MESSAGE_MAX_CHARS)
  )
}
