import { type AssistantCloudConfig, resolveConfig } from "../core/config.js"
import { type CloudEvent, EventBuffer } from "../core/events.js"
import type { SdkIdentity } from "../core/sdkHeader.js"
import type { ResolvedTelemetry } from "../core/telemetry.js"
import { makeAuth, makeFiles, makeScores } from "./misc.js"
import { makeProjects } from "./projects.js"
import { makeRuns } from "./runs.js"
import { makeThreads } from "./threads.js"

/**
 * The client (docs/client-library.md "Three modes"): one of three configurations,
 * the REST namespaces, the engagement event buffer, the telemetry settings
 * (read at each call) and `registerSdk`. Its own keys are those of the
 * original client, in its order; the state lives in private fields.
 */
export class AssistantCloud {
  readonly threads: ReturnType<typeof makeThreads>
  readonly projects: ReturnType<typeof makeProjects>
  readonly auth: ReturnType<typeof makeAuth>
  readonly runs: ReturnType<typeof makeRuns>
  readonly files: ReturnType<typeof makeFiles>
  readonly events: {
    /** Buffers an event (nothing when telemetry or events are off); never throws for delivery. */
    readonly track: (event: CloudEvent) => void
    /** Flushes the buffer and removes its page listeners and timer. */
    readonly dispose: () => Promise<void>
  }
  readonly scores: ReturnType<typeof makeScores>
  telemetry: ResolvedTelemetry
  /** Adds `name/version` to the Svc-Sdk header of every later request. */
  readonly registerSdk: (identity: SdkIdentity) => void

  constructor(config: AssistantCloudConfig) {
    const { transport, telemetry, sdk } = resolveConfig(config)
    this.threads = makeThreads(transport)
    this.projects = makeProjects(transport)
    this.auth = makeAuth(transport)
    this.runs = makeRuns(transport)
    this.files = makeFiles(transport)
    const buffer = new EventBuffer(transport, () => this.telemetry)
    this.events = { track: (event) => buffer.track(event), dispose: () => buffer.dispose() }
    this.scores = makeScores(transport)
    this.telemetry = telemetry
    this.registerSdk = (identity) => sdk.register(identity)
  }
}
