import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as Effect from "effect/Effect"
import { Api } from "../../schema/Api.js"
import { Erasure, eraseFromGateway } from "../../src/erasure/Erasure.js"

/** Who asks through the admin API: the holder of ADMIN_TOKEN (the only admin identity there is). */
export const ADMIN_API_REQUESTER = "admin-api"

export const ErasureLive = HttpApiBuilder.group(Api, "erasure", (handlers) =>
  Effect.gen(function* () {
    const erasure = yield* Erasure
    return handlers
      .handle("eraseUser", ({ path }) => eraseFromGateway(path.project_id, path.user_id, ADMIN_API_REQUESTER))
      .handle("listErasures", ({ path }) => Effect.map(erasure.list(path.project_id), (erasures) => ({ erasures })))
  })
)
