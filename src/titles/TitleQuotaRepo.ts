import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import { fn } from "../platform/telemetry/Traced.js"

/** First day of the UTC calendar month of an instant, as YYYY-MM-01. */
export const utcMonth = (at: Date): string => `${at.toISOString().slice(0, 7)}-01`

export class TitleQuotaRepo extends Effect.Service<TitleQuotaRepo>()("svc/TitleQuotaRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    return {
      /**
       * Takes one title of the month if fewer than `limit` are used (true):
       * one statement, so concurrent callers on any gateway never pass the limit.
       */
      reserve: fn("TitleQuotaRepo.reserve")(
        (projectId: string, month: string, limit: number) =>
          sql<{ used: number }>`
            INSERT INTO title_quota (project_id, month, used) VALUES (${projectId}, ${month}::date, 1)
            ON CONFLICT (project_id, month) DO UPDATE SET used = title_quota.used + 1
            WHERE title_quota.used < ${limit}
            RETURNING used`.pipe(Effect.map((rows) => rows.length > 0)),
        Effect.orDie
      ),
      release: fn("TitleQuotaRepo.release")(
        (projectId: string, month: string) =>
          sql`UPDATE title_quota SET used = used - 1
            WHERE project_id = ${projectId} AND month = ${month}::date AND used > 0`.pipe(Effect.asVoid),
        Effect.orDie
      )
    } as const
  })
}) {}
