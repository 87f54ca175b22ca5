import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

export class OriginsRepo extends Effect.Service<OriginsRepo>()("svc/OriginsRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const list = (projectId: string) =>
      sql<{ origin: string }>`SELECT origin FROM project_origins WHERE project_id = ${projectId} ORDER BY origin`.pipe(
        Effect.map((rows) => rows.map((row) => row.origin))
      )
    /**
     * Replaces the project's list, in one transaction; false when there is no
     * such project. The project row is locked first, so concurrent replaces
     * take turns: without it, two could both delete the old rows and both
     * insert, and the second insert failed on the primary key.
     */
    const replace = (projectId: string, origins: ReadonlyArray<string>) =>
      sql.withTransaction(
        Effect.gen(function* () {
          const locked = yield* sql`SELECT id FROM projects WHERE id = ${projectId} FOR UPDATE`
          if (locked.length === 0) return false
          yield* sql`DELETE FROM project_origins WHERE project_id = ${projectId}`
          if (origins.length > 0) {
            yield* sql`INSERT INTO project_origins ${sql.insert(origins.map((origin) => ({ project_id: projectId, origin })))}`
          }
          return true
        })
      )
    return {
      list: (projectId: string) => list(projectId).pipe(Effect.orDie),
      replace: (projectId: string, origins: ReadonlyArray<string>) => replace(projectId, origins).pipe(Effect.orDie)
    } as const
  })
}) {}
