/**
 * What the gateway middleware needs to know of a route before the router
 * runs, read from the endpoint declarations in schema/Api (one source): which
 * host serves it.
 */
import * as HttpApi from "@effect/platform/HttpApi"
import * as Context from "effect/Context"
import * as FindMyWay from "find-my-way-ts"
import { type Host, ServedOn } from "../../schema/Api/Hosts.js"
import { Api } from "../../schema/Api.js"

export interface RouteRules {
  readonly host: Host
}

const BOTH: RouteRules = { host: "both" }

const table = (() => {
  const router = FindMyWay.make<RouteRules>()
  HttpApi.reflect(Api, {
    onGroup: () => {},
    onEndpoint: ({ endpoint, mergedAnnotations }) => {
      const host = Context.getOrElse(mergedAnnotations, ServedOn, () => "both" as const)
      router.on(endpoint.method, endpoint.path, host === "both" ? BOTH : { host })
    }
  })
  return router
})()

/** The rules of the endpoint `method url` (a backend path, query allowed); unknown routes get the defaults. */
export const routeRules = (method: string, url: string): RouteRules => table.find(method, url)?.handler ?? BOTH
