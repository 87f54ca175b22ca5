import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import { Conflict, InvalidRequest, NotFound, RateLimited } from "../Errors.js"
import { EventBatch, EventsAccepted } from "../Event.js"
import { Limits } from "../Limits.js"
import { RunCreated, RunHeaders, RunReport } from "../Run.js"
import { CreateScore, ScoreCreated } from "../Score.js"
import { withIdentityHeaderParameters } from "./Identity.js"
import { MaxBodyBytes } from "./RouteRules.js"
import { Authenticated } from "./Security.js"

/** What an app reports about its model runs, and what its users think of them. */
export class RunsGroup extends HttpApiGroup.make("runs")
  .add(
    HttpApiEndpoint.post("report", "/runs")
      .setPayload(RunReport)
      .setHeaders(RunHeaders)
      // A report's own limits allow more than the default cap; this bounds the whole report.
      .annotate(MaxBodyBytes, Limits.body.runMaxBytes)
      .addSuccess(RunCreated, { status: 201 })
      .addError(NotFound)
      .addError(Conflict)
      .addError(InvalidRequest)
  )
  .add(
    HttpApiEndpoint.post("score", "/scores")
      .setPayload(CreateScore)
      .addSuccess(ScoreCreated, { status: 201 })
      .addError(NotFound)
      .addError(InvalidRequest)
  )
  .add(
    HttpApiEndpoint.post("events", "/events")
      .setPayload(EventBatch)
      .addSuccess(EventsAccepted, { status: 202 })
      .addError(RateLimited)
  )
  .middleware(Authenticated)
  .annotateEndpoints(OpenApi.Transform, withIdentityHeaderParameters) {}
