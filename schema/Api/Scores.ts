import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import { InvalidRequest, NotFound } from "../Errors.js"
import { CreateScore, ScoreCreated } from "../Score.js"
import { Authenticated } from "./Security.js"

/** What users think of threads, messages and runs. */
export class ScoresGroup extends HttpApiGroup.make("scores")
  .add(
    HttpApiEndpoint.post("create", "/scores")
      .setPayload(CreateScore)
      .addSuccess(ScoreCreated, { status: 201 })
      .addError(NotFound)
      .addError(InvalidRequest)
      .annotateContext(
        OpenApi.annotations({
          summary: "Record a score",
          description:
            "A named rating (numeric, categorical or boolean) of a thread, a message or a run of the caller's workspace."
        })
      )
  )
  .middleware(Authenticated)
  .annotate(OpenApi.Description, "Ratings of threads, messages and runs") {}
