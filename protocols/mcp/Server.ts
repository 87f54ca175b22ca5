/**
 * The MCP server of one request (stateless Streamable HTTP: a server per
 * request, bound to the caller's project): the tools of Tools.ts, threads as
 * resources (`svc://threads/{thread_id}`, read as a bounded transcript), and
 * instructions that tell an agent where to start. A tools/call is `callTool`,
 * which the SDK's handler runs and which the route runs without the SDK for a
 * plain tools/call (Direct.ts).
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js"
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema
} from "@modelcontextprotocol/sdk/types.js"
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv-provider.js"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as Runtime from "effect/Runtime"
import { Limits } from "../../schema/Limits.js"
import { THREAD_RESOURCE_TEMPLATE, threadResourceUri } from "../../schema/Mcp.js"
import { isStoreUnavailable } from "../../src/platform/Defects.js"
import { Messages } from "../../src/threads/Messages.js"
import { Threads } from "../../src/threads/Threads.js"
import { ECHO_MAX_CHARS, shorten } from "./Params.js"
import { messageEntry, nextPage, threadLine } from "./Render.js"
import { makeTools } from "./Tools.js"

/** What the server says it is. */
export const SERVER_INFO = { name: "svc-gateway", title: "Conversation gateway (read-only)", version: "1.0.0" }

const INSTRUCTIONS = `Read-only access to one project of a conversational assistant backend: its conversation threads and messages (across every workspace and user), model runs with usage and tool calls, scores, daily usage, and OpenTelemetry traces.
Start with search_threads to find conversations about a topic, or list_threads for the most recent ones; open a thread with get_thread. For activity and cost, usage_period gives an overview and usage_daily a day-by-day view; list_runs and get_run show model calls, list_traces and get_trace the traces behind them. Lists are paged: pass next_after (or next_offset for search) back to read on. Threads are also resources at svc://threads/{thread_id}.`

/** Messages a thread resource shows. */
const RESOURCE_MESSAGES = 50
/** A thread resource's text, at most (characters). */
const RESOURCE_MAX_CHARS = 64 * 1024
/** MCP's code for a resource that does not exist. */
const RESOURCE_NOT_FOUND = -32002

