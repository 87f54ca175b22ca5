import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { Limits } from "../../schema/Limits.js"
import { RowNotFound } from "../platform/db/RowNotFound.js"
import { isReferenceGone } from "../platform/db/SqlErrors.js"
import { fn } from "../platform/telemetry/Traced.js"

const DAYS = Limits.auth.refreshTokenDays

export interface LiveRefreshToken {
  readonly user_id: string
  readonly expires_at: Date
}

export class RefreshTokensRepo extends Effect.Service<RefreshTokensRepo>()("svc/RefreshTokensRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const live = (rows: ReadonlyArray<LiveRefreshToken>) => Option.fromNullable(rows[0])
    return {
      /** RowNotFound when the project does not exist. */
      insert: fn("RefreshTokensRepo.insert")(
        (row: { projectId: string; id: string; tokenHash: string; userId: string }) =>
          sql<LiveRefreshToken>`INSERT INTO refresh_tokens (project_id, id, token_hash, user_id, expires_at)
            VALUES (${row.projectId}, ${row.id}, ${row.tokenHash}, ${row.userId}, now() + make_interval(days => ${DAYS}))
            RETURNING user_id, expires_at`.pipe(
            Effect.flatMap(([stored]) => (stored ? Effect.succeed(stored) : Effect.dieMessage("no row returned"))),
            Effect.catchIf(isReferenceGone, () => Effect.fail(new RowNotFound({ what: "project" })))
          ),
        Effect.catchTag("SqlError", Effect.die)
      ),
      /** A live token of the project gets now + 30 days; none for an unknown, expired or revoked one. */
      extend: fn("RefreshTokensRepo.extend")(
        (projectId: string, tokenHash: string) =>
          sql<LiveRefreshToken>`UPDATE refresh_tokens SET expires_at = now() + make_interval(days => ${DAYS})
            WHERE project_id = ${projectId} AND token_hash = ${tokenHash} AND revoked_at IS NULL AND expires_at > now()
            RETURNING user_id, expires_at`.pipe(Effect.map(live)),
        Effect.orDie
      ),
      /**
       * Revokes a live token of the project and answers its user; the row lock
       * makes one of two concurrent claims win, the other sees it revoked.
       */
      revoke: fn("RefreshTokensRepo.revoke")(
        (projectId: string, tokenHash: string) =>
          sql<LiveRefreshToken>`UPDATE refresh_tokens SET revoked_at = now()
            WHERE project_id = ${projectId} AND token_hash = ${tokenHash} AND revoked_at IS NULL AND expires_at > now()
            RETURNING user_id, expires_at`.pipe(Effect.map(live)),
        Effect.orDie
      ),
      transaction: <A, E, R>(effect: Effect.Effect<A, E, R>) => sql.withTransaction(effect).pipe(Effect.orDie)
    } as const
  })
}) {}
