/**
 * `/v1/mcp`: MCP over Streamable HTTP, stateless, JSON responses
 * (docs/decisions.md "MCP"), mounted on the one HTTP server. This module is the
 * transport: the API key (401 with `WWW-Authenticate: Bearer`), POST only
 * (GET and DELETE are 405: no stream to resume, no session to end), and the
 * SDK's web-standard transport in front of a server made for the caller's
 * project (Server.ts), one per JSON-RPC message: a batch's messages run one
 * at a time (Batch.ts), params the SDK's schemas refuse are answered
 * -32602 before it sees them (Params.ts), and a plain tools/call is answered
 * without them, in the bytes they would answer (Direct.ts). Body caps and the backend-only host are the gateway
 * middleware's (protocols/rest/RouteTable.ts); MCP is not rate limited.
 */

import * as HttpLayerRouter from "@effect/platform/HttpLayerRouter"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Runtime from "effect/Runtime"
import { MCP_PATH } from "../../schema/Mcp.js"
import { ApiKeys } from "../../src/auth/ApiKeys.js"
import { bearerOf } from "../rest/Auth.js"
import { type Answer, answerBatch } from "./Batch.js"
import { type CallTool, directCall } from "./Direct.js"
import { jsonRpcError, refusedParams } from "./Params.js"
import { makeServerFactory, type Outage } from "./Server.js"

/** A transport-level refusal: a JSON-RPC error (id null) with an HTTP status. */
const refusal = (status: number, code: number, message: string, headers: Record<string, string>) =>
  HttpServerResponse.unsafeJson(jsonRpcError(null, code, message), { status, headers })

type RequestHeaders = HttpServerRequest.HttpServerRequest["headers"]

/** A header of the request (Effect's headers are lower-case names). */
const headerOf =
  (headers: RequestHeaders) =>
  (name: string): string | undefined =>
    headers[name]

/** The body as JSON, or undefined when it is not (the SDK answers that: 400, -32700). */
const parseJson = (body: string): { readonly value: unknown } | undefined => {
  try {
    return { value: JSON.parse(body) }
  } catch {
    return undefined
  }
}

export const McpRoutes = Layer.effectDiscard(
  Effect.gen(function* () {
    const keys = yield* ApiKeys
    const { serverFor, callTool } = yield* makeServerFactory
    const runtime = yield* Effect.runtime<never>()
    const router = yield* HttpLayerRouter.HttpRouter

    /**
     * One JSON-RPC message through a server and a transport of its own (stateless: no
     * sessionIdGenerator at all, exactOptionalPropertyTypes), or the -32602 of its params;
     * `raw` is a body that is not JSON, for the SDK to refuse.
     */
    const throughSdk =
      (projectId: string, requestHeaders: RequestHeaders, outage: Outage) =>
      async (message: unknown, raw?: string): Promise<Answer> => {
        const refusal = raw === undefined ? refusedParams(message) : undefined
        if (refusal !== undefined) {
          return { status: 200, headers: { "content-type": "application/json" }, body: JSON.stringify(refusal) }
        }
        const headers = new Headers(Object.entries(requestHeaders))
        const server = serverFor(projectId, outage)
        const transport = new WebStandardStreamableHTTPServerTransport({ enableJsonResponse: true })
        await server.connect(transport)
        try {
          const web = new Request(`http://gateway${MCP_PATH}`, {
            method: "POST",
            headers,
            ...(raw === undefined ? {} : { body: raw })
          })
          const response = await transport.handleRequest(web, raw === undefined ? { parsedBody: message } : {})
          // JSON responses are whole: read here rather than piped as a web stream (measured slower).
          const answerHeaders: Record<string, string> = {}
          response.headers.forEach((value, name) => {
            if (name !== "content-length") answerHeaders[name] = value
          })
          return { status: response.status, headers: answerHeaders, body: await response.text() }
        } finally {
          await server.close()
        }
      }

    const handler = Effect.gen(function* () {
      const request = yield* HttpServerRequest.HttpServerRequest
      if (request.method !== "POST") {
        return refusal(
          405,
          -32000,
          "this MCP endpoint is stateless: POST JSON-RPC messages; there is no stream to open or session to end",
          { allow: "POST" }
        )
      }
      const token = bearerOf(request)
      const key = token === undefined ? undefined : yield* keys.verify(token)
      if (key === undefined) {
        return HttpServerResponse.unsafeJson(
          {
            error: "unauthorized",
            message: token === undefined ? "missing bearer API key" : "invalid, expired or revoked API key"
          },
          {
            status: 401,
            headers: {
              "www-authenticate":
                token === undefined ? 'Bearer realm="mcp"' : 'Bearer realm="mcp", error="invalid_token"'
            }
          }
        )
      }
      const body = yield* Effect.orDie(request.text)
      const parsed = parseJson(body)
      // The store unreachable during any of the request's calls: 503 for the whole request (Server.ts Outage).
      const outage: Outage = { cause: undefined }
      const call: CallTool = (projectId, params) => callTool(projectId, params, outage)
      const sdk = throughSdk(key.projectId, request.headers, outage)
      const header = headerOf(request.headers)
      let answer: Answer
      if (parsed === undefined) answer = yield* Effect.promise(() => sdk(undefined, body))
      else if (Array.isArray(parsed.value)) {
        const messages = parsed.value
        answer = yield* Effect.promise(() =>
          answerBatch(messages, (message) => {
            const direct = directCall(call, key.projectId, header, message)
            return direct === undefined ? sdk(message) : Runtime.runPromise(runtime)(direct)
          })
        )
      } else {
        // The common case stays on this fiber: a tools/call the SDK need not see (Direct.ts).
        const message = parsed.value
        const direct = directCall(call, key.projectId, header, message)
        answer = direct === undefined ? yield* Effect.promise(() => sdk(message)) : yield* direct
      }
      if (outage.cause !== undefined) return yield* Effect.die(outage.cause)
      return HttpServerResponse.text(answer.body, {
        status: answer.status,
        headers: answer.headers,
        contentType: answer.headers["content-type"] ?? "application/json"
      })
    })

    yield* router.add("*", MCP_PATH, handler)
  })
)
