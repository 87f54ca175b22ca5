/**
 * One global middleware for every route: body caps (413) and JSON media type
 * (415) before a handler runs, and every failure that escaped the routes turned
 * into the `{ error, message }` body of decisions.md §1. A defect is logged and
 * answers 500 with no internals.
 */
import * as HttpApiError from "@effect/platform/HttpApiError"
import * as HttpIncomingMessage from "@effect/platform/HttpIncomingMessage"
import * as HttpLayerRouter from "@effect/platform/HttpLayerRouter"
import * as HttpServerError from "@effect/platform/HttpServerError"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as NodeHttpServerRequest from "@effect/platform-node/NodeHttpServerRequest"
import { SqlError } from "@effect/sql/SqlError"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { Limits } from "../../schema/Limits.js"
import { sqlState } from "../../src/storage/SqlErrors.js"

const errorResponse = (status: number, error: string, message: string, details?: Record<string, unknown>) =>
  HttpServerResponse.unsafeJson({ error, message, ...details }, { status })

export interface BodyPolicy {
  readonly maxBytes: number
  /** The body must be declared as JSON. */
  readonly json: boolean
}

/** Per-route body rules; everything under /v1 speaks JSON. */
export const bodyPolicy = (path: string, defaultMaxBytes: number): BodyPolicy =>
  /\/threads\/[^/]+\/messages(\/[^/]+)?$/.test(path)
    ? { maxBytes: Math.min(defaultMaxBytes, Limits.body.messageMaxBytes), json: true }
    : { maxBytes: defaultMaxBytes, json: true }

const hasBody = (request: HttpServerRequest.HttpServerRequest): boolean => {
  const length = request.headers["content-length"]
  return (length !== undefined && length !== "0") || request.headers["transfer-encoding"] !== undefined
}

const isJson = (contentType: string | undefined): boolean => {
  if (contentType === undefined) return false
  const type = (contentType.split(";")[0] ?? "").trim().toLowerCase()
  return type === "application/json" || (type.startsWith("application/") && type.endsWith("+json"))
}

const issuePath = (path: ReadonlyArray<PropertyKey>): string => path.map(String).join(".")

/** HttpApi encodes its own decode failures as `HttpApiDecodeError`; the wire wants invalid_request. */
const normalizeDecodeError = (response: HttpServerResponse.HttpServerResponse) => {
  if (response.status !== 400 || response.body._tag !== "Uint8Array") return response
  let decoded: unknown
  try {
    decoded = JSON.parse(new TextDecoder().decode(response.body.body))
  } catch {
    return response
  }
  if (typeof decoded !== "object" || decoded === null || !("_tag" in decoded)) return response
  if (decoded._tag !== "HttpApiDecodeError") return response
  const all = (decoded as HttpApiError.HttpApiDecodeError).issues.map((issue) => ({
    path: issuePath(issue.path),
    message: issue.message
  }))
  // An optional field's union adds "Expected undefined" beside the real issue.
  const issues = all.filter(
    (issue) =>
      !(
        issue.message.startsWith("Expected undefined") &&
        all.some((other) => other !== issue && other.path === issue.path)
      )
  )
  const first = issues[0]
  const message =
    first === undefined
      ? "invalid request"
      : `invalid request: ${first.path === "" ? "" : `${first.path}: `}${first.message}`
  return errorResponse(400, "invalid_request", message, { issues })
}

const isBodyTooLarge = (error: HttpServerError.RequestError) =>
  error.cause instanceof Error && error.cause.message === "maxBytes exceeded"

/**
 * SQLSTATEs of values PostgreSQL refuses (bad text encoding, NUL, malformed
 * JSON, too deep). The schemas refuse these first; this keeps a value they
 * miss a 400 rather than a 500.
 */
const UNSTORABLE_SQLSTATES = new Set(["22P05", "22021", "22P02", "22001", "54001"])

const isUnstorableValue = (error: unknown): boolean =>
  error instanceof SqlError && UNSTORABLE_SQLSTATES.has(sqlState(error) ?? "")