const THREAD_URI = /^svc:\/\/threads\/([^/?#]+)$/

/** A tools/call's params, as the SDK's CallToolRequestSchema gives them. */
export interface ToolCallParams {
  readonly name: string
  readonly arguments?: Readonly<Record<string, unknown>> | undefined
}

/**
 * A request's note that the store could not be reached while it was
 * answered: the route then answers the whole request 503 with Retry-After,
 * as REST does (every tool reads, so the client's retry is safe), rather
 * than an "internal error" the client would not retry.
 */
export interface Outage {
  cause: unknown
}

/**
 * An effect's outcome as the SDK would answer it: its McpError as itself, anything
 * else (a defect, an interruption) as "internal error", never its own text; a
 * store that could not be reached is also noted in `outage`.
 */
const settle = <A>(effect: Effect.Effect<A, McpError>, outage: Outage): Effect.Effect<Either.Either<A, McpError>> =>
  Effect.map(Effect.exit(effect), (exit) => {
    if (Exit.isSuccess(exit)) return Either.right(exit.value)
    const failure = Cause.failureOption(exit.cause)
    if (failure._tag === "Some") return Either.left(failure.value)
    const defect = Cause.dieOption(exit.cause)
    if (defect._tag === "Some" && isStoreUnavailable(defect.value)) outage.cause ??= defect.value
    return Either.left(new McpError(ErrorCode.InternalError, "internal error"))
  })

export const makeServerFactory = Effect.gen(function* () {
  const tools = yield* makeTools
  const threads = yield* Threads
  const messages = yield* Messages
  const runtime = yield* Effect.runtime<never>()

  /** Runs an effect for the SDK: its McpError is thrown as itself (the SDK answers it as JSON-RPC). */
  const run = async <A>(effect: Effect.Effect<A, McpError>, outage: Outage): Promise<A> => {
    const settled = await Runtime.runPromise(runtime)(settle(effect, outage))
    if (Either.isLeft(settled)) throw settled.left
    return settled.right
  }

  const listed = tools.map((tool) => ({
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: { ...tool.inputSchema, type: "object" as const },
    outputSchema: { ...tool.outputSchema, type: "object" as const },
    annotations: { title: tool.title, readOnlyHint: true, destructiveHint: false, openWorldHint: false }
  }))
  const byName = new Map(tools.map((tool) => [tool.name as string, tool]))
  // One validator for every request's server: the SDK would otherwise build an Ajv instance per server.
  const jsonSchemaValidator = new AjvJsonSchemaValidator()

  const readThread = (projectId: string, threadId: string) =>
    Effect.gen(function* () {
      const thread = JSON.parse(yield* threads.getJsonInProject(projectId, threadId))
      const rows = yield* messages.listProject(projectId, threadId, {
        limit: RESOURCE_MESSAGES,
        format: undefined,
        after: undefined
      })
      let text = `# ${thread.title === null || thread.title === "" ? "(untitled thread)" : thread.title}\n\n${threadLine(thread)}\n`
      let shown = 0
      for (const row of rows) {
        const entry = `\n${messageEntry(Object.assign({}, row, { content: JSON.parse(row.content) }), threadId)}\n`
        if (shown > 0 && text.length + entry.length > RESOURCE_MAX_CHARS) break
        text += entry
        shown += 1
      }
      const last = rows[shown - 1]
      if (shown < rows.length || rows.length === RESOURCE_MESSAGES) {
        text += `\n${nextPage("get_thread", last?.id ?? null, ` and thread_id="${threadId}"`)}\n`
      }
      return text
    }).pipe(
      Effect.catchAll(() =>
        Effect.fail(new McpError(RESOURCE_NOT_FOUND, `no thread ${shorten(threadId, ECHO_MAX_CHARS)} in this project`))
      )
    )

  /**
   * A tools/call, as the SDK's handler answers it (Server below) and as the route answers
   * it without the SDK (Direct.ts): the result, or the McpError the SDK would answer.
   */
  const callTool = (
    projectId: string,
    params: ToolCallParams,
    outage: Outage
  ): Effect.Effect<Either.Either<CallToolResult, McpError>> => {
    const tool = byName.get(params.name)
    if (tool === undefined) {
      return Effect.succeed(
        Either.left(new McpError(ErrorCode.InvalidParams, `no tool named ${shorten(params.name, ECHO_MAX_CHARS)}`))
      )
    }
    // Suspended: whatever the call throws is a defect, answered "internal error", never its own text.
    return settle(
      Effect.map(
        Effect.suspend(() => tool.call(projectId, params.arguments ?? {})),
        (result): CallToolResult => ({
          content: result.content.map((part) => ({ type: "text", text: part.text })),
          ...(result.structuredContent === undefined ? {} : { structuredContent: result.structuredContent }),
          ...(result.isError === true ? { isError: true } : {})
        })
      ),
      outage
    )
  }

  const serverFor = (projectId: string, outage: Outage): Server => {
    const server = new Server(SERVER_INFO, {
      capabilities: { tools: { listChanged: false }, resources: { listChanged: false } },
      instructions: INSTRUCTIONS,
      jsonSchemaValidator
    })
    server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: listed }))
    server.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => {
      const answer = await Runtime.runPromise(runtime)(callTool(projectId, request.params, outage))
      if (Either.isLeft(answer)) throw answer.left
      return answer.right
    })
    server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({
      resourceTemplates: [
        {
          uriTemplate: THREAD_RESOURCE_TEMPLATE,
          name: "thread",
          title: "Conversation thread",
          description: `A thread and its first ${RESOURCE_MESSAGES} messages as a transcript (get_thread reads on)`,
          mimeType: "text/markdown"
        }
      ]
    }))
    server.setRequestHandler(ListResourcesRequestSchema, async (request) =>
      run(
        threads
          .listProject(projectId, {
            limit: Limits.thread.listMax,
            after: request.params?.cursor,
            is_archived: undefined
          })
          .pipe(
            Effect.map((list) => {
              const last = list.at(-1)
              return {
                resources: list.map((thread) => ({
                  uri: threadResourceUri(thread.id),
                  name: thread.id,
                  title: thread.title === null || thread.title === "" ? "(untitled thread)" : thread.title,
                  mimeType: "text/markdown"
                })),
                ...(list.length === Limits.thread.listMax && last !== undefined ? { nextCursor: last.id } : {})
              }
            }),
            Effect.catchAll((error) => Effect.fail(new McpError(ErrorCode.InvalidParams, error.message)))
          ),
        outage
      )
    )
    server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
      const match = THREAD_URI.exec(request.params.uri)
      if (match?.[1] === undefined) {
        throw new McpError(
          RESOURCE_NOT_FOUND,
          `no resource ${shorten(request.params.uri, ECHO_MAX_CHARS)}: threads are svc://threads/{thread_id}`
        )
      }
      let threadId: string
      try {
        threadId = decodeURIComponent(match[1])
      } catch {
        throw new McpError(RESOURCE_NOT_FOUND, `no resource ${shorten(request.params.uri, ECHO_MAX_CHARS)}`)
      }
      const text = await run(readThread(projectId, threadId), outage)
      return { contents: [{ uri: request.params.uri, mimeType: "text/markdown", text }] }
    })
    return server
  }
  return { serverFor, callTool }
})
