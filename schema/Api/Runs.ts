import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import { Conflict, InvalidRequest, NotFound } from "../Errors.js"
import { Limits } from "../Limits.js"
import { RunCreated, RunHeaders, RunReport } from "../Run.js"
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
      .annotateContext(
        OpenApi.annotations({
          summary: "Report a run",
          description:
            "What one model invocation did in a thread: status, tokens, timings, steps, tool calls. Unknown fields are refused; the body cap is 4 MiB. A retry with the same Idempotency-Key is stored once and answered with the same run id (409 when the key was used for a different report)."
        })
      )
  )
  .middleware(Authenticated)
  .annotate(OpenApi.Description, "Model runs an app reports") {}
