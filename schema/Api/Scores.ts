import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import { InvalidRequest, NotFound } from "../Errors.js"
import { CreateScore, ScoreCreated } from "../Score.js"
import { withIdentityHeaderParameters } from "./Identity.js"
import { Authenticated } from "./Security.js"

/** What users think of threads, messages and runs. */
export class ScoresGroup extends HttpApiGroup.make("scores")
  .add(
    HttpApiEndpoint.post("create", "/scores")
      .setPayload(CreateScore)
      .addSuccess(ScoreCreated, { status: 201 })
      .addError(NotFound)
      .addError(InvalidRequest)
  )
  .middleware(Authenticated)
  .annotateEndpoints(OpenApi.Transform, withIdentityHeaderParameters) {}
