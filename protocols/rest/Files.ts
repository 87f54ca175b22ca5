import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as Effect from "effect/Effect"
import { Caller } from "../../schema/Api/Security.js"
import { Api } from "../../schema/Api.js"
import { Files } from "../../src/files/Files.js"

export const FilesLive = HttpApiBuilder.group(Api, "files", (handlers) =>
  Effect.gen(function* () {
    const files = yield* Files
    return handlers
      .handle("uploadUrl", ({ payload }) =>
        Effect.flatMap(Caller, (caller) => files.uploadUrl(caller, payload.filename))
      )
      .handle("downloadUrl", ({ payload }) => Effect.flatMap(Caller, (caller) => files.downloadUrl(caller, payload)))
  })
)
