/**
 * What an MCP tool is here: a name from schema/Mcp.ts, a description an
 * agent can act on, JSON Schemas made from the schema/ input and output
 * (one source of truth), and a call that decodes the arguments with the
 * project read API's query schema and runs the same src/ use case. Bad
 * arguments are a JSON-RPC invalid-params error naming the field, in a few
 * hundred characters whatever the arguments; an id that is not the
 * project's is a tool result with `isError`.
 */
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as JSONSchema from "effect/JSONSchema"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import { type InvalidRequest, NotFound } from "../../schema/Errors.js"
import { McpInputs, McpOutputs, type McpToolName } from "../../schema/Mcp.js"
import { ECHO_MAX_CHARS, firstFew, MESSAGE_MAX_CHARS, shorten } from "./Params.js"

/** A tool's answer: the structured result (its output schema's encoded shape) and its text rendering. */
export interface ToolAnswer {
  readonly structured: Record<string, unknown>
  readonly text: string
}

export interface ToolResult {
  readonly [key: string]: unknown
  readonly content: ReadonlyArray<{ readonly type: "text"; readonly text: string }>
  readonly structuredContent?: Record<string, unknown>
  readonly isError?: boolean
}

export interface Tool {
  readonly name: McpToolName
  readonly title: string
  readonly description: string
  readonly inputSchema: JsonObject
  readonly outputSchema: JsonObject
  readonly call: (projectId: string, args: Readonly<Record<string, unknown>>) => Effect.Effect<ToolResult, McpError>
}

type Json = null | boolean | number | string | ReadonlyArray<Json> | JsonObject
interface JsonObject {
  readonly [key: string]: Json
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const isQueryBoolean = (property: unknown) =>
  isRecord(property) && Array.isArray(property.enum) && property.enum.join() === "true,false"

/**
 * The JSON Schema an agent sees: Effect's, without the `$id` it gives every
 * `unknown` (the same id twice in one schema is an error to validators such
 * as the SDK client's Ajv), and query booleans as the booleans they are.
 */
const forAgents = (node: unknown, top = true): Json => {
  if (Array.isArray(node)) return node.map((item) => forAgents(item, false))
  if (!isRecord(node)) return node as Json
  const out: Record<string, Json> = {}
  for (const [key, value] of Object.entries(node)) {
    if (key === "$id" && !top) continue
    out[key] = forAgents(value, false)
  }
  if (top && isRecord(node.properties)) {
    const properties: Record<string, Json> = {}
    for (const [key, value] of Object.entries(node.properties)) {
      properties[key] = isQueryBoolean(value) ? { type: "boolean" } : forAgents(value, false)
    }
    out.properties = properties
  }
  return out
}

const rootForAgents = (schema: JSONSchema.JsonSchema7Root): JsonObject => {
  const json = forAgents(schema)
  return typeof json === "object" && json !== null && !Array.isArray(json) ? (json as JsonObject) : {}
}

/**
 * Arguments in their query-string form, so the REST query schemas read them:
 * a number where the schema takes an integer, a boolean where it takes
 * "true" or "false". Anything else is left for the schema to refuse.
 */
const asQuery = (
  args: Readonly<Record<string, unknown>>,
  schema: JSONSchema.JsonSchema7Root
): Record<string, unknown> => {
  const properties = isRecord(schema) && isRecord(schema.properties) ? schema.properties : {}
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(args)) {
    const property = properties[key]
    const integer = isRecord(property) && property.type === "integer"
    out[key] =
      (typeof value === "number" && integer) || (typeof value === "boolean" && isQueryBoolean(property))
        ? String(value)
        : value
  }
  return out
}

/** An issue of an invalid-arguments message, at most (characters). */
const ISSUE_MAX_CHARS = 120

const invalidArguments = (issues: ReadonlyArray<string>): McpError => {
  const { shown, more } = firstFew(issues)
  return new McpError(
    ErrorCode.InvalidParams,
    shorten(
      `invalid arguments: ${shown.map((issue) => shorten(issue, ISSUE_MAX_CHARS)).join("; ")}${more}`,
      MESSAGE_MAX_CHARS
    )
  )
}

