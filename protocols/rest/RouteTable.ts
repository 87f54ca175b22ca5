/**
 * What the gateway middleware needs to know of a route before the router
 * runs, read from the endpoint declarations in schema/Api (one source): the
 * host that serves it and its body rules. Built once per gateway, looked up
 * once per request (a radix tree: the router @effect/platform uses).
 */
import * as HttpApi from "@effect/platform/HttpApi"
import * as Context from "effect/Context"
import * as FindMyWay from "find-my-way-ts"
import { type Host, MaxBodyBytes, ServedOn } from "../../schema/Api/RouteRules.js"
import { Api } from "../../schema/Api.js"
import { BLOB_ROUTE_PREFIX } from "../../schema/BlobRoute.js"
import { Limits } from "../../schema/Limits.js"
import { MCP_PATH } from "../../schema/Mcp.js"
import { TRACES_PATH } from "../../schema/Trace.js"
import { DASHBOARD_PATH } from "../dashboard/Assets.js"

export interface RouteRules {
  readonly host: Host
  /** 413 above this many bytes. */
  readonly maxBytes: number
  /** The body must be declared as JSON (415 otherwise). */
  readonly json: boolean
  /** The route's template (`/v1/threads/:id`): metrics and span names; undefined for a path no endpoint serves. */
  readonly route: string | undefined
}

/** The effective cap of an endpoint that declares `declared`, with MAX_BODY_BYTES at `configured`. */
const capOf = (declared: number | undefined, configured: number): number =>
  declared === undefined
    ? configured
    : declared < Limits.body.defaultMaxBytes
      ? Math.min(declared, configured)
      : Math.max(declared, configured)

export interface RouteTable {
  /** The rules of `method url` (a backend path, query allowed); routes that are not endpoints get the defaults. */
  readonly rules: (method: string, url: string) => RouteRules
}

/**
 * The longest path parameter a route matches (UTF-16 units, decoded); the
 * router's default is 100. A user id is up to 255 characters (the admin
 * erasure route names one), 510 units when every one is astral.
 */
export const MAX_PARAM_LENGTH = 2 * Limits.identityHeaderMaxLength

export const makeRouteTable = (configuredMaxBytes: number): RouteTable => {
  const router = FindMyWay.make<RouteRules>({ maxParamLength: MAX_PARAM_LENGTH })
  const defaults: RouteRules = { host: "both", maxBytes: configuredMaxBytes, json: true, route: undefined }
  HttpApi.reflect(Api, {
    onGroup: () => {},
    onEndpoint: ({ endpoint, mergedAnnotations }) => {
      const host = Context.getOrElse(mergedAnnotations, ServedOn, () => "both" as const)
      const declared = Context.getOption(mergedAnnotations, MaxBodyBytes)
      router.on(endpoint.method, endpoint.path, {
        host,
        maxBytes: capOf(declared._tag === "Some" ? declared.value : undefined, configuredMaxBytes),
        json: true,
        route: endpoint.path
      })
    }
  })
  // The local store's signed uploads (protocols/Blobs.ts): any accepted type, up to the attachment cap.
  const blobs: RouteRules = {
    host: "both",
    maxBytes: Limits.attachment.maxBytes,
    json: false,
    route: `${BLOB_ROUTE_PREFIX}*`
  }
  router.on(["PUT", "GET"], `${BLOB_ROUTE_PREFIX}*`, blobs)
  // OTLP trace exports (protocols/otlp): protobuf or JSON, gzip or not, checked by the route itself.
  router.on("POST", TRACES_PATH, {
    host: "backend",
    maxBytes: Limits.trace.exportMaxBytes,
    json: false,
    route: TRACES_PATH
  })
  // MCP (protocols/mcp): JSON-RPC over POST on the backend host; GET and DELETE are answered 405 there.
  router.on(["POST", "GET", "DELETE"], MCP_PATH, {
    host: "backend",
    maxBytes: configuredMaxBytes,
    json: true,
    route: MCP_PATH
  })
  // The dashboard's page and assets (protocols/dashboard/Assets.ts): the backend host only.
  for (const route of [DASHBOARD_PATH, `${DASHBOARD_PATH}/*`] as const) {
    router.on("GET", route, { host: "backend", maxBytes: configuredMaxBytes, json: true, route })
  }
  return { rules: (method, url) => router.find(method, url)?.handler ?? defaults }
}
