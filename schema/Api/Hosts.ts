import * as Context from "effect/Context"

/**
 * Which host serves an endpoint (decisions.md §4): the backend host
 * (`{origin}/v1/...`, API keys), a project's frontend base URL
 * (`{origin}/p/{project_id}/v1/...`, JWTs and anonymous sessions), or both.
 * Declared on the group or endpoint; the gateway answers 404 on the other
 * host, as for a route that does not exist there.
 */
export type Host = "backend" | "frontend" | "both"

export class ServedOn extends Context.Tag("svc/ServedOn")<ServedOn, Host>() {}
