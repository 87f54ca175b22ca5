import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { fn } from "../platform/telemetry/Traced.js"

export interface ApiKeyRow {
  readonly id: string
  readonly project_id: string
  readonly name: string | null
  readonly prefix: string
  readonly created_at: Date
  readonly expires_at: Date | null
  readonly revoked_at: Date | null
}

export interface NewApiKey {
  readonly projectId: string
  readonly id: string
  readonly name: string | null
  readonly prefix: string
  readonly keyHash: string
  readonly expiresAt: Date | null
}

const COLUMNS = "id, project_id, name, prefix, created_at, expires_at, revoked_at"

export class ApiKeysRepo extends Effect.Service<ApiKeysRepo>()("svc/ApiKeysRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const cols = sql.literal(COLUMNS)
    return {
      insert: fn("ApiKeysRepo.insert")(
        (key: NewApiKey) =>
          sql<ApiKeyRow>`INSERT INTO api_keys (project_id, id, name, prefix, key_hash, expires_at)
            VALUES (${key.projectId}, ${key.id}, ${key.name}, ${key.prefix}, ${key.keyHash}, ${key.expiresAt?.toISOString() ?? null})
            RETURNING ${cols}`.pipe(
            Effect.flatMap(([row]) => (row ? Effect.succeed(row) : Effect.dieMessage("api key insert returned no row")))
          ),
        Effect.orDie
      ),
      /** The live key with this hash: not revoked, not expired. */
      findActiveByHash: fn("ApiKeysRepo.findActiveByHash")(
        (keyHash: string) =>
          sql<ApiKeyRow>`SELECT ${cols} FROM api_keys
            WHERE key_hash = ${keyHash} AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now())`.pipe(
            Effect.map((rows) => Option.fromNullable(rows[0]))
          ),
        Effect.orDie
      ),
      list: fn("ApiKeysRepo.list")(
        (projectId: string) => sql<ApiKeyRow>`SELECT ${cols} FROM api_keys WHERE project_id = ${projectId} ORDER BY id`,
        Effect.orDie
      ),
      /** The revoked key's hash; none when the project has no such key. */
      revoke: fn("ApiKeysRepo.revoke")(
        (projectId: string, id: string) =>
          sql<{ key_hash: string }>`UPDATE api_keys SET revoked_at = COALESCE(revoked_at, now())
            WHERE project_id = ${projectId} AND id = ${id} RETURNING key_hash`.pipe(
            Effect.map((rows) => Option.fromNullable(rows[0]?.key_hash))
          ),
        Effect.orDie
      )
    } as const
  })
}) {}
