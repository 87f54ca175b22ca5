import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as Effect from "effect/Effect"
import { Caller } from "../../schema/Api/Security.js"
import { Api } from "../../schema/Api.js"
import { Events } from "../../src/events/Events.js"
import { answerRateLimited } from "./RateLimit.js"

export const EventsLive = HttpApiBuilder.group(Api, "events", (handlers) =>
  Effect.gen(function* () {
    const events = yield* Events
    return handlers.handle("send", ({ payload }) =>
      Effect.flatMap(Caller, (caller) => events.ingest(caller, payload.events)).pipe(answerRateLimited)
    )
  })
)
