import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import { Limits } from "../../schema/Limits.js"
import type { SdkIdentity } from "../../schema/SdkHeader.js"
import { fn } from "../platform/telemetry/Traced.js"

export interface SdkClientRow {
  readonly name: string
  readonly version: string
  readonly first_seen_at: Date
  readonly last_seen_at: Date
}

const TTL_DAYS = Limits.sdkClients.ttlDays

export class SdkClientsRepo extends Effect.Service<SdkClientsRepo>()("svc/SdkClientsRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    /**
     * Marks identities seen now. New ones are added only while the project
     * holds fewer than its cap; known ones are always refreshed.
     */
    const touch = (projectId: string, identities: ReadonlyArray<SdkIdentity>) =>
      Effect.gen(function* () {
        const [row] = yield* sql<{
          n: number
        }>`SELECT count(*)::int AS n FROM sdk_clients WHERE project_id = ${projectId}`
        if ((row?.n ?? 0) < Limits.sdkClients.maxPerProject) {
          const rows = identities.map((identity) => ({
            project_id: projectId,
            name: identity.name,
            version: identity.version
          }))
          return yield* sql`INSERT INTO sdk_clients ${sql.insert(rows)}
            ON CONFLICT (project_id, name, version) DO UPDATE SET last_seen_at = now()`
        }
        const keys = identities.map((identity) => `${identity.name}/${identity.version}`)
        return yield* sql`UPDATE sdk_clients SET last_seen_at = now()
          WHERE project_id = ${projectId} AND name || '/' || version IN ${sql.in(keys)}`
      })
    const list = (projectId: string) =>
      sql<SdkClientRow>`SELECT name, version, first_seen_at, last_seen_at FROM sdk_clients
        WHERE project_id = ${projectId}
          AND last_seen_at > now() - make_interval(days => ${TTL_DAYS})
        ORDER BY last_seen_at DESC, name, version`
    const prune = sql`DELETE FROM sdk_clients WHERE last_seen_at <= now() - make_interval(days => ${TTL_DAYS})`
    return {
      touch: fn("SdkClientsRepo.touch")(touch, Effect.asVoid, Effect.orDie),
      list: fn("SdkClientsRepo.list")(list, Effect.orDie),
      prune: prune.pipe(Effect.asVoid, Effect.orDie, Effect.withSpan("SdkClientsRepo.prune"))
    } as const
  })
}) {}
