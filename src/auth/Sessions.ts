import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { CallerShape } from "../../schema/Api/Security.js"
import { Forbidden, InvalidRefreshToken } from "../../schema/Errors.js"
import { Limits } from "../../schema/Limits.js"
import { workspaceSegment } from "../files/Files.js"
import { WorkspaceClaims } from "../files/WorkspaceClaims.js"
import { rowNotFoundAs404 } from "../platform/Found.js"
import { newId } from "../platform/Ids.js"
import { RateLimiter } from "../platform/RateLimiter.js"
import { hashSecret, newSecret } from "../platform/Secrets.js"
import { fn } from "../platform/telemetry/Traced.js"
import { Threads } from "../threads/Threads.js"
import { newAnonymousUserId } from "./Principals.js"
import { RefreshTokensRepo } from "./RefreshTokensRepo.js"
import { Tokens } from "./Tokens.js"

/** A live refresh token's row, or 401 `invalid_refresh_token`. */
const liveOrRefused = <A>(live: Option.Option<A>) =>
  Option.isSome(live)
    ? Effect.succeed(live.value)
    : Effect.fail(new InvalidRefreshToken({ message: "unknown, expired or revoked refresh token" }))

/** Anonymous sessions and claim (docs/decisions.md "Anonymous sessions and claim"). */
export class Sessions extends Effect.Service<Sessions>()("svc/Sessions", {
  dependencies: [
    RateLimiter.Default,
    RefreshTokensRepo.Default,
    Threads.Default,
    Tokens.Default,
    WorkspaceClaims.Default
  ],
  effect: Effect.gen(function* () {
    const limiter = yield* RateLimiter
    const repo = yield* RefreshTokensRepo
    const claims = yield* WorkspaceClaims
    const threads = yield* Threads
    const tokens = yield* Tokens

    const session = (projectId: string, userId: string, refreshToken: string, expiresAt: Date) =>
      Effect.map(
        tokens.issueAccessToken({ projectId, userId, workspaceId: userId, mode: "anonymous" }),
        (accessToken) => ({
          access_token: accessToken,
          token_type: "Bearer" as const,
          expires_in: Limits.auth.accessTokenSeconds,
          refresh_token: { token: refreshToken, expires_at: expiresAt }
        })
      )

    /**
     * A new anonymous user (its workspace is its own id) with a 30-day refresh
     * token; at most 30 a minute per client address (docs/api-and-auth.md "Rate limits").
     */
    const createAnonymous = fn("Sessions.createAnonymous")(function* (projectId: string, clientAddress: string) {
      yield* limiter.consume(`anonymous:${clientAddress}`, Limits.rate.anonymousCreatePerMinute, 60)
      const userId = newAnonymousUserId()
      const refreshToken = newSecret("rt")
      const stored = yield* rowNotFoundAs404(
        repo.insert({ projectId, id: newId("rt"), tokenHash: hashSecret(refreshToken), userId })
      )
      return yield* session(projectId, userId, refreshToken, stored.expires_at)
    })

    /**
     * A new access token; the refresh token's expiry becomes now + 30 days.
     * At most 120 a minute per client address.
     */
    const refresh = fn("Sessions.refresh")(function* (projectId: string, refreshToken: string, clientAddress: string) {
      yield* limiter.consume(`refresh:${clientAddress}`, Limits.rate.anonymousRefreshPerMinute, 60)
      const live = yield* Effect.flatMap(repo.extend(projectId, hashSecret(refreshToken)), liveOrRefused)
      return yield* session(projectId, live.user_id, refreshToken, live.expires_at)
    })

    /**
     * Every thread of the anonymous user behind `refreshToken` moves to the
     * caller's workspace and user, and the token is revoked: all in one
     * transaction, so all threads move or none, and of two concurrent claims
     * one wins.
     */
    const claim = fn("Sessions.claim")(function* (caller: CallerShape, refreshToken: string) {
      if (caller.mode === "anonymous") {
        return yield* Effect.fail(new Forbidden({ message: "an anonymous user cannot claim threads" }))
      }
      return yield* repo.transaction(
        Effect.gen(function* () {
          const live = yield* Effect.flatMap(repo.revoke(caller.projectId, hashSecret(refreshToken)), liveOrRefused)
          // Attachments keep the anonymous workspace in their keys: the new owner may download them.
          yield* claims.record(caller.projectId, workspaceSegment(live.user_id), caller.workspaceId)
          return yield* threads.moveAll(
            caller.projectId,
            { workspaceId: live.user_id, userId: live.user_id },
            { projectId: caller.projectId, workspaceId: caller.workspaceId, userId: caller.userId }
          )
        })
      )
    })

    return { createAnonymous, refresh, claim } as const
  })
}) {}
