import * as Context from "effect/Context"

/**
 * Rules the gateway applies before an endpoint's handler runs, declared on the
 * endpoint (or its group) in schema/Api, where the endpoint is: the gateway
 * reads them from the Api (protocols/rest/RouteTable.ts), so no rule is
 * repeated by URL pattern elsewhere.
 */

/**
 * Which host serves an endpoint (docs/decisions.md "Wire", Hosts): the
 * backend host (`{origin}/v1/...`, API keys), a project's frontend base
 * URL (`{origin}/p/{project_id}/v1/...`, JWTs and anonymous sessions), or
 * both (the default). On the other host the gateway answers 404, as for a
 * route that does not exist there.
 */
export type Host = "backend" | "frontend" | "both"

export class ServedOn extends Context.Tag("svc/ServedOn")<ServedOn, Host>() {}

/**
 * The body cap of an endpoint, in bytes (413 above it), where it differs
 * from the default (`MAX_BODY_BYTES`, 1 MiB). A cap below the default also
 * follows a lower `MAX_BODY_BYTES`; one above it also follows a higher one.
 */
export class MaxBodyBytes extends Context.Tag("svc/MaxBodyBytes")<MaxBodyBytes, number>() {}
