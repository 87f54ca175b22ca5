import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import { TokenIssued } from "../Auth.js"
import { Forbidden } from "../Errors.js"
import { ServedOn } from "./RouteRules.js"
import { Authenticated } from "./Security.js"

export class AuthGroup extends HttpApiGroup.make("auth")
  .add(
    HttpApiEndpoint.post("issueToken", "/auth/tokens")
      .addSuccess(TokenIssued)
      .addError(Forbidden)
      .annotateContext(
        OpenApi.annotations({
          summary: "Issue a user token",
          description:
            "A 5-minute JWT for the user and workspace of Svc-User-Id and Svc-Workspace-Id, for the app's frontend to call the project's frontend base URL with. API key only (403 otherwise). No request body."
        })
      )
  )
  .middleware(Authenticated)
  // Minting is an API-key act: a token holder must not renew its own token (it would outlive a revoked session).
  .annotate(ServedOn, "backend")
  .annotate(OpenApi.Description, "Tokens a backend issues for its users") {}
