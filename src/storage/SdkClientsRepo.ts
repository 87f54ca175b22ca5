import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

export interface SdkClientRow {
  readonly name: string
  readonly version: string
  readonly first_seen_at: Date
  readonly last_seen_at: Date
}

/** Entries unseen for this long drop off the list (spec part 8). */
export const SDK_CLIENT_TTL_DAYS = 180

export class SdkClientsRepo extends Effect.Service<SdkClientsRepo>()("svc/SdkClientsRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const touch = (
      rows: ReadonlyArray<{ readonly project_id: string; readonly name: string; readonly version: string }>
    ) =>
      sql`INSERT INTO sdk_clients ${sql.insert(rows)}
        ON CONFLICT (project_id, name, version) DO UPDATE SET last_seen_at = now()`
    const list = (projectId: string) =>
      sql<SdkClientRow>`SELECT name, version, first_seen_at, last_seen_at FROM sdk_clients
        WHERE project_id = ${projectId}
          AND last_seen_at > now() - make_interval(days => ${SDK_CLIENT_TTL_DAYS})
        ORDER BY last_seen_at DESC, name, version`
    const prune = sql`DELETE FROM sdk_clients WHERE last_seen_at <= now() - make_interval(days => ${SDK_CLIENT_TTL_DAYS})`
    return {
      touch: (rows: Parameters<typeof touch>[0]) => touch(rows).pipe(Effect.asVoid, Effect.orDie),
      list: (projectId: string) => list(projectId).pipe(Effect.orDie),
      prune: prune.pipe(Effect.asVoid, Effect.orDie)
    } as const
  })
}) {}
