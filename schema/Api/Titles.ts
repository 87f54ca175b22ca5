import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import { BadGateway, NotFound, QuotaExceeded } from "../Errors.js"
import { Limits } from "../Limits.js"
import { RunStreamRequest, TitleText } from "../Title.js"
import { MaxBodyBytes } from "./RouteRules.js"
import { Authenticated } from "./Security.js"

/**
 * The thread title helper's stream (docs/decisions.md "Titles"). The answer
 * is written raw, as a streamed text/plain body; errors found before the
 * first chunk are the usual JSON bodies.
 */
export class TitlesGroup extends HttpApiGroup.make("titles")
  .add(
    HttpApiEndpoint.post("stream", "/runs/stream")
      .setPayload(RunStreamRequest)
      .annotate(MaxBodyBytes, Limits.title.bodyMaxBytes)
      .addSuccess(TitleText)
      .addError(NotFound)
      .addError(QuotaExceeded)
      .addError(BadGateway)
      .annotateContext(
        OpenApi.annotations({
          summary: "Stream a thread title",
          description:
            "Streams the thread's title as text/plain chunks: its stored title if it has one, else a generated one (2 to 12 words), which is stored on the thread. Generated titles count against the plan's monthly quota (429 quota_exceeded)."
        })
      )
  )
  .middleware(Authenticated)
  .annotate(OpenApi.Description, "The thread title helper") {}
