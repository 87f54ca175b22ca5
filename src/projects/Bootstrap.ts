import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { AppConfig } from "../platform/Config.js"
import { ProjectAdmin } from "./ProjectAdmin.js"

/**
 * First start on an empty store: create the project `default` with its first
 * API key. A generated key is logged once, at warning level, on a line of its own in the log's
 * format (the README walkthrough copies `SVC_API_KEY=...` from it); a key
 * given in BOOTSTRAP_API_KEY (unattended installs) is never logged.
 */
export const BootstrapLive = Layer.effectDiscard(
  Effect.gen(function* () {
    if (!(yield* AppConfig.bootstrap)) return
    const given = Option.map(yield* AppConfig.bootstrapApiKey, Redacted.value)
    const created = yield* (yield* ProjectAdmin).bootstrap(Option.getOrUndefined(given))
    if (created === undefined) return
    if (Option.isSome(given)) {
      yield* Effect.logInfo(
        `created the project "default" with the API key of BOOTSTRAP_API_KEY: SVC_PROJECT_ID=${created.project_id}`
      )
      return
    }
    // At warning level: a LOG_LEVEL above info must not hide the one line the key is ever shown on.
    yield* Effect.logWarning(
      `created the project "default"; its API key is shown this once, keep it: SVC_PROJECT_ID=${created.project_id} SVC_API_KEY=${created.api_key}`
    )
  })
)
