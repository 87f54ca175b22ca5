import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as Effect from "effect/Effect"
import { Caller } from "../../schema/Api/Security.js"
import { Api } from "../../schema/Api.js"
import { Limits } from "../../schema/Limits.js"
import { Events } from "../../src/Events.js"
import { RateLimiter } from "../../src/RateLimiter.js"
import { Runs } from "../../src/Runs.js"
import { Scores } from "../../src/Scores.js"
import { rateLimited } from "./RateLimit.js"

export const RunsLive = HttpApiBuilder.group(Api, "runs", (handlers) =>
  Effect.gen(function* () {
    const runs = yield* Runs
    const scores = yield* Scores
    const events = yield* Events
    const limiter = yield* RateLimiter
    return handlers
      .handle("report", ({ payload, headers }) =>
        Effect.flatMap(Caller, (caller) => runs.report(caller, payload, headers["idempotency-key"])).pipe(
          Effect.map((run_id) => ({ run_id }))
        )
      )
      .handle("score", ({ payload }) => Effect.flatMap(Caller, (caller) => scores.create(caller, payload)))
      .handle("events", ({ payload }) =>
        Effect.gen(function* () {
          const caller = yield* Caller
          // 600 events a minute per user of the project, counted in events, not requests.
          const decision = yield* limiter.hit(
            `events:${caller.projectId}:${caller.userId}`,
            Limits.event.perMinute,
            60,
            payload.events.length
          )
          if (!decision.allowed) return rateLimited(decision)
          return yield* events.ingest(caller, payload.events)
        })
      )
  })
)
