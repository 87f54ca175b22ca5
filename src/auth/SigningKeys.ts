import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { exportJWK, generateKeyPair, importJWK, type JWK, SignJWT } from "jose"
import { AppConfig } from "../Config.js"
import { ulid } from "../Ids.js"
import { type SigningKeyRow, SigningKeysRepo } from "../storage/SigningKeysRepo.js"

const ALG = "ES256"
const ALGORITHMS = ["ES256", "EdDSA"]

export class SigningKeysConfigError extends Data.TaggedError("SigningKeysConfigError")<{ readonly message: string }> {}

export interface PublicJwks {
  readonly keys: ReadonlyArray<JWK>
}

const generate = Effect.promise(async (): Promise<SigningKeyRow> => {
  const kid = `sig_${ulid()}`
  const { privateKey, publicKey } = await generateKeyPair(ALG, { extractable: true })
  const describe = { kid, alg: ALG, use: "sig" }
  return {
    kid,
    alg: ALG,
    public_jwk: JSON.stringify({ ...(await exportJWK(publicKey)), ...describe }),
    private_jwk: JSON.stringify({ ...(await exportJWK(privateKey)), ...describe })
  }
})

/**
 * The keys the service signs its JWTs with (ES256, with `kid`). Generated on
 * first start and kept in the store, so every gateway on one store signs
 * with, and publishes, the same keys.
 */
/**
 * Keys from configuration: `JWT_SIGNING_KEYS`, a JWK Set of private keys
 * (ES256 or EdDSA, each with `kid`); the first signs, all are published.
 * Rotation: put the new key first and keep the old one until its tokens
 * have expired (5 minutes), then drop it.
 */
const configuredKeys = Effect.gen(function* () {
  const raw = yield* AppConfig.signingKeys
  if (Option.isNone(raw)) return undefined
  const parsed: unknown = yield* Effect.try(() => JSON.parse(Redacted.value(raw.value))).pipe(
    Effect.orElseFail(() => new SigningKeysConfigError({ message: "JWT_SIGNING_KEYS is not JSON" }))
  )
  const keys = typeof parsed === "object" && parsed !== null && "keys" in parsed ? parsed.keys : undefined
  if (!Array.isArray(keys) || keys.length === 0) {
    return yield* new SigningKeysConfigError({ message: "JWT_SIGNING_KEYS must be a JWK Set with at least one key" })
  }
  return yield* Effect.forEach(keys, (key: unknown) => {
    if (typeof key !== "object" || key === null) {
      return Effect.fail(new SigningKeysConfigError({ message: "a JWT_SIGNING_KEYS entry is not an object" }))
    }
    const jwk: JWK = key
    const alg = jwk.alg ?? (jwk.kty === "OKP" ? "EdDSA" : "ES256")
    if (typeof jwk.kid !== "string" || jwk.kid === "" || jwk.d === undefined || !ALGORITHMS.includes(alg)) {
      return Effect.fail(
        new SigningKeysConfigError({
          message: "each JWT_SIGNING_KEYS key needs a kid, its private part, and alg ES256 or EdDSA"
        })
      )
    }
    const { d: _private, ...publicPart } = jwk
    const row: SigningKeyRow = {
      kid: jwk.kid,
      alg,
      public_jwk: JSON.stringify({ ...publicPart, alg, use: "sig" }),
      private_jwk: JSON.stringify({ ...jwk, alg })
    }
    return Effect.succeed(row)
  })
})

/**
 * The keys the service signs its JWTs with (with `kid`): from configuration,
 * or generated on first start (ES256) and kept in the store, so every gateway
 * on one store signs with, and publishes, the same keys.
 */
export class SigningKeys extends Effect.Service<SigningKeys>()("svc/SigningKeys", {
  dependencies: [SigningKeysRepo.Default],
  effect: Effect.gen(function* () {
    const rows = (yield* configuredKeys) ?? (yield* (yield* SigningKeysRepo).activeOrCreate(generate))
    const newest = rows[0]
    if (newest === undefined) return yield* Effect.dieMessage("no signing key")
    const privateJwk: JWK = JSON.parse(newest.private_jwk)
    const signingKey = yield* Effect.promise(() => importJWK(privateJwk, newest.alg))
    const jwks: PublicJwks = { keys: rows.map((row): JWK => JSON.parse(row.public_jwk)) }

    /** Signs `claims` with the newest key; `exp`, `iat` and the rest are the caller's. */
    const sign = (claims: Record<string, unknown>) =>
      Effect.promise(() =>
        new SignJWT(claims).setProtectedHeader({ alg: newest.alg, kid: newest.kid, typ: "JWT" }).sign(signingKey)
      )

    return { sign, jwks, currentKid: newest.kid, algorithms: [...new Set(rows.map((row) => row.alg))] } as const
  })
}) {}
