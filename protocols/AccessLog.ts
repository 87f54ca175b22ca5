/**
 * What every request leaves behind, in one middleware around the whole
 * server (so it sees the status that was really sent, 404s and 500s
 * included):
 *
 * - its request id (RequestId.ts) on the response (`X-Request-Id`) and as
 *   `request_id` on every log line written while it runs;
 * - with traces exported (src/platform/telemetry/Tracing.ts), a server span named
 *   `METHOD /route/template`, the parent of the use-case and query spans,
 *   continuing the caller's `traceparent`; its `trace_id` and `span_id` on
 *   the request's log lines;
 * - its figures in the metrics (Metrics.ts), by route template;
 * - at LOG_LEVEL info or below, one access line: method, route template,
 *   status, duration, request id and the URL with its secrets redacted
 *   (src/platform/telemetry/Redact.ts; no header is logged). It replaces the platform's request
 *   logger, which logged the URL as is (a presigned URL with its signature).
 *   A user id in the path (the admin erasure's `:user_id`) is logged and
 *   traced as `sha256:` and its SHA-256, as the erasure's audit record names
 *   the user: the log would otherwise keep the id an erasure removes.
 *
 * The platform's own request span is kept off (it records the whole URL,
 * query included, as `url.full`): this one records the redacted URL.
 */
import * as HttpServerError from "@effect/platform/HttpServerError"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import type * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as HttpTraceContext from "@effect/platform/HttpTraceContext"
import * as NodeHttpServerRequest from "@effect/platform-node/NodeHttpServerRequest"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import type * as Fiber from "effect/Fiber"
import * as FiberRef from "effect/FiberRef"
import * as HashMap from "effect/HashMap"
import * as Option from "effect/Option"
import { userSha256 } from "../src/erasure/Erasure.js"
import type { InfoLine } from "../src/platform/telemetry/Logging.js"
import { redactUrl } from "../src/platform/telemetry/Redact.js"
import type { GatewayMetrics } from "./Metrics.js"
import { REQUEST_ID_HEADER, requestIdFrom } from "./RequestId.js"
import { splitFrontendUrl } from "./rest/Frontend.js"
import type { RouteTable } from "./rest/RouteTable.js"

export const UNMATCHED_ROUTE = "unmatched"

export interface AccessLogOptions {
  /** The API's routes (their templates). */
  readonly routes: RouteTable
  /** Routes of the server that are not API endpoints, by exact path (`/readyz`, `/metrics`...). */
  readonly otherRoutes: ReadonlySet<string>
  /** Write the access line (LOG_LEVEL at info or below). */
  readonly logLines: boolean
  /**
   * How: straight to the log's sink (LoggingLive's InfoLine), or, where there
   * is none (the pretty format, a logger of a test's own), by Effect.log.
   */
  readonly line: InfoLine | null
  readonly metrics: GatewayMetrics | undefined
}

