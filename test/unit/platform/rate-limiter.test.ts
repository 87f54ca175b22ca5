/**
 * The rate limiter on the test clock (@effect/vitest's TestClock): windows
 * are fixed minutes of the service's Clock, so the test moves time instead of
 * waiting for a minute to pass.
 */
import { describe, expect, it } from "@effect/vitest"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as TestClock from "effect/TestClock"
import * as Database from "../../../src/platform/db/Database.js"
import { RateLimiter } from "../../../src/platform/RateLimiter.js"

const LimiterLive = RateLimiter.Default.pipe(Layer.provide(Database.layerFor({ kind: "embedded", dataDir: undefined })))

describe("RateLimiter on the test clock", () => {
  it.scoped(
    "a window holds `limit` hits, says when it resets, and the next minute starts afresh",
    () =>
      Effect.gen(function* () {
        // 45 s into a minute (the clock is read when the limiter is built, so it is built in this test).
        yield* TestClock.setTime(1_000 * 60_000 + 45_000)
        const limiter = Context.get(yield* Layer.build(LimiterLive), RateLimiter)
        for (let i = 0; i < 3; i++) yield* limiter.consume("key", 3, 60)
        const refused = yield* Effect.either(limiter.consume("key", 3, 60))
        expect(Either.isLeft(refused) && refused.left).toMatchObject({
          _tag: "RateLimitExceeded",
          limit: 3,
          resetSeconds: 15
        })
        // A batch larger than what is left is refused whole and takes nothing.
        yield* TestClock.adjust("15 seconds")
        yield* limiter.consume("key", 3, 60, 2)
        expect(Either.isLeft(yield* Effect.either(limiter.consume("key", 3, 60, 2)))).toBe(true)
        yield* limiter.consume("key", 3, 60, 1)
        // Another key has its own window.
        yield* limiter.consume("other", 3, 60, 3)
      }),
    30_000
  )
})
