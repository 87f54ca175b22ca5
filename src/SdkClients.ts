import * as Effect from "effect/Effect"
import type { SdkIdentity } from "../schema/SdkHeader.js"
import { SdkClientsRepo } from "./storage/SdkClientsRepo.js"

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
  effect: Effect.gen(function* () {
    const repo = yield* SdkClientsRepo
    const lastTouched = new Map<string, number>()

    const record = (projectId: string, identities: ReadonlyArray<SdkIdentity>): Effect.Effect<void> => {
      if (identities.length === 0) return Effect.void
      const now = Date.now()
      const due = identities.filter((identity) => {
        const key = `${projectId}\u0000${identity.name}\u0000${identity.version}`
        const last = lastTouched.get(key)
        if (last !== undefined && now - last < TOUCH_INTERVAL_MS) return false
        if (lastTouched.size >= MAX_REMEMBERED) lastTouched.clear()
        lastTouched.set(key, now)
        return true
      })
      if (due.length === 0) return Effect.void
      const rows = due.map((identity) => ({ project_id: projectId, name: identity.name, version: identity.version }))
      return repo.touch(rows).pipe(
        Effect.catchAllDefect((defect) => Effect.logWarning("could not record SDK clients", defect)),
        Effect.forkDaemon,
        Effect.asVoid
      )
    }

    return { record } as const
  })
}) {}
