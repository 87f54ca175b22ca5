import * as Effect from "effect/Effect"
import type { CallerShape } from "../../schema/Api/Security.js"
import { Limits } from "../../schema/Limits.js"
import { AppConfig } from "../Config.js"
import { ulid } from "../Ids.js"
import { SigningKeys } from "./SigningKeys.js"

/** Service-issued access tokens (decisions.md §4). */
export class Tokens extends Effect.Service<Tokens>()("svc/Tokens", {
  dependencies: [SigningKeys.Default],
  effect: Effect.gen(function* () {
    const keys = yield* SigningKeys
    const issuer = yield* AppConfig.publicUrl

    /** A 5-minute JWT for the caller's user and workspace, scoped to its project. */
    const issueAccessToken = Effect.fn("Tokens.issueAccessToken")(function* (caller: CallerShape) {
      const now = Math.floor(Date.now() / 1000)
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

    return { issueAccessToken, issuer } as const
  })
}) {}
