import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import { Claimed, ClaimRequest, RefreshRequest, Session } from "../Auth.js"
import { Forbidden, InvalidRefreshToken, NotFound, RateLimited } from "../Errors.js"
import { withIdentityHeaderParameters } from "./Identity.js"
import { ServedOn } from "./RouteRules.js"
import { Authenticated } from "./Security.js"

/** Anonymous sessions: no credentials; on a frontend base URL (`/p/{project_id}/v1/...`) only. */
export class SessionsGroup extends HttpApiGroup.make("sessions")
  .add(
    HttpApiEndpoint.post("anonymous", "/auth/tokens/anonymous")
      .addSuccess(Session)
      .addError(NotFound)
      .addError(RateLimited)
  )
  .add(
    HttpApiEndpoint.post("refresh", "/auth/tokens/refresh")
      .setPayload(RefreshRequest)
      .addSuccess(Session)
      .addError(InvalidRefreshToken)
      .addError(NotFound)
      .addError(RateLimited)
  )
  .annotate(OpenApi.Description, "Anonymous sessions, on the project's frontend base URL /p/{project_id}")
  .annotate(ServedOn, "frontend") {}

/** Moving an anonymous user's threads to an identified caller. */
export class ClaimGroup extends HttpApiGroup.make("claim")
  .add(
    HttpApiEndpoint.post("claim", "/threads/claim")
      .setPayload(ClaimRequest)
      .addSuccess(Claimed)
      .addError(InvalidRefreshToken)
      .addError(Forbidden)
  )
  .middleware(Authenticated)
  .annotateEndpoints(OpenApi.Transform, withIdentityHeaderParameters) {}
