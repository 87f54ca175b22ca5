import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import { notFound } from "../../schema/Errors.js"

export interface ProjectRow {
  readonly id: string
  readonly name: string
  readonly plan: "hobby" | "pro" | "startup" | "enterprise"
  readonly created_at: Date
}

export class ProjectsRepo extends Effect.Service<ProjectsRepo>()("svc/ProjectsRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const insert = (id: string, name: string) =>
      sql<ProjectRow>`INSERT INTO projects (id, name) VALUES (${id}, ${name}) RETURNING id, name, plan, created_at`
    const list = sql<ProjectRow>`SELECT id, name, plan, created_at FROM projects ORDER BY id`
    const get = (id: string) => sql<ProjectRow>`SELECT id, name, plan, created_at FROM projects WHERE id = ${id}`
    const count = sql<{ n: number }>`SELECT count(*)::int AS n FROM projects`
    return {
      /** Runs `effect` in one transaction (a project and its first key are made together). */
      transaction: <A, E, R>(effect: Effect.Effect<A, E, R>) => sql.withTransaction(effect).pipe(Effect.orDie),
      /**
       * One transaction at a time across every gateway on the store: an
       * advisory lock held until commit (first-start bootstrap).
       */
      exclusively: <A, E, R>(effect: Effect.Effect<A, E, R>) =>
        sql.withTransaction(Effect.zipRight(sql`SELECT pg_advisory_xact_lock(7285471103)`, effect)).pipe(Effect.orDie),
      insert: (id: string, name: string) => insert(id, name).pipe(Effect.asVoid, Effect.orDie),
      list: list.pipe(Effect.orDie),
      get: (id: string) =>
        get(id).pipe(
          Effect.map((rows) => rows[0]),
          Effect.orDie
        ),
      /** The project, or a 404 for the admin plane. */
      require: (id: string) =>
        get(id).pipe(
          Effect.orDie,
          Effect.flatMap(([row]) => (row ? Effect.succeed(row) : Effect.fail(notFound("project"))))
        ),
      count: count.pipe(
        Effect.map(([row]) => row?.n ?? 0),
        Effect.orDie
      )
    } as const
  })
}) {}
