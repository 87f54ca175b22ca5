import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import { Claimed, ClaimRequest, RefreshRequest, Session } from "../Auth.js"
import { Forbidden, InvalidRefreshToken, NotFound, RateLimited } from "../Errors.js"
import { Limits } from "../Limits.js"
import { ServedOn } from "./RouteRules.js"
import { Authenticated } from "./Security.js"

/** Anonymous sessions: no credentials; on a frontend base URL (`/p/{project_id}/v1/...`) only. */
export class SessionsGroup extends HttpApiGroup.make("sessions")
  .add(
    HttpApiEndpoint.post("anonymous", "/auth/tokens/anonymous")
      .addSuccess(Session)
      .addError(NotFound)
      .addError(RateLimited)
      .annotateContext(
        OpenApi.annotations({
          summary: "Start an anonymous session",
          description: `A new anonymous user: a 5-minute access token and a 30-day refresh token. No credentials, no body. At most ${Limits.rate.anonymousCreatePerMinute} a minute per client address (429 with Retry-After); 404 for a project that does not exist.`
        })
      )
  )
  .add(
    HttpApiEndpoint.post("refresh", "/auth/tokens/refresh")
      .setPayload(RefreshRequest)
      .addSuccess(Session)
      .addError(InvalidRefreshToken)
      .addError(NotFound)
      .addError(RateLimited)
      .annotateContext(
        OpenApi.annotations({
          summary: "Refresh an anonymous session",
          description: `A new access token for a refresh token, whose expiry moves to 30 days from now. An unknown, expired or revoked refresh token is 401 invalid_refresh_token. At most ${Limits.rate.anonymousRefreshPerMinute} a minute per client address.`
        })
      )
  )
  .annotate(
    OpenApi.Description,
    "Anonymous sessions, on the project's frontend base URL /p/{project_id} only, without credentials"
  )
  .annotate(ServedOn, "frontend") {}

/** Moving an anonymous user's threads to an identified caller. */
export class ClaimGroup extends HttpApiGroup.make("claim")
  .add(
    HttpApiEndpoint.post("claim", "/threads/claim")
      .setPayload(ClaimRequest)
      .addSuccess(Claimed)
      .addError(InvalidRefreshToken)
      .addError(Forbidden)
      .annotateContext(
        OpenApi.annotations({
          summary: "Claim an anonymous user's threads",
          description:
            "Moves every thread of the anonymous user behind the refresh token to the caller's workspace, then revokes the token. The caller must be identified (an API key, or a JWT that is not anonymous: 403 otherwise); a token of another project, unknown, expired or revoked, is 401 invalid_refresh_token."
        })
      )
  )
  .middleware(Authenticated)
  .annotate(OpenApi.Description, "Moving an anonymous user's threads to the user who signed in") {}
