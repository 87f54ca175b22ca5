import * as Effect from "effect/Effect"
import * as Schedule from "effect/Schedule"
import type { SdkIdentity } from "../../schema/SdkHeader.js"
import { SdkClientsRepo } from "./SdkClientsRepo.js"

/** How often one identity of one project is written back (last-seen precision). */
const TOUCH_INTERVAL_MS = 60_000
const MAX_REMEMBERED = 50_000

/**
 * Records each `name/version` of the Svc-Sdk header per project with its
 * last-seen time. Writes are throttled to one per identity per minute per
 * process and run off the request path.
 */
export class SdkClients extends Effect.Service<SdkClients>()("svc/SdkClients", {
  dependencies: [SdkClientsRepo.Default],
  scoped: Effect.gen(function* () {
    const repo = yield* SdkClientsRepo
    // Writes and the daily clean-up live in this layer's scope: they stop with
    // the gateway rather than run against a closed pool.
    const scope = yield* Effect.scope
    yield* repo.prune.pipe(
      Effect.catchAllDefect((defect) => Effect.logWarning("could not prune the SDK client list", defect)),
      Effect.repeat(Schedule.spaced("24 hours")),
      Effect.forkIn(scope)
    )
    const lastTouched = new Map<string, number>()
    const clock = yield* Effect.clock

    const record = (projectId: string, identities: ReadonlyArray<SdkIdentity>): Effect.Effect<void> => {
      if (identities.length === 0) return Effect.void
      const now = clock.unsafeCurrentTimeMillis()
      const due = identities.filter((identity) => {
        const key = `${projectId}\u0000${identity.name}\u0000${identity.version}`
        const last = lastTouched.get(key)
        if (last !== undefined && now - last < TOUCH_INTERVAL_MS) return false
        if (lastTouched.size >= MAX_REMEMBERED) lastTouched.clear()
        lastTouched.set(key, now)
        return true
      })
      if (due.length === 0) return Effect.void
      return repo.touch(projectId, due).pipe(
        Effect.catchAllDefect((defect) => Effect.logWarning("could not record SDK clients", defect)),
        Effect.forkIn(scope),
        Effect.asVoid
      )
    }

    return { record } as const
  })
}) {}
