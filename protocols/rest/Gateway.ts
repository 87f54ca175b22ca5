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
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { Limits } from "../../schema/Limits.js"

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
  return Effect.logError("request failed", cause).pipe(Effect.as(errorResponse(500, "internal", "internal error")))
}

export const gatewayMiddleware = (defaultMaxBytes: number) =>
  HttpLayerRouter.middleware(
    (httpEffect) =>
      Effect.gen(function* () {
        const request = yield* HttpServerRequest.HttpServerRequest
        let maxBytes = defaultMaxBytes
        if (hasBody(request)) {
          const policy = bodyPolicy(request.url.split("?")[0] ?? "", defaultMaxBytes)
          maxBytes = policy.maxBytes
          const length = Number(request.headers["content-length"] ?? 0)
          if (length > policy.maxBytes) {
            return errorResponse(413, "payload_too_large", `request body is larger than ${policy.maxBytes} bytes`)
          }
          if (policy.json && !isJson(request.headers["content-type"])) {
            return errorResponse(415, "unsupported_media_type", "request body must be application/json")
          }
        }
        const response = yield* HttpIncomingMessage.withMaxBodySize(httpEffect, Option.some(maxBytes))
        return normalizeDecodeError(response)
      }).pipe(Effect.catchAllCause(fromCause)),
    { global: true }
  )
