import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as Effect from "effect/Effect"
import { Caller } from "../../schema/Api/Security.js"
import { Api } from "../../schema/Api.js"
import { Runs } from "../../src/runs/Runs.js"

export const RunsLive = HttpApiBuilder.group(Api, "runs", (handlers) =>
  Effect.gen(function* () {
    const runs = yield* Runs
    return handlers.handle("report", ({ payload, headers }) =>
      Effect.flatMap(Caller, (caller) => runs.report(caller, payload, headers["idempotency-key"])).pipe(
        Effect.map((run_id) => ({ run_id }))
      )
    )
  })
)
