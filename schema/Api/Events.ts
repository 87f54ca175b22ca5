import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import { RateLimited } from "../Errors.js"
import { EventBatch, EventsAccepted } from "../Event.js"
import { Limits } from "../Limits.js"
import { Authenticated } from "./Security.js"

/** Engagement events sent by the client from the user interface. */
export class EventsGroup extends HttpApiGroup.make("events")
  .add(
    HttpApiEndpoint.post("send", "/events")
      .setPayload(EventBatch)
      .addSuccess(EventsAccepted, { status: 202 })
      .addError(RateLimited)
      .annotateContext(
        OpenApi.annotations({
          summary: "Send engagement events",
          description: `1 to ${Limits.event.batchMax} events; each is checked on its own, and the answer lists the rejected ones by index. At most ${Limits.event.perMinute} events a minute per user (429 with Retry-After).`
        })
      )
  )
  .middleware(Authenticated)
  .annotate(OpenApi.Description, "Engagement events from the user interface") {}
