import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Effect from "effect/Effect"
import { RateLimited } from "../../schema/Errors.js"
import { RateLimitExceeded } from "../../src/platform/RateLimiter.js"

/** 429 `rate_limited` with Retry-After and the RateLimit headers (IETF draft). */
export const rateLimited = (exceeded: RateLimitExceeded) =>
  HttpServerResponse.unsafeJson(new RateLimited({ message: "too many requests; retry later" }), {
    status: 429,
    headers: {
      "retry-after": String(exceeded.resetSeconds),
      "ratelimit-policy": `${exceeded.limit};w=${exceeded.windowSeconds}`,
      ratelimit: `limit=${exceeded.limit}, remaining=0, reset=${exceeded.resetSeconds}`
    }
  })

/** A use case's RateLimitExceeded answered as that 429. */
export const answerRateLimited = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.catchIf(
    effect,
    (error): error is Extract<E, RateLimitExceeded> => error instanceof RateLimitExceeded,
    (exceeded) => Effect.succeed(rateLimited(exceeded))
  )
