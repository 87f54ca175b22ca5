import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as Effect from "effect/Effect"
import { Caller } from "../../schema/Api/Security.js"
import { Api } from "../../schema/Api.js"
import { Tokens } from "../../src/auth/Tokens.js"

export const AuthTokensLive = HttpApiBuilder.group(Api, "auth", (handlers) =>
  Effect.gen(function* () {
    const tokens = yield* Tokens
    return handlers.handle("issueToken", () =>
      Effect.flatMap(Caller, (caller) => tokens.mint(caller)).pipe(Effect.map((token) => ({ token })))
    )
  })
)
