import * as HttpLayerRouter from "@effect/platform/HttpLayerRouter"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { SigningKeys } from "../src/auth/SigningKeys.js"

/** The public keys of the service's JWTs, for any verifier. */
export const JwksRoutes = Layer.effectDiscard(
  Effect.gen(function* () {
    const router = yield* HttpLayerRouter.HttpRouter
    const keys = yield* SigningKeys
    const response = HttpServerResponse.unsafeJson(keys.jwks, {
      headers: { "cache-control": "public, max-age=300" }
    })
    yield* router.add("GET", "/.well-known/jwks.json", Effect.succeed(response))
  })
)
