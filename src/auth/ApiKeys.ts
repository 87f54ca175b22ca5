import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { AppConfig } from "../platform/Config.js"
import { orNotFound } from "../platform/Found.js"
import { newId } from "../platform/Ids.js"
import { hashSecret, newSecret } from "../platform/Secrets.js"
import { TtlCache } from "../platform/TtlCache.js"
import { fn } from "../platform/telemetry/Traced.js"
import { type ApiKeyRow, ApiKeysRepo } from "./ApiKeysRepo.js"

const PREFIX_LENGTH = 11
const KEY_PATTERN = /^sk_[A-Za-z0-9_-]{32,128}$/

export interface VerifiedKey {
  readonly keyId: string
  readonly projectId: string
}

export class ApiKeys extends Effect.Service<ApiKeys>()("svc/ApiKeys", {
  dependencies: [ApiKeysRepo.Default],
  effect: Effect.gen(function* () {
    const repo = yield* ApiKeysRepo
    const cacheMs = yield* AppConfig.apiKeyCacheMs
    // Verified keys are remembered briefly so that a hot key costs no query
    // per request; refused ones too, in a cache of their own, so that a flood
    // of made-up keys neither reaches the database each time nor pushes real
    // keys out. Each map drops its oldest entry when full. Revocation in this
    // process evicts at once (a lookup that raced with it is not cached);
    // other processes see it within API_KEY_CACHE_MS.
    const clock = yield* Effect.clock
    const now = () => clock.unsafeCurrentTimeMillis()
    const accepted = new TtlCache<string, VerifiedKey>(10_000, now)
    const refused = new TtlCache<string, true>(10_000, now)
    let revocations = 0

    const create = fn("ApiKeys.create")(function* (
      projectId: string,
      options: {
        readonly name?: string | undefined
        readonly expiresInDays?: number | null | undefined
        /** The key itself, chosen by the operator (BOOTSTRAP_API_KEY); unset: a new random one. */
        readonly given?: string | undefined
      }
    ) {
      // `sk_` + 43 URL-safe characters; only its SHA-256 is stored.
      const apiKey = options.given ?? newSecret("sk")
      const days = options.expiresInDays ?? null
      const row = yield* repo.insert({
        projectId,
        id: newId("key"),
        name: options.name ?? null,
        prefix: apiKey.slice(0, PREFIX_LENGTH),
        keyHash: hashSecret(apiKey),
        expiresAt: days === null ? null : new Date(now() + days * 86_400_000)
      })
      return { row, apiKey }
    })

    const lookupAndRemember = fn("ApiKeys.lookupAndRemember")(function* (hash: string) {
      const revocationsBefore = revocations
      const row = Option.getOrUndefined(yield* repo.findActiveByHash(hash))
      const key = row ? { keyId: row.id, projectId: row.project_id } : undefined
      if (cacheMs > 0 && revocations === revocationsBefore) {
        // Never remembered past the key's own expiry.
        const until = Math.min(now() + cacheMs, row?.expires_at?.getTime() ?? Number.POSITIVE_INFINITY)
        if (key) accepted.set(hash, key, until)
        else refused.set(hash, true, until)
      }
      return key
    })

    /**
     * The project behind a bearer API key, or undefined for an unknown, revoked
     * or expired one. A cached answer costs no span: it is the per-request path.
     */
    const verify = (apiKey: string): Effect.Effect<VerifiedKey | undefined> => {
      if (!KEY_PATTERN.test(apiKey)) return Effect.succeed(undefined)
      const hash = hashSecret(apiKey)
      const known = accepted.get(hash)
      if (known !== undefined) return Effect.succeed(known)
      return refused.get(hash) ? Effect.succeed(undefined) : lookupAndRemember(hash)
    }

    const list = fn("ApiKeys.list")(function* (projectId: string) {
      return yield* repo.list(projectId)
    })

    const revoke = fn("ApiKeys.revoke")(function* (projectId: string, keyId: string) {
      const hash = yield* Effect.flatMap(repo.revoke(projectId, keyId), orNotFound("API key"))
      revocations++
      accepted.delete(hash)
    })

    return { create, verify, list, revoke } as const
  })
}) {}

export type { ApiKeyRow }
