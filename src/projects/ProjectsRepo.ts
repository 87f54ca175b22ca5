import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { Plan } from "../../schema/Admin.js"
import { RowNotFound } from "../platform/db/RowNotFound.js"
import { fn } from "../platform/telemetry/Traced.js"

export interface ProjectRow {
  readonly id: string
  readonly name: string
  readonly plan: Plan
  readonly created_at: Date
}

export class ProjectsRepo extends Effect.Service<ProjectsRepo>()("svc/ProjectsRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const COLUMNS = sql.literal("id, name, plan, created_at")
    const first = <A>(rows: ReadonlyArray<A>) => Option.fromNullable(rows[0])
    const oneOrNotFound = <A>(rows: ReadonlyArray<A>): Effect.Effect<A, RowNotFound> => {
      const row = rows[0]
      return row === undefined ? Effect.fail(new RowNotFound({ what: "project" })) : Effect.succeed(row)
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
      insert: fn("ProjectsRepo.insert")(
        (id: string, name: string) => sql`INSERT INTO projects (id, name) VALUES (${id}, ${name})`.pipe(Effect.asVoid),
        Effect.orDie
      ),
      list: sql<ProjectRow>`SELECT ${COLUMNS} FROM projects ORDER BY id`.pipe(
        Effect.orDie,
        Effect.withSpan("ProjectsRepo.list")
      ),
      get: fn("ProjectsRepo.get")(
        (id: string) => sql<ProjectRow>`SELECT ${COLUMNS} FROM projects WHERE id = ${id}`.pipe(Effect.map(first)),
        Effect.orDie
      ),
      setPlan: fn("ProjectsRepo.setPlan")(
        (id: string, plan: ProjectRow["plan"]) =>
          sql<ProjectRow>`UPDATE projects SET plan = ${plan} WHERE id = ${id} RETURNING ${COLUMNS}`.pipe(
            Effect.flatMap(oneOrNotFound)
          ),
        Effect.catchTag("SqlError", Effect.die)
      ),
      testUserPrefixes: fn("ProjectsRepo.testUserPrefixes")(
        (id: string) =>
          sql<{ prefixes: Array<string> }>`SELECT test_user_prefixes AS prefixes FROM projects WHERE id = ${id}`.pipe(
            Effect.map((rows) => Option.map(first(rows), (row) => row.prefixes))
          ),
        Effect.orDie
      ),
      setTestUserPrefixes: fn("ProjectsRepo.setTestUserPrefixes")(
        (id: string, prefixes: ReadonlyArray<string>) =>
          sql<{ prefixes: Array<string> }>`UPDATE projects
            SET test_user_prefixes = ARRAY(SELECT jsonb_array_elements_text(${JSON.stringify(prefixes)}::jsonb))
            WHERE id = ${id} RETURNING test_user_prefixes AS prefixes`.pipe(
            Effect.flatMap(oneOrNotFound),
            Effect.map((row) => row.prefixes)
          ),
        Effect.catchTag("SqlError", Effect.die)
      ),
      count: sql<{ n: number }>`SELECT count(*)::int AS n FROM projects`.pipe(
        Effect.map(([row]) => row?.n ?? 0),
        Effect.orDie,
        Effect.withSpan("ProjectsRepo.count")
      )
    } as const
  })
}) {}