const pathOf = (url: string) => {
  const end = url.search(/[?#]/)
  return end === -1 ? url : url.slice(0, end)
}

/** A CORS preflight asks about a route of another method: it is labelled with that route. */
const PREFLIGHT_METHODS = ["GET", "POST", "PUT", "DELETE"] as const

/** The route template of `method url`, frontend base URLs under their `/p/:project_id` prefix. */
const routeOf = (options: AccessLogOptions, method: string, url: string): string | undefined => {
  const frontend = url.startsWith("/p/") ? splitFrontendUrl(url) : undefined
  const backendUrl = frontend?.url ?? url
  // The router answers HEAD with the GET route.
  const route =
    method === "OPTIONS"
      ? PREFLIGHT_METHODS.map((asked) => options.routes.rules(asked, backendUrl).route).find(
          (found) => found !== undefined
        )
      : options.routes.rules(method === "HEAD" ? "GET" : method, backendUrl).route
  if (route !== undefined) return frontend === undefined ? route : `/p/:project_id${route}`
  const path = pathOf(url)
  return options.otherRoutes.has(path) ? path : undefined
}

/** Path parameters that name a user (docs/decisions.md, "Erasure of one user": the log keeps no user id). */
const USER_PARAMS: ReadonlySet<string> = new Set([":user_id"])

/** A path segment as the router hands it to the route (percent-decoded), or as is when it does not decode. */
const decodedSegment = (segment: string): string => {
  try {
    return decodeURIComponent(segment)
  } catch {
    return segment
  }
}

/**
 * The URL as logged and traced: the query's secrets redacted, and each path
 * segment that the route's template names as a user id replaced by
 * `sha256:<hex>` of the decoded id (the audit record's `user_sha256`). A
 * template's segments and the path's match one to one (a parameter is one
 * segment; an encoded `/` stays `%2F` in the raw path).
 */
const loggedUrl = (route: string | undefined, url: string): string => {
  const redacted = redactUrl(url)
  if (route === undefined || !route.includes("/:user_")) return redacted
  const template = route.split("/")
  const path = pathOf(redacted)
  const segments = path.split("/")
  for (const [index, part] of template.entries()) {
    const segment = segments[index]
    if (USER_PARAMS.has(part) && segment !== undefined)
      segments[index] = `sha256:${userSha256(decodedSegment(segment))}`
  }
  return segments.join("/") + redacted.slice(path.length)
}

/** The status that was sent: the response's, or the one a failure was answered with (499: the client went away). */
const statusOf = (exit: Exit.Exit<HttpServerResponse.HttpServerResponse, unknown>): number =>
  Exit.isSuccess(exit) ? exit.value.status : HttpServerError.exitResponse(exit).status

export const ACCESS_MESSAGE = "Sent HTTP response"

/** The log annotations the request's fiber had before this middleware added its own (usually none). */
const outerAnnotations = (fiber: Fiber.RuntimeFiber<unknown, unknown>): Array<readonly [string, string | number]> => {
  const annotations = fiber.getFiberRef(FiberRef.currentLogAnnotations)
  if (HashMap.size(annotations) === 0) return []
  const entries: Array<readonly [string, string | number]> = []
  for (const [key, value] of annotations) {
    if (key === "request_id" || key === "trace_id" || key === "span_id") continue
    entries.push([key, typeof value === "number" ? value : String(value)])
  }
  return entries
}

export const accessLog =
  (options: AccessLogOptions) =>
  <E, R>(
    app: Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
  ): Effect.Effect<HttpServerResponse.HttpServerResponse, E, R> =>
    Effect.withFiberRuntime((fiber) => {
      const request = Context.unsafeGet(fiber.currentContext, HttpServerRequest.HttpServerRequest)
      const requestId = requestIdFrom(request.headers[REQUEST_ID_HEADER])
      // On the Node response itself: Node adds it to whatever head is written, errors and 404s included.
      NodeHttpServerRequest.toServerResponse(request).setHeader(REQUEST_ID_HEADER, requestId)
      const started = performance.now()
      const route = routeOf(options, request.method, request.url)
      const label = route ?? UNMATCHED_ROUTE
      const url = loggedUrl(route, request.url)

      const answered = (
        exit: Exit.Exit<HttpServerResponse.HttpServerResponse, E>,
        status: number,
        ids: ReadonlyArray<readonly [string, string]>
      ) => {
        const seconds = (performance.now() - started) / 1000
        options.metrics?.record(request.method, label, status, seconds)
        if (!options.logLines) return exit
        const fields: ReadonlyArray<readonly [string, string | number]> = [
          ["http.method", request.method],
          ["http.route", label],
          ["http.status", status],
          ["http.url", url],
          ["duration_ms", Math.round(seconds * 1e6) / 1e3]
        ]
        if (options.line !== null) {
          // The line an Effect.log here would write: the fiber's annotations from outside, then ours.
          options.line(ACCESS_MESSAGE, fiber.id(), [...outerAnnotations(fiber), ...ids, ...fields])
          return exit
        }
        return Effect.zipRight(Effect.annotateLogs(Effect.log(ACCESS_MESSAGE), Object.fromEntries(fields)), exit)
      }

      if (!fiber.getFiberRef(FiberRef.currentTracerEnabled)) {
        return Effect.annotateLogs(
          Effect.flatMap(Effect.exit(app), (exit) => answered(exit, statusOf(exit), [["request_id", requestId]])),
          "request_id",
          requestId
        )
      }
      const query = url.indexOf("?")
      return Effect.useSpan(
        route === undefined ? `http.server ${request.method}` : `${request.method} ${route}`,
        {
          parent: Option.getOrUndefined(HttpTraceContext.fromHeaders(request.headers)),
          kind: "server",
          captureStackTrace: false,
          attributes: {
            "http.request.method": request.method,
            "http.route": label,
            "url.path": pathOf(url),
            ...(query === -1 ? {} : { "url.query": url.slice(query + 1) }),
            "http.request.id": requestId
          }
        },
        (span) =>
          Effect.annotateLogs(
            Effect.flatMap(Effect.exit(Effect.withParentSpan(app, span)), (exit) => {
              const status = statusOf(exit)
              span.attribute("http.response.status_code", status)
              return answered(exit, status, [
                ["request_id", requestId],
                ["trace_id", span.traceId],
                ["span_id", span.spanId]
              ])
            }),
            { request_id: requestId, trace_id: span.traceId, span_id: span.spanId }
          )
      )
    })
