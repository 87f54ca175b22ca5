import * as HttpApiMiddleware from "@effect/platform/HttpApiMiddleware"
import * as HttpApiSecurity from "@effect/platform/HttpApiSecurity"
import * as Context from "effect/Context"
import * as Schema from "effect/Schema"
import { InvalidRequest, NotFound, Unauthorized } from "../Errors.js"

/** Who is calling: the tenant scope every thread and message query is filtered by. */
export interface CallerShape {
  readonly projectId: string
  readonly userId: string
  readonly workspaceId: string
  readonly mode: "api_key" | "jwt" | "anonymous"
}
export class Caller extends Context.Tag("svc/Caller")<Caller, CallerShape>() {}

/**
 * A bearer credential acting as a user in a workspace. With an API key the
 * user and workspace come from `Svc-User-Id` / `Svc-Workspace-Id`.
 */
export class Authenticated extends HttpApiMiddleware.Tag<Authenticated>()("svc/Authenticated", {
  failure: Schema.Union(Unauthorized, InvalidRequest),
  provides: Caller,
  security: { bearer: HttpApiSecurity.bearer }
}) {}

/** The admin plane: a bearer equal to ADMIN_TOKEN. Without ADMIN_TOKEN every admin route is 404. */
export class AdminAuth extends HttpApiMiddleware.Tag<AdminAuth>()("svc/AdminAuth", {
  failure: Schema.Union(Unauthorized, NotFound),
  security: { bearer: HttpApiSecurity.bearer }
}) {}

/** The project an API key belongs to: the scope of the project read API. */
export class ProjectCaller extends Context.Tag("svc/ProjectCaller")<ProjectCaller, { readonly projectId: string }>() {}

/**
 * The project read API: an API key on the backend host, and nothing else
 * (no JWT, no identity headers needed).
 */
export class ProjectApiKey extends HttpApiMiddleware.Tag<ProjectApiKey>()("svc/ProjectApiKey", {
  failure: Schema.Union(Unauthorized, InvalidRequest),
  provides: ProjectCaller,
  security: { bearer: HttpApiSecurity.bearer }
}) {}