/** The value Effect quotes after "actual", at most (characters): enough to recognise, never the argument back. */
const ACTUAL_MAX_CHARS = 24

const invalidParams = (error: ParseResult.ParseError): McpError =>
  invalidArguments(
    ParseResult.ArrayFormatter.formatErrorSync(error).map((issue) => {
      const message = issue.message.replace(
        /, actual (.*)$/s,
        (_, actual: string) => `, actual ${shorten(actual, ACTUAL_MAX_CHARS)}`
      )
      return issue.path.length === 0 ? message : `${issue.path.join(".")}: ${message}`
    })
  )

const expectedOf = (property: unknown): string => {
  if (isQueryBoolean(property)) return "a boolean"
  const type = isRecord(property) ? property.type : undefined
  if (type === "integer") return "an integer"
  if (type === "string" || type === "number" || type === "boolean") return `a ${type}`
  return "a string, number or boolean"
}

/**
 * What the schema's decode should not see: names the tool does not take, and
 * nested values (no tool takes one; Effect's message would quote the value,
 * and its formatter overflows the stack on a deep one). Undefined when none.
 */
const argumentsProblem = (
  name: McpToolName,
  args: Readonly<Record<string, unknown>>,
  properties: Readonly<Record<string, unknown>>
): McpError | undefined => {
  const unknown: Array<string> = []
  const nested: Array<string> = []
  for (const [key, value] of Object.entries(args)) {
    if (!Object.hasOwn(properties, key)) unknown.push(key)
    else if (typeof value === "object" && value !== null) {
      nested.push(
        `${key}: expected ${expectedOf(properties[key])}, received ${Array.isArray(value) ? "an array" : "an object"}`
      )
    }
  }
  if (unknown.length > 0) {
    const { shown, more } = firstFew(unknown)
    return invalidArguments([
      `unexpected ${shown.map((key) => shorten(key, ECHO_MAX_CHARS)).join(", ")}${more}; ${name} takes ${Object.keys(properties).join(", ")}`,
      ...nested
    ])
  }
  return nested.length > 0 ? invalidArguments(nested) : undefined
}

const inputSchemaOf = (name: McpToolName): Schema.Schema.Any => McpInputs[name]
const outputSchemaOf = (name: McpToolName): Schema.Schema.Any => McpOutputs[name]

export const defineTool = <N extends McpToolName>(
  name: N,
  spec: {
    readonly title: string
    readonly description: string
    readonly run: (
      projectId: string,
      input: Schema.Schema.Type<(typeof McpInputs)[N]>
    ) => Effect.Effect<ToolAnswer, NotFound | InvalidRequest>
  }
): Tool => {
  // TypeScript cannot correlate McpInputs[N] with its own Type for a generic N; the record types them per name.
  const input: Schema.Schema<Schema.Schema.Type<(typeof McpInputs)[N]>, unknown> = McpInputs[name] as never
  const decode = Schema.decodeUnknownEither(input, { onExcessProperty: "error", errors: "all" })
  const inputSchema = JSONSchema.make(inputSchemaOf(name))
  const properties = isRecord(inputSchema) && isRecord(inputSchema.properties) ? inputSchema.properties : {}
  return {
    name,
    title: spec.title,
    description: spec.description,
    inputSchema: rootForAgents(inputSchema),
    outputSchema: rootForAgents(JSONSchema.make(outputSchemaOf(name))),
    call: (projectId, args) => {
      const problem = argumentsProblem(name, args, properties)
      if (problem !== undefined) return Effect.fail(problem)
      const decoded = decode(asQuery(args, inputSchema))
      if (Either.isLeft(decoded)) return Effect.fail(invalidParams(decoded.left))
      return spec.run(projectId, decoded.right).pipe(
        Effect.map(
          (answer): ToolResult => ({
            content: [{ type: "text", text: answer.text }],
            structuredContent: answer.structured
          })
        ),
        Effect.catchAll((error) =>
          error instanceof NotFound
            ? Effect.succeed<ToolResult>({
                content: [{ type: "text", text: `${error.message} in this project` }],
                isError: true
              })
            : Effect.fail(new McpError(ErrorCode.InvalidParams, error.message))
        )
      )
    }
  }
}
