import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { exportJWK, generateKeyPair, importJWK, type JWK, SignJWT } from "jose"
import { ulid } from "../platform/Ids.js"
import { SigningKeysConfig } from "./SigningKeysConfig.js"
import { type SigningKeyRow, SigningKeysRepo } from "./SigningKeysRepo.js"

const ALG = "ES256"

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
 * Keys from configuration (src/auth/SigningKeysConfig.ts, checked before
 * anything starts): the first signs, all are published. Rotation: put the
 * new key first and keep the old one until its tokens have expired (5
 * minutes), then drop it.
 */
const configuredKeys = Effect.map(SigningKeysConfig, (keys) =>
  Option.isNone(keys)
    ? undefined
    : Redacted.value(keys.value).map(
        (key): SigningKeyRow => ({
          kid: key.kid,
          alg: key.alg,
          public_jwk: key.publicJwk,
          private_jwk: key.privateJwk
        })
      )
)

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
