import * as SqlClient from "@effect/sql/SqlClient"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import { fn } from "./telemetry/Traced.js"

/** A request over its rate limit; the protocol answers 429 with when to retry. */
export class RateLimitExceeded extends Data.TaggedError("RateLimitExceeded")<{
  readonly limit: number
  readonly windowSeconds: number
  /** Seconds until the window resets (at least 1). */
  readonly resetSeconds: number
}> {}

export interface RateDecision {
  readonly allowed: boolean
  readonly limit: number
  readonly remaining: number
  /** Seconds until the window resets (at least 1). */
  readonly resetSeconds: number
}

/**
 * Fixed-window limits counted in the store, so that every gateway on one
 * PostgreSQL shares them (docs/decisions.md "Rate limits"); the embedded
 * store counts the same way in-process. One statement a hit: an upsert that
 * answers the count.
 */
export class RateLimiter extends Effect.Service<RateLimiter>()("svc/RateLimiter", {
  scoped: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const scope = yield* Effect.scope
    const clock = yield* Effect.clock

    /** Counts `cost` hits (events in a batch, say) against `limit` a window. */
    const hit = fn("RateLimiter.hit")(function* (key: string, limit: number, windowSeconds: number, cost = 1) {
      const now = clock.unsafeCurrentTimeMillis()
      const windowMs = windowSeconds * 1000
      const windowStart = Math.floor(now / windowMs) * windowMs
      const [row] = yield* sql<{ hits: number }>`
        INSERT INTO rate_limit_counters (key, window_start, hits) VALUES (${key}, ${windowStart}, ${cost})
        ON CONFLICT (key, window_start) DO UPDATE SET hits = rate_limit_counters.hits + ${cost}
        -- A refused request takes nothing from the window (a refused batch of events leaves room for a smaller one).
        WHERE rate_limit_counters.hits + ${cost} <= ${limit}
        RETURNING hits`.pipe(Effect.orDie)
      // Old windows are cleared now and then, off the request path.
      if (Math.random() < 0.01) {
        yield* sql`DELETE FROM rate_limit_counters WHERE window_start < ${windowStart - windowMs}`.pipe(
          Effect.catchAll((error) => Effect.logWarning("could not clear old rate-limit windows", error)),
          Effect.forkIn(scope)
        )
      }
      // No row: the update was refused, the window is full for this cost.
      const hits = row?.hits ?? limit + cost
      const decision: RateDecision = {
        allowed: hits <= limit,
        limit,
        remaining: Math.max(0, limit - hits),
        resetSeconds: Math.max(1, Math.ceil((windowStart + windowMs - now) / 1000))
      }
      return decision
    })

    /** Takes `cost` from the window of `key`, or fails with RateLimitExceeded (taking nothing). */
    const consume = (key: string, limit: number, windowSeconds: number, cost = 1) =>
      Effect.flatMap(hit(key, limit, windowSeconds, cost), (decision) =>
        decision.allowed
          ? Effect.void
          : Effect.fail(new RateLimitExceeded({ limit, windowSeconds, resetSeconds: decision.resetSeconds }))
      )

    return { consume } as const
  })
}) {}
