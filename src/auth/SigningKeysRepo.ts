import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

export interface SigningKeyRow {
  readonly kid: string
  readonly alg: string
  readonly public_jwk: string
  readonly private_jwk: string
}

export class SigningKeysRepo extends Effect.Service<SigningKeysRepo>()("svc/SigningKeysRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    /** Active keys, newest first; JWKs as JSON text. */
    const active = sql<SigningKeyRow>`SELECT kid, alg, public_jwk::text AS public_jwk, private_jwk::text AS private_jwk
      FROM signing_keys WHERE retired_at IS NULL ORDER BY created_at DESC, kid DESC`
    const insert = (row: SigningKeyRow) =>
      sql`INSERT INTO signing_keys (kid, alg, public_jwk, private_jwk)
        VALUES (${row.kid}, ${row.alg}, ${row.public_jwk}::jsonb, ${row.private_jwk}::jsonb)`
    /**
     * The active keys, creating one with `make` when there is none; under an
     * advisory lock, so gateways starting together create one key.
     */
    const activeOrCreate = <E>(make: Effect.Effect<SigningKeyRow, E>) =>
      sql.withTransaction(
        Effect.gen(function* () {
          yield* sql`SELECT pg_advisory_xact_lock(7285471104)`
          const rows = yield* active
          if (rows.length > 0) return rows
          const row = yield* make
          yield* insert(row)
          return [row]
        })
      )
    return {
      activeOrCreate: <E>(make: Effect.Effect<SigningKeyRow, E>) =>
        activeOrCreate(make).pipe(Effect.orDie, Effect.withSpan("SigningKeysRepo.activeOrCreate"))
    } as const
  })
}) {}
