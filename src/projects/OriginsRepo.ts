import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import { foundOrFail } from "../platform/db/RowNotFound.js"
import { fn } from "../platform/telemetry/Traced.js"

export class OriginsRepo extends Effect.Service<OriginsRepo>()("svc/OriginsRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const list = (projectId: string) =>
      sql<{ origin: string }>`SELECT origin FROM project_origins WHERE project_id = ${projectId} ORDER BY origin`.pipe(
        Effect.map((rows) => rows.map((row) => row.origin))
      )
    /**
     * Replaces the project's list, in one transaction; RowNotFound when there
     * is no such project. The project row is locked first, so concurrent replaces
     * take turns: without it, two could both delete the old rows and both
     * insert, and the second insert failed on the primary key.
     */
    const replace = (projectId: string, origins: ReadonlyArray<string>) =>
      sql.withTransaction(
        Effect.gen(function* () {
          yield* Effect.flatMap(sql`SELECT id FROM projects WHERE id = ${projectId} FOR UPDATE`, foundOrFail("project"))
          yield* sql`DELETE FROM project_origins WHERE project_id = ${projectId}`
          if (origins.length > 0) {
            yield* sql`INSERT INTO project_origins ${sql.insert(origins.map((origin) => ({ project_id: projectId, origin })))}`
          }
        })
      )
    return {
      list: fn("OriginsRepo.list")(list, Effect.orDie),
      replace: fn("OriginsRepo.replace")(replace, Effect.catchTag("SqlError", Effect.die))
    } as const
  })
}) {}
