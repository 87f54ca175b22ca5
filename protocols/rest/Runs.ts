import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as Effect from "effect/Effect"
import { Caller } from "../../schema/Api/Security.js"
import { Api } from "../../schema/Api.js"
import { Events } from "../../src/Events.js"
import { Runs } from "../../src/Runs.js"
import { Scores } from "../../src/Scores.js"
import { answerRateLimited } from "./RateLimit.js"

export const RunsLive = HttpApiBuilder.group(Api, "runs", (handlers) =>
  Effect.gen(function* () {
    const runs = yield* Runs
    const scores = yield* Scores
    const events = yield* Events
    return handlers
      .handle("report", ({ payload, headers }) =>
        Effect.flatMap(Caller, (caller) => runs.report(caller, payload, headers["idempotency-key"])).pipe(
          Effect.map((run_id) => ({ run_id }))
        )
      )
      .handle("score", ({ payload }) => Effect.flatMap(Caller, (caller) => scores.create(caller, payload)))
      .handle("events", ({ payload }) =>
        Effect.flatMap(Caller, (caller) => events.ingest(caller, payload.events)).pipe(answerRateLimited)
      )
  })
)
