import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as Effect from "effect/Effect"
import { Caller } from "../../schema/Api/Security.js"
import { Api } from "../../schema/Api.js"
import { Scores } from "../../src/scores/Scores.js"

export const ScoresLive = HttpApiBuilder.group(Api, "scores", (handlers) =>
  Effect.gen(function* () {
    const scores = yield* Scores
    return handlers.handle("create", ({ payload }) =>
      Effect.flatMap(Caller, (caller) => scores.create(caller, payload))
    )
  })
)
