/**
 * One global middleware for every route: body caps (413) and JSON media type
 * (415) before a handler runs, and every failure that escaped the routes turned
 * into the `{ error, message }` body of docs/api-and-auth.md "Errors". A defect
 * is logged and answers 500 with no internals.
 */
import * as HttpApiError from "@effect/platform/HttpApiError"
import * as HttpLayerRouter from "@effect/platform/HttpLayerRouter"
import * as HttpServerError from "@effect/platform/HttpServerError"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import { IdentityHeaderNames } from "../../schema/Api/Identity.js"
import {
  Forbidden,
  Internal,
  InvalidRequest,
  Issue,
  NotFound,
  OutcomeUnknown,
  PayloadTooLarge,
  Unavailable,
  UnsupportedMediaType
} from "../../schema/Errors.js"
import { isStoreUnavailable, isUnstorableValue, unknownWriteOf } from "../../src/platform/Defects.js"
import { Origins } from "../../src/projects/Origins.js"
import { declaresBody, JsonBodyError, MAX_BYTES_EXCEEDED, recordBodyCap, withBodyRules } from "./Body.js"
import { FrontendProject, splitFrontendUrl } from "./Frontend.js"
import type { RouteRules, RouteTable } from "./RouteTable.js"

type WireError =
  | InvalidRequest
  | Forbidden
  | NotFound
  | PayloadTooLarge
  | UnsupportedMediaType
  | Unavailable
  | OutcomeUnknown
  | Internal

/** Retry-After of a 503 while the store is unreachable: the pool reconnects by itself once it is back. */
export const STORE_RETRY_AFTER_S = 5

/** A wire error (schema/Errors.ts) as a response: its fields are the body. */
const reply = (status: number, error: WireError) => HttpServerResponse.unsafeJson(error, { status })

const invalidRequest = (message: string, issues: ReadonlyArray<{ path: string; message: string }> = []) =>
  reply(400, new InvalidRequest({ message, issues: issues.map((issue) => new Issue(issue)) }))

const tooLarge = (message: string) =>
  HttpServerResponse.setHeader(reply(413, new PayloadTooLarge({ message })), "connection", "close")

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
  return invalidRequest(message, issues)
}

const isBodyTooLarge = (error: HttpServerError.RequestError) =>
  error.cause instanceof Error && error.cause.message === MAX_BYTES_EXCEEDED

const fromCause = (cause: Cause.Cause<unknown>) => {
  if (Cause.isInterruptedOnly(cause)) return Effect.failCause(cause)
  // Body read failures surface as defects of the HttpApi route, so look at the squashed error.
  const error = Cause.squash(cause)
  if (HttpServerError.isServerError(error)) {
    if (error._tag === "RouteNotFound") return Effect.succeed(reply(404, new NotFound({ message: "no such route" })))
    if (error._tag === "RequestError") {
      if (isBodyTooLarge(error)) return Effect.succeed(tooLarge("request body is too large"))
      const { cause } = error
      if (cause instanceof JsonBodyError) {
        return Effect.succeed(invalidRequest(cause.message, [{ path: cause.path, message: cause.message }]))
      }
      return Effect.succeed(invalidRequest("request body is not valid JSON"))
    }
  }
  if (isUnstorableValue(error)) {
    return Effect.logWarning("a value the database refused reached it", cause).pipe(
      Effect.as(invalidRequest("a value in the request cannot be stored"))
    )
  }
  const unknownWrite = unknownWriteOf(error)
  if (unknownWrite !== undefined) {
    // Not 503: a retry of a write that may have been stored could store it twice (src/platform/db/WriteOutcome.ts).
    return Effect.logError(`a ${unknownWrite} was cut off from the store, which did not answer again in time`).pipe(
      Effect.as(
        reply(
          504,
          new OutcomeUnknown({
            message: `the store stopped answering while this ${unknownWrite} was written; whether it was stored is unknown: read it back before sending it again`
          })
        )
      )
    )
  }
  if (isStoreUnavailable(error)) {
    return Effect.logWarning("the store is unreachable", cause).pipe(
      Effect.as(
        HttpServerResponse.setHeader(
          reply(503, new Unavailable({ message: "the service is unavailable for now; retry later" })),
          "retry-after",
          String(STORE_RETRY_AFTER_S)
        )
      )
    )
  }
  return Effect.logError("request failed", cause).pipe(
    Effect.as(reply(500, new Internal({ message: "internal error" })))
  )
}

