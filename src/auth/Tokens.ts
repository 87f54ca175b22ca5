import * as Effect from "effect/Effect"
import { createLocalJWKSet, jwtVerify } from "jose"
import type { CallerShape } from "../../schema/Api/Security.js"
import { Forbidden } from "../../schema/Errors.js"
import { Limits } from "../../schema/Limits.js"
import { AppConfig } from "../platform/Config.js"
import { ulid } from "../platform/Ids.js"
import { fn } from "../platform/telemetry/Traced.js"
import { isConsistentTokenIdentity } from "./Principals.js"
import { SigningKeys } from "./SigningKeys.js"

export interface VerifiedToken {
  readonly userId: string
  readonly workspaceId: string
  readonly anonymous: boolean
}

/** Service-issued access tokens (docs/decisions.md "Service-issued tokens"). */
export class Tokens extends Effect.Service<Tokens>()("svc/Tokens", {
  dependencies: [SigningKeys.Default],
  effect: Effect.gen(function* () {
    const keys = yield* SigningKeys
    const issuer = yield* AppConfig.publicUrl
    const clock = yield* Effect.clock

    /** A 5-minute JWT for the caller's user and workspace, scoped to its project. */
    const issueAccessToken = fn("Tokens.issueAccessToken")(function* (caller: CallerShape) {
      const now = Math.floor(clock.unsafeCurrentTimeMillis() / 1000)
      return yield* keys.sign({
        iss: issuer,
        aud: caller.projectId,
        sub: caller.userId,
        wid: caller.workspaceId,
        anon: caller.mode === "anonymous",
        iat: now,
        exp: now + Limits.auth.accessTokenSeconds,
        jti: `jti_${ulid()}`
      })
    })

    /**
     * `POST /v1/auth/tokens`: only an API-key caller (the app's backend) mints
     * tokens. A token holder that could mint would renew its own access
     * indefinitely, past a revoked session or an external token's expiry.
     */
    const mint = fn("Tokens.mint")(function* (caller: CallerShape) {
      if (caller.mode !== "api_key") {
        return yield* Effect.fail(new Forbidden({ message: "tokens are minted with an API key on the backend host" }))
      }
      return yield* issueAccessToken(caller)
    })

    const keySet = createLocalJWKSet({ keys: [...keys.jwks.keys] })

    /**
     * The identity in a service-issued access token for `projectId`, or
     * undefined when the token is not one: bad signature, another algorithm
     * (`none`, HS256 with the public key...), unknown `kid`, expired or not
     * yet valid, another issuer or project, or claims missing.
     */
    const verifyAccessToken = (token: string, projectId: string) =>
      Effect.tryPromise(() =>
        jwtVerify(token, keySet, {
          algorithms: [...keys.algorithms],
          issuer,
          audience: projectId,
          requiredClaims: ["sub", "exp", "iat"],
          currentDate: new Date(clock.unsafeCurrentTimeMillis())
        })
      ).pipe(
        Effect.map(({ payload }): VerifiedToken | undefined => {
          const { anon, sub, wid } = payload
          if (typeof sub !== "string" || sub === "" || typeof wid !== "string" || wid === "") return undefined
          if (!isConsistentTokenIdentity(sub, wid, anon === true)) return undefined
          return { userId: sub, workspaceId: wid, anonymous: anon === true }
        }),
        Effect.orElseSucceed((): VerifiedToken | undefined => undefined)
      )

    return { issueAccessToken, mint, verifyAccessToken, issuer } as const
  })
}) {}
