import * as Cache from "effect/Cache"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { createRemoteJWKSet, jwtVerify } from "jose"
import type { ExternalIssuer } from "../../schema/Admin.js"
import { TtlCache } from "../platform/TtlCache.js"
import { fn } from "../platform/telemetry/Traced.js"
import { Projects } from "../projects/Projects.js"
import { IssuersRepo } from "./IssuersRepo.js"
import { isIdentifiedIdentity } from "./Principals.js"
import type { VerifiedToken } from "./Tokens.js"

/** How long a project's issuer settings are remembered; a change through this gateway applies at once. */
const SETTINGS_TTL = "5 seconds"
const MAX_PROJECTS = 10_000
/** A JWKS fetch that takes longer fails (the token is refused), so a slow provider never hangs a request. */
const JWKS_TIMEOUT_MS = 2_000
/** Remote key sets are kept this long, and refetched at most this often when a `kid` is unknown. */
const JWKS_MAX_AGE_MS = 10 * 60_000
const JWKS_COOLDOWN_MS = 30_000
/** Asymmetric algorithms only: a shared-secret algorithm would let a public key sign. */
const ALGORITHMS = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"]

/** Projects' own identity providers (docs/decisions.md "External identity providers"). */
export class Issuers extends Effect.Service<Issuers>()("svc/Issuers", {
  dependencies: [IssuersRepo.Default, Projects.Default],
  effect: Effect.gen(function* () {
    const repo = yield* IssuersRepo
    const projects = yield* Projects
    const clock = yield* Effect.clock
    const settingsCache = yield* Cache.make({
      capacity: MAX_PROJECTS,
      timeToLive: SETTINGS_TTL,
      lookup: (projectId: string) => repo.get(projectId)
    })
    // Key sets by URL, so a key set (and the keys it has fetched) outlives a refresh of the settings that name it.
    // Bounded like every in-process cache here (the oldest goes); a key set expires its keys itself.
    const keySets = new TtlCache<string, ReturnType<typeof createRemoteJWKSet>>(MAX_PROJECTS)
    const keySetOf = (url: string) => {
      const known = keySets.get(url)
      if (known !== undefined) return known
      const made = createRemoteJWKSet(new URL(url), {
        timeoutDuration: JWKS_TIMEOUT_MS,
        cacheMaxAge: JWKS_MAX_AGE_MS,
        cooldownDuration: JWKS_COOLDOWN_MS
      })
      keySets.set(url, made, Number.POSITIVE_INFINITY)
      return made
    }

    /** 404 for a project that does not exist. */
    const requireProject = projects.require

    /** The identity in a token of the project's own provider, or undefined. */
    const verify = (token: string, projectId: string): Effect.Effect<VerifiedToken | undefined> =>
      Effect.flatMap(settingsCache.get(projectId), (found) => {
        if (Option.isNone(found)) return Effect.succeed(undefined)
        const settings = found.value
        return Effect.tryPromise(() =>
          jwtVerify(token, keySetOf(settings.jwks_url), {
            algorithms: ALGORITHMS,
            issuer: settings.issuer,
            audience: settings.audience,
            requiredClaims: ["exp"],
            currentDate: new Date(clock.unsafeCurrentTimeMillis())
          })
        ).pipe(
          Effect.map(({ payload }): VerifiedToken | undefined => {
            const user = payload[settings.user_claim]
            const workspace = settings.workspace_claim === null ? user : payload[settings.workspace_claim]
            if (typeof user !== "string" || user === "" || typeof workspace !== "string" || workspace === "") {
              return undefined
            }
            // An external subject may not be an anonymous user of this service.
            if (!isIdentifiedIdentity(user, workspace)) return undefined
            return { userId: user, workspaceId: workspace, anonymous: false }
          }),
          Effect.catchAll((error) => Effect.as(Effect.logDebug("external token refused", String(error)), undefined))
        )
      })

    /** The project's settings, if it has a provider; 404 for a project that does not exist. */
    const get = fn("Issuers.get")(function* (projectId: string) {
      yield* requireProject(projectId)
      return yield* repo.get(projectId)
    })

    const set = fn("Issuers.set")(function* (projectId: string, settings: ExternalIssuer) {
      yield* requireProject(projectId)
      yield* repo.set(projectId, settings)
      yield* settingsCache.invalidate(projectId)
      return settings
    })

    /** Whether there was a provider to remove; 404 for a project that does not exist. */
    const clear = fn("Issuers.clear")(function* (projectId: string) {
      yield* requireProject(projectId)
      const cleared = yield* repo.clear(projectId)
      yield* settingsCache.invalidate(projectId)
      return cleared
    })

    return { verify, get, set, clear } as const
  })
}) {}
