import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { ExternalIssuer } from "../../schema/Admin.js"
import { fn } from "../platform/telemetry/Traced.js"

export class IssuersRepo extends Effect.Service<IssuersRepo>()("svc/IssuersRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const get = (projectId: string) =>
      sql<ExternalIssuer>`SELECT issuer, jwks_url, audience, user_claim, workspace_claim
        FROM project_issuers WHERE project_id = ${projectId}`.pipe(Effect.map((rows) => Option.fromNullable(rows[0])))
    const set = (projectId: string, issuer: ExternalIssuer) =>
      sql`INSERT INTO project_issuers (project_id, issuer, jwks_url, audience, user_claim, workspace_claim)
        VALUES (${projectId}, ${issuer.issuer}, ${issuer.jwks_url}, ${issuer.audience}, ${issuer.user_claim}, ${issuer.workspace_claim})
        ON CONFLICT (project_id) DO UPDATE SET issuer = EXCLUDED.issuer, jwks_url = EXCLUDED.jwks_url,
          audience = EXCLUDED.audience, user_claim = EXCLUDED.user_claim,
          workspace_claim = EXCLUDED.workspace_claim, updated_at = now()`
    const clear = (projectId: string) =>
      sql`DELETE FROM project_issuers WHERE project_id = ${projectId} RETURNING project_id`.pipe(
        Effect.map((rows) => rows.length > 0)
      )
    return {
      get: fn("IssuersRepo.get")(get, Effect.orDie),
      set: fn("IssuersRepo.set")(set, Effect.asVoid, Effect.orDie),
      /** Whether there was a provider to remove. */
      clear: fn("IssuersRepo.clear")(clear, Effect.orDie)
    } as const
  })
}) {}
