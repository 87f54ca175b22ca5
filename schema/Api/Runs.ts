import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import { Conflict, InvalidRequest, NotFound } from "../Errors.js"
import { Limits } from "../Limits.js"
import { RunCreated, RunHeaders, RunReport } from "../Run.js"
import { withIdentityHeaderParameters } from "./Identity.js"
import { MaxBodyBytes } from "./RouteRules.js"
import { Authenticated } from "./Security.js"

/** What an app reports about its model runs. */
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
  .middleware(Authenticated)
  .annotateEndpoints(OpenApi.Transform, withIdentityHeaderParameters) {}
