import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import type { Plan } from "../../schema/Admin.js"
import { notFound } from "../../schema/Errors.js"

export interface ProjectRow {
  readonly id: string
  readonly name: string
  readonly plan: Plan
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
    const setPlan = (id: string, plan: ProjectRow["plan"]) =>
      sql<ProjectRow>`UPDATE projects SET plan = ${plan} WHERE id = ${id} RETURNING id, name, plan, created_at`
    const testUserPrefixes = (id: string) =>
      sql<{ prefixes: Array<string> }>`SELECT test_user_prefixes AS prefixes FROM projects WHERE id = ${id}`
    const setTestUserPrefixes = (id: string, prefixes: ReadonlyArray<string>) =>
      sql<{ prefixes: Array<string> }>`UPDATE projects
        SET test_user_prefixes = ARRAY(SELECT jsonb_array_elements_text(${JSON.stringify(prefixes)}::jsonb))
        WHERE id = ${id} RETURNING test_user_prefixes AS prefixes`
    const orNotFound = <A>(rows: ReadonlyArray<A>) => {
      const row = rows[0]
      return row === undefined ? Effect.fail(notFound("project")) : Effect.succeed(row)
    }
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
      setPlan: (id: string, plan: ProjectRow["plan"]) =>
        setPlan(id, plan).pipe(Effect.orDie, Effect.flatMap(orNotFound)),
      testUserPrefixes: (id: string) =>
        testUserPrefixes(id).pipe(
          Effect.orDie,
          Effect.flatMap(orNotFound),
          Effect.map((row) => row.prefixes)
        ),
      setTestUserPrefixes: (id: string, prefixes: ReadonlyArray<string>) =>
        setTestUserPrefixes(id, prefixes).pipe(
          Effect.orDie,
          Effect.flatMap(orNotFound),
          Effect.map((row) => row.prefixes)
        ),
      count: count.pipe(
        Effect.map(([row]) => row?.n ?? 0),
        Effect.orDie
      )
    } as const
  })
}) {}
