/**
 * The services of `svc`'s command groups over one store layer: app/cli.ts
 * gives it the store of the configuration; the tests give it the store of
 * a gateway they run (test/support/cli-harness.ts), so both run the same wiring.
 * Each group builds only what it uses (a command that lists projects makes
 * no signing key).
 */
import type * as SqlClient from "@effect/sql/SqlClient"
import type * as ConfigError from "effect/ConfigError"
import * as Layer from "effect/Layer"
import type { CliServices } from "../protocols/cli/Cli.js"
import { Alerts } from "../src/alerts/Alerts.js"
import { Issuers } from "../src/auth/Issuers.js"
import { Erasure } from "../src/erasure/Erasure.js"
import { Evaluators } from "../src/evaluators/Evaluators.js"
import { Origins } from "../src/projects/Origins.js"
import { ProjectAdmin } from "../src/projects/ProjectAdmin.js"
import { ProjectSettings } from "../src/projects/ProjectSettings.js"
import { Retention } from "../src/retention/Retention.js"
import { Webhooks } from "../src/webhooks/Webhooks.js"
import { BlobStoreLive, EvaluatorModelLive, ImplementationsLive } from "./Implementations.js"
import { jobsLayer } from "./Jobs.js"

export const cliServices = <E>(
  store: Layer.Layer<SqlClient.SqlClient, E>
): CliServices<E | ConfigError.ConfigError> => {
  const on = <A, E2, R>(service: Layer.Layer<A, E2, R>) => service.pipe(Layer.provide(store))
  return {
    projects: on(ProjectAdmin.Default),
    origins: on(Origins.Default),
    issuers: on(Issuers.Default),
    // The blob store too: an erasure deletes the user's attachments.
    erasure: on(Erasure.Default.pipe(Layer.provide(BlobStoreLive))),
    settings: on(
      ProjectSettings.Default.pipe(
        Layer.provideMerge(Retention.Default),
        Layer.provide([ProjectAdmin.Default, Origins.Default, Issuers.Default])
      )
    ),
    // Retention deletes attachments and evaluators may call the model: the implementations too. No timer: a job runs when asked.
    jobs: on(jobsLayer({ timer: false }).pipe(Layer.provide(ImplementationsLive))),
    evaluators: on(Evaluators.Default.pipe(Layer.provide(EvaluatorModelLive))),
    webhooks: on(Webhooks.Default),
    alerts: on(Alerts.Default)
  }
}
