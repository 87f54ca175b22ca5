/**
 * POST /v1/runs/stream: the title as a streamed text/plain body. Errors
 * found before the first chunk are JSON bodies (the group's error schemas).
 * A failure after it cannot change the status any more, so the connection
 * is destroyed: the client sees a broken response rather than a complete
 * one with half a title, which it would store.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as NodeHttpServerRequest from "@effect/platform-node/NodeHttpServerRequest"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import { Caller } from "../../schema/Api/Security.js"
import { Api } from "../../schema/Api.js"
import { Titles } from "../../src/titles/Titles.js"

export const TitlesLive = HttpApiBuilder.group(Api, "titles", (handlers) =>
  Effect.gen(function* () {
    const titles = yield* Titles
    return handlers.handle("stream", ({ payload, request }) =>
      Effect.gen(function* () {
        const caller = yield* Caller
        const deltas = yield* titles.stream(caller, payload.thread_id, payload.messages)
        const body = deltas.pipe(
          // Every cause (the generator's failure may arrive wrapped as a defect by the stream machinery).
          Stream.catchAllCause((cause) =>
            Stream.execute(
              Effect.zipRight(
                Effect.logWarning("title generation failed mid-stream", cause),
                Effect.sync(() => NodeHttpServerRequest.toServerResponse(request).destroy())
              )
            )
          ),
          Stream.encodeText
        )
        return HttpServerResponse.stream(body, {
          contentType: "text/plain; charset=utf-8",
          headers: { "cache-control": "no-store", "x-content-type-options": "nosniff" }
        })
      })
    )
  })
)
