import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import { TokenIssued } from "../Auth.js"
import { Authenticated } from "./Security.js"

export class AuthGroup extends HttpApiGroup.make("auth")
  .add(HttpApiEndpoint.post("issueToken", "/auth/tokens").addSuccess(TokenIssued))
  .middleware(Authenticated) {}
