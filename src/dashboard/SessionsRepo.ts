import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { fn } from "../platform/telemetry/Traced.js"

export interface SessionRow {
  readonly kind: "admin" | "project"
  readonly project_id: string | null
}

/** The only reader and writer of `dashboard_sessions` (migration 0026). */
export class SessionsRepo extends Effect.Service<SessionsRepo>()("svc/DashboardSessionsRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const insert = (row: {
      readonly idHash: string
      readonly kind: "admin" | "project"
      readonly projectId: string | null
      readonly apiKeyId: string | null
      readonly adminTokenHash: string | null
    }) =>
      sql`INSERT INTO dashboard_sessions (id_hash, kind, project_id, api_key_id, admin_token_hash)
        VALUES (${row.idHash}, ${row.kind}, ${row.projectId}, ${row.apiKeyId}, ${row.adminTokenHash})`.pipe(
        Effect.asVoid
      )

    /**
     * The live session, its idle clock restarted, in one statement: not idle
     * for `idleSeconds`, and still backed by what opened it (the same admin
     * token, or an API key neither revoked nor expired).
     */
    const touch = (idHash: string, idleSeconds: number, adminTokenHash: string | null) =>
      sql<SessionRow>`UPDATE dashboard_sessions s SET last_used_at = now()
        WHERE s.id_hash = ${idHash}
          AND s.last_used_at > now() - ${idleSeconds} * interval '1 second'
          AND CASE WHEN s.kind = 'admin' THEN s.admin_token_hash = ${adminTokenHash}
            ELSE EXISTS (SELECT 1 FROM api_keys k
              WHERE k.project_id = s.project_id AND k.id = s.api_key_id
                AND k.revoked_at IS NULL AND (k.expires_at IS NULL OR k.expires_at > now())) END
        RETURNING s.kind, s.project_id`.pipe(Effect.map((rows) => Option.fromNullable(rows[0])))

    const remove = (idHash: string) => sql`DELETE FROM dashboard_sessions WHERE id_hash = ${idHash}`.pipe(Effect.asVoid)

    /** Sessions idle past `idleSeconds`: they can never be used again. */
    const removeIdle = (idleSeconds: number) =>
      sql`DELETE FROM dashboard_sessions WHERE last_used_at <= now() - ${idleSeconds} * interval '1 second'`.pipe(
        Effect.asVoid
      )

    return {
      insert: fn("DashboardSessionsRepo.insert")(insert, Effect.orDie),
      touch: fn("DashboardSessionsRepo.touch")(touch, Effect.orDie),
      remove: fn("DashboardSessionsRepo.remove")(remove, Effect.orDie),
      removeIdle: fn("DashboardSessionsRepo.removeIdle")(removeIdle, Effect.orDie)
    } as const
  })
}) {}