const fromCause = (cause: Cause.Cause<unknown>) => {
  if (Cause.isInterruptedOnly(cause)) return Effect.failCause(cause)
  // Body read failures surface as defects of the HttpApi route, so look at the squashed error.
  const error = Cause.squash(cause)
  if (HttpServerError.isServerError(error)) {
    if (error._tag === "RouteNotFound") return Effect.succeed(errorResponse(404, "not_found", "no such route"))
    if (error._tag === "RequestError") {
      return Effect.succeed(
        isBodyTooLarge(error)
          ? errorResponse(413, "payload_too_large", "request body is too large")
          : errorResponse(400, "invalid_request", "request body is not valid JSON", { issues: [] })
      )
    }
  }
  if (isUnstorableValue(error)) {
    return Effect.logWarning("a value the database refused reached it", cause).pipe(
      Effect.as(errorResponse(400, "invalid_request", "a value in the request cannot be stored", { issues: [] }))
    )
  }
  return Effect.logError("request failed", cause).pipe(Effect.as(errorResponse(500, "internal", "internal error")))
}

/**
 * A body sent without Content-Length (chunked), read here under the cap. The
 * platform's own cap destroys the request stream, and with it the socket,
 * before a 413 can be written; reading here lets the 413 out. Within the cap,
 * handlers get a request whose body is the bytes already read.
 */
const readChunkedBody = (request: HttpServerRequest.HttpServerRequest, maxBytes: number) =>
  Effect.async<Buffer | "too_large", HttpServerError.RequestError>((resume) => {
    const source = NodeHttpServerRequest.toIncomingMessage(request)
    const chunks: Array<Buffer> = []
    let size = 0
    const cleanup = () => {
      source.off("data", onData)
      source.off("end", onEnd)
      source.off("error", onError)
    }
    const onData = (chunk: Buffer) => {
      size += chunk.length
      if (size <= maxBytes) {
        chunks.push(chunk)
        return
      }
      cleanup()
      // Discard the rest; the 413 closes the connection.
      source.resume()
      resume(Effect.succeed("too_large"))
    }
    const onEnd = () => {
      cleanup()
      resume(Effect.succeed(Buffer.concat(chunks)))
    }
    const onError = (cause: Error) => {
      cleanup()
      resume(Effect.fail(new HttpServerError.RequestError({ request, reason: "Transport", cause })))
    }
    source.on("data", onData)
    source.on("end", onEnd)
    source.on("error", onError)
    return Effect.sync(cleanup)
  })

const withBody = (request: HttpServerRequest.HttpServerRequest, body: Buffer): HttpServerRequest.HttpServerRequest => {
  const text = body.toString("utf8")
  const replay: HttpServerRequest.HttpServerRequest = Object.create(request, {
    text: { value: Effect.succeed(text) },
    json: {
      value: Effect.try({
        try: (): unknown => (text === "" ? null : JSON.parse(text)),
        catch: (cause) => new HttpServerError.RequestError({ request, reason: "Decode", cause })
      })
    },
    arrayBuffer: { value: Effect.succeed(new Uint8Array(body).buffer) }
  })
  return replay
}

const tooLarge = (maxBytes: number) =>
  errorResponse(413, "payload_too_large", `request body is larger than ${maxBytes} bytes`)

export const gatewayMiddleware = (defaultMaxBytes: number) =>
  HttpLayerRouter.middleware(
    (httpEffect) =>
      Effect.gen(function* () {
        const request = yield* HttpServerRequest.HttpServerRequest
        let maxBytes = defaultMaxBytes
        if (hasBody(request)) {
          const policy = bodyPolicy(request.url.split("?")[0] ?? "", defaultMaxBytes)
          maxBytes = policy.maxBytes
          const declared = request.headers["content-length"]
          if (declared !== undefined && Number(declared) > policy.maxBytes) return tooLarge(policy.maxBytes)
          if (policy.json && !isJson(request.headers["content-type"])) {
            return errorResponse(415, "unsupported_media_type", "request body must be application/json")
          }
          if (declared === undefined) {
            const body = yield* readChunkedBody(request, policy.maxBytes)
            if (body === "too_large") {
              return HttpServerResponse.setHeader(tooLarge(policy.maxBytes), "connection", "close")
            }
            const response = yield* Effect.provideService(
              httpEffect,
              HttpServerRequest.HttpServerRequest,
              withBody(request, body)
            )
            return normalizeDecodeError(response)
          }
        }
        const response = yield* HttpIncomingMessage.withMaxBodySize(httpEffect, Option.some(maxBytes))
        return normalizeDecodeError(response)
      }).pipe(Effect.catchAllCause(fromCause)),
    { global: true }
  )
