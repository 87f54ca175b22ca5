import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import { RateLimited } from "../Errors.js"
import { EventBatch, EventsAccepted } from "../Event.js"
import { withIdentityHeaderParameters } from "./Identity.js"
import { Authenticated } from "./Security.js"

/** Engagement events sent by the client from the user interface. */
export class EventsGroup extends HttpApiGroup.make("events")
  .add(
    HttpApiEndpoint.post("send", "/events")
      .setPayload(EventBatch)
      .addSuccess(EventsAccepted, { status: 202 })
      .addError(RateLimited)
  )
  .middleware(Authenticated)
  .annotateEndpoints(OpenApi.Transform, withIdentityHeaderParameters) {}
