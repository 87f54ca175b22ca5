import { createHash, randomBytes } from "node:crypto"
import * as Effect from "effect/Effect"
import { notFound } from "../../schema/Errors.js"
import { AppConfig } from "../Config.js"
import { newId } from "../Ids.js"
import { type ApiKeyRow, ApiKeysRepo } from "../storage/ApiKeysRepo.js"

/** `sk_` + 43 URL-safe characters (256 random bits); only its SHA-256 is stored. */
export const generateApiKey = (): string => `sk_${randomBytes(32).toString("base64url")}`
export const hashApiKey = (key: string): string => createHash("sha256").update(key).digest("hex")
const PREFIX_LENGTH = 11
const KEY_PATTERN = /^sk_[A-Za-z0-9_-]{32,128}$/

export interface VerifiedKey {
  readonly keyId: string
  readonly projectId: string
}

interface CacheEntry {
  readonly key: VerifiedKey | undefined
  readonly until: number
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
    const accepted = new Map<string, CacheEntry>()
    const refused = new Map<string, CacheEntry>()
    const MAX_ENTRIES = 10_000
    let revocations = 0
    const remember = (cache: Map<string, CacheEntry>, hash: string, entry: CacheEntry) => {
      if (cache.size >= MAX_ENTRIES) {
        const oldest = cache.keys().next()
        if (!oldest.done) cache.delete(oldest.value)
      }
      cache.set(hash, entry)
    }

    const create = Effect.fn("ApiKeys.create")(function* (
      projectId: string,
      options: { readonly name?: string | undefined; readonly expiresInDays?: number | null | undefined }
    ) {
      const apiKey = generateApiKey()
      const days = options.expiresInDays ?? null
      const row = yield* repo.insert({
        projectId,
        id: newId("key"),
        name: options.name ?? null,
        prefix: apiKey.slice(0, PREFIX_LENGTH),
        keyHash: hashApiKey(apiKey),
        expiresAt: days === null ? null : new Date(Date.now() + days * 86_400_000)
      })
      return { row, apiKey }
    })

    const lookup = (hash: string) =>
      repo.findActiveByHash(hash).pipe(
        Effect.map((row): CacheEntry => {
          const key = row ? { keyId: row.id, projectId: row.project_id } : undefined
          const expires = row?.expires_at ? row.expires_at.getTime() : Number.POSITIVE_INFINITY
          return { key, until: Math.min(Date.now() + cacheMs, expires) }
        })
      )

    const lookupAndRemember = Effect.fn("ApiKeys.verify")(function* (hash: string) {
      const revocationsBefore = revocations
      const entry = yield* lookup(hash)
      if (cacheMs > 0 && revocations === revocationsBefore) {
        remember(entry.key ? accepted : refused, hash, entry)
      }
      return entry.key
    })

    /**
     * The project behind a bearer API key, or undefined for an unknown, revoked
     * or expired one. A cached answer costs no span: it is the per-request path.
     */
    const verify = (apiKey: string): Effect.Effect<VerifiedKey | undefined> => {
      if (!KEY_PATTERN.test(apiKey)) return Effect.succeed(undefined)
      const hash = hashApiKey(apiKey)
      const cached = accepted.get(hash) ?? refused.get(hash)
      return cached && cached.until > Date.now() ? Effect.succeed(cached.key) : lookupAndRemember(hash)
    }

    const list = Effect.fn("ApiKeys.list")(function* (projectId: string) {
      return yield* repo.list(projectId)
    })

    const revoke = Effect.fn("ApiKeys.revoke")(function* (projectId: string, keyId: string) {
      const hash = yield* repo.revoke(projectId, keyId)
      if (hash === undefined) return yield* Effect.fail(notFound("API key"))
      revocations++
      accepted.delete(hash)
    })

    return { create, verify, list, revoke } as const
  })
}) {}

export type { ApiKeyRow }
