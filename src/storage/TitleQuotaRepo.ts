import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/** First day of the UTC calendar month of an instant, as YYYY-MM-01. */
export const utcMonth = (at: Date): string => `${at.toISOString().slice(0, 7)}-01`

export class TitleQuotaRepo extends Effect.Service<TitleQuotaRepo>()("svc/TitleQuotaRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    /**
     * Takes one title of the month if fewer than `limit` are used: one
     * statement, so concurrent callers on any gateway never pass the limit.
     * No row back means the quota is used up.
     */
    const reserve = (projectId: string, month: string, limit: number) =>
      sql<{ used: number }>`
        INSERT INTO title_quota (project_id, month, used) VALUES (${projectId}, ${month}::date, 1)
        ON CONFLICT (project_id, month) DO UPDATE SET used = title_quota.used + 1
        WHERE title_quota.used < ${limit}
        RETURNING used`.pipe(Effect.map((rows) => rows.length > 0))

    const release = (projectId: string, month: string) =>
      sql`UPDATE title_quota SET used = used - 1
        WHERE project_id = ${projectId} AND month = ${month}::date AND used > 0`

    return {
      reserve: (projectId: string, month: string, limit: number) => reserve(projectId, month, limit).pipe(Effect.orDie),
      release: (projectId: string, month: string) => release(projectId, month).pipe(Effect.asVoid, Effect.orDie)
    } as const
  })
}) {}
