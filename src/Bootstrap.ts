import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { AppConfig } from "./Config.js"
import { ProjectAdmin } from "./ProjectAdmin.js"

/**
 * First start on an empty store: create the project `default` and print its id
 * and first API key once, on stdout, for the README walkthrough.
 */
export const BootstrapLive = Layer.effectDiscard(
  Effect.gen(function* () {
    if (!(yield* AppConfig.bootstrap)) return
    const created = yield* (yield* ProjectAdmin).bootstrap()
    if (created === undefined) return
    yield* Effect.sync(() =>
      process.stdout.write(
        `${[
          "",
          'Created project "default". This API key is shown once; keep it:',
          `  SVC_PROJECT_ID=${created.project_id}`,
          `  SVC_API_KEY=${created.api_key}`,
          ""
        ].join("\n")}\n`
      )
    )
  })
)
