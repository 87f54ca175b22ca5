/**
 * `JWT_SIGNING_KEYS`, read and checked with the other settings before
 * anything starts (app/Startup.ts `AllSettings`): a JWK Set of private keys,
 * ES256 (EC P-256) or EdDSA (Ed25519), each with a `kid`; the first signs,
 * all are published. Each key is imported once here (node:crypto), so a key
 * that cannot sign is refused in the start's one FATAL line, not by the
 * service that signs seconds after the store has opened. A message names the
 * key by its place in the set, never its content (it is a secret).
 */
import { createPrivateKey, createPublicKey, sign, verify } from "node:crypto"
import * as Config from "effect/Config"
import * as ConfigError from "effect/ConfigError"
import * as Either from "effect/Either"
import * as Redacted from "effect/Redacted"

/** A configured key as the signing service keeps it. */
export interface ConfiguredSigningKey {
  readonly kid: string
  readonly alg: "ES256" | "EdDSA"
  /** The JWK without its private part, with `alg` and `use`: what JWKS publishes. */
  readonly publicJwk: string
  readonly privateJwk: string
}

type Parsed = Either.Either<ReadonlyArray<ConfiguredSigningKey>, string>

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** What the key's type says its algorithm is, and what node:crypto must find in it. */
const KINDS = {
  ES256: { kty: "EC", crv: "P-256", keyType: "ec", curve: "prime256v1" },
  EdDSA: { kty: "OKP", crv: "Ed25519", keyType: "ed25519", curve: undefined }
} as const

const keyOf = (entry: unknown, place: string): Either.Either<ConfiguredSigningKey, string> => {
  if (!isRecord(entry)) return Either.left(`${place} is not a JSON object`)
  const { kid, d, kty, alg: declared } = entry
  if (typeof kid !== "string" || kid.trim() === "") return Either.left(`${place} needs a kid`)
  if (typeof d !== "string") return Either.left(`${place} needs its private part (d)`)
  const alg = declared ?? (kty === "OKP" ? "EdDSA" : "ES256")
  if (alg !== "ES256" && alg !== "EdDSA") return Either.left(`${place} must have alg ES256 or EdDSA`)
  const kind = KINDS[alg]
  if (kty !== kind.kty || entry.crv !== kind.crv) {
    return Either.left(`${place} with alg ${alg} must be kty ${kind.kty}, crv ${kind.crv}`)
  }
  try {
    const key = createPrivateKey({ key: { ...entry, kty: kind.kty }, format: "jwk" })
    if (key.asymmetricKeyType !== kind.keyType || key.asymmetricKeyDetails?.namedCurve !== kind.curve) {
      return Either.left(`${place} is not an ${alg} key`)
    }
    // The public part is what verifiers get (JWKS): a signature made with the private part must verify with it.
    const { d: _d, ...publicJwk } = entry
    const publicKey = createPublicKey({ key: { ...publicJwk, kty: kind.kty }, format: "jwk" })
    const probe = Buffer.from("svc signing key check")
    const digest = alg === "ES256" ? "sha256" : null
    if (!verify(digest, probe, publicKey, sign(digest, probe, key))) {
      return Either.left(`${place}'s public part (x, y) is not its private key's`)
    }
  } catch {
    return Either.left(`${place} is not a valid ${alg} private key`)
  }
  const { d: _private, ...publicPart } = entry
  return Either.right({
    kid,
    alg,
    publicJwk: JSON.stringify({ ...publicPart, alg, use: "sig" }),
    privateJwk: JSON.stringify({ ...entry, alg })
  })
}

export const parseSigningKeys = (text: string): Parsed => {
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    return Either.left('is not JSON: it must be a JWK Set, {"keys": [...]}')
  }
  const keys = isRecord(parsed) ? parsed.keys : undefined
  if (!Array.isArray(keys) || keys.length === 0) {
    return Either.left('must be a JWK Set with at least one key: {"keys": [...]}')
  }
  const out: Array<ConfiguredSigningKey> = []
  for (const [index, entry] of keys.entries()) {
    const key = keyOf(entry, `key ${index + 1}`)
    if (Either.isLeft(key)) return Either.left(key.left)
    if (out.some((other) => other.kid === key.right.kid)) return Either.left(`key ${index + 1} repeats a kid`)
    out.push(key.right)
  }
  return Either.right(out)
}

/** The configured keys (none: generated on first start and kept in the store). */
export const SigningKeysConfig = Config.option(
  Config.string("JWT_SIGNING_KEYS").pipe(
    Config.mapOrFail((text) =>
      Either.mapBoth(parseSigningKeys(text), {
        onLeft: (problem) => ConfigError.InvalidData([], problem),
        onRight: (keys) => Redacted.make(keys)
      })
    )
  )
)
