import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import { TokenIssued } from "../Auth.js"
import { Forbidden } from "../Errors.js"
import { withIdentityHeaderParameters } from "./Identity.js"
import { ServedOn } from "./RouteRules.js"
import { Authenticated } from "./Security.js"

export class AuthGroup extends HttpApiGroup.make("auth")
  .add(HttpApiEndpoint.post("issueToken", "/auth/tokens").addSuccess(TokenIssued).addError(Forbidden))
  .middleware(Authenticated)
  .annotateEndpoints(OpenApi.Transform, withIdentityHeaderParameters)
  // Minting is an API-key act: a token holder must not renew its own token (it would outlive a revoked session).
  .annotate(ServedOn, "backend") {}