/**
 * Runs one request: body rules, then the routes, which see `request` (or its
 * body-capped form): callers must not provide a request of their own inside
 * `httpEffect`, or the capped one would be hidden.
 */
const serve = (
  httpEffect: Effect.Effect<HttpServerResponse.HttpServerResponse, unknown, HttpServerRequest.HttpServerRequest>,
  request: HttpServerRequest.HttpServerRequest,
  policy: RouteRules
) =>
  Effect.gen(function* () {
    if (declaresBody(request.headers)) {
      // So that the server reads the rest of a body over the cap, within a bound, after the 413 (Body.ts).
      recordBodyCap(request, policy.maxBytes)
      const declared = request.headers["content-length"]
      if (declared !== undefined && Number(declared) > policy.maxBytes) {
        return tooLarge(`request body is larger than ${policy.maxBytes} bytes`)
      }
      if (policy.json && !isJson(request.headers["content-type"])) {
        return reply(415, new UnsupportedMediaType({ message: "request body must be application/json" }))
      }
      // A declared length is within the cap here, and Node reads no more than
      // it declares, so the platform's own body cap has nothing left to do.
      const withBody = withBodyRules(request, declared === undefined ? policy.maxBytes : undefined)
      return normalizeDecodeError(
        yield* Effect.provideService(httpEffect, HttpServerRequest.HttpServerRequest, withBody)
      )
    }
    return normalizeDecodeError(yield* Effect.provideService(httpEffect, HttpServerRequest.HttpServerRequest, request))
  }).pipe(Effect.catchAllCause(fromCause))

const CORS_EXPOSED = "retry-after, ratelimit, ratelimit-policy"

const withCors = (origin: string) => (response: HttpServerResponse.HttpServerResponse) =>
  HttpServerResponse.setHeaders(response, {
    "access-control-allow-origin": origin,
    "access-control-expose-headers": CORS_EXPOSED,
    vary: "origin"
  })

const preflight = (origin: string) =>
  HttpServerResponse.empty({
    status: 204,
    headers: {
      "access-control-allow-origin": origin,
      "access-control-allow-methods": "GET, POST, PUT, DELETE",
      "access-control-allow-headers": `authorization, content-type, ${IdentityHeaderNames.sdk}, idempotency-key`,
      "access-control-max-age": "600",
      vary: "origin"
    }
  })

/** A route of the other host answers as a route that does not exist (docs/decisions.md "Wire", Hosts). */
const notOnThisHost = (servedOn: "backend" | "frontend") =>
  reply(
    404,
    new NotFound({
      message:
        servedOn === "backend"
          ? "no such route on a frontend base URL: this one is served on the backend host, with an API key"
          : "no such route on the backend host: this one is served on a project's URL, /p/{project_id}/v1/..."
    })
  )

const originRefused = () =>
  reply(403, new Forbidden({ message: "this origin is not allowed for the project (see its allowed origins)" }))

/** The middleware over `routes`, the route table the server's access log reads too (one per server). */
export const gatewayMiddleware = (routes: RouteTable) =>
  HttpLayerRouter.middleware(
    Effect.gen(function* () {
      const origins = yield* Origins
      return (httpEffect) =>
        Effect.gen(function* () {
          const original = yield* HttpServerRequest.HttpServerRequest
          // A frontend base URL serves the same routes: strip the prefix, keep its project.
          const frontend = splitFrontendUrl(original.url)
          if (frontend === undefined) {
            const rules = routes.rules(original.method, original.url)
            if (rules.host === "frontend") return notOnThisHost("frontend")
            return yield* serve(httpEffect, original, rules)
          }
          const rules = routes.rules(original.method, frontend.url)
          if (rules.host === "backend") return notOnThisHost("backend")
          const request = original.modify({ url: frontend.url })
          // `httpEffect` is shared by every request: wrap it per request, never reassign it.
          // `serve` provides the request (with the prefix stripped, and its body capped).
          const handle = Effect.provideService(httpEffect, FrontendProject, frontend.projectId)
          // CORS: the project's allowed origins govern its frontend URL, preflight included.
          const origin = request.headers.origin
          if (origin === undefined) return yield* serve(handle, request, rules)
          const allowed = (yield* origins.allowed(frontend.projectId)).has(origin)
          if (request.method === "OPTIONS") return allowed ? preflight(origin) : originRefused()
          if (!allowed) return originRefused()
          return withCors(origin)(yield* serve(handle, request, rules))
        }).pipe(Effect.catchAllCause(fromCause))
    }),
    { global: true }
  )
