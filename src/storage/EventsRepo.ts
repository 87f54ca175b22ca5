import * as SqlClient from "@effect/sql/SqlClient"
import type { SqlError } from "@effect/sql/SqlError"
import * as Effect from "effect/Effect"
import { sqlState } from "./SqlErrors.js"
import type { Scope } from "./ThreadsRepo.js"

export interface NewEvent {
  readonly id: string
  readonly kind: string
  readonly client_id: string | null
  readonly thread_id: string | null
  readonly message_id: string | null
  readonly run_id: string | null
  readonly value: number | null
  readonly props: unknown
}

export class EventsRepo extends Effect.Service<EventsRepo>()("svc/EventsRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    /** The ids among `ids` that are threads of the caller's workspace. */
    const visibleThreads = (scope: Scope, ids: ReadonlyArray<string>) =>
      ids.length === 0
        ? Effect.succeed(new Set<string>())
        : sql<{ id: string }>`SELECT id FROM threads
            WHERE project_id = ${scope.projectId} AND workspace_id = ${scope.workspaceId} AND ${sql.in("id", ids)}`.pipe(
            Effect.map((rows) => new Set(rows.map((row) => row.id)))
          )

    /**
     * Stores the events in one statement; an event id the user sent before is
     * skipped. Answers how many rows were new, or "thread_gone" when a thread
     * was deleted meanwhile (the caller checks again).
     */
    const insert = (scope: Scope, userId: string, events: ReadonlyArray<NewEvent>) =>
      sql<{ n: number }>`
        WITH ins AS (
          INSERT INTO events (project_id, id, workspace_id, user_id, kind, client_id, thread_id, message_id, run_id,
            value, props)
          SELECT ${scope.projectId}, e.id, ${scope.workspaceId}, ${userId}, e.kind, e.client_id, e.thread_id,
            e.message_id, e.run_id, e.value, e.props
          FROM jsonb_to_recordset(${JSON.stringify(events)}::jsonb) AS e(id text, kind text, client_id text,
            thread_id text, message_id text, run_id text, value bigint, props jsonb)
          ON CONFLICT (project_id, user_id, client_id) WHERE client_id IS NOT NULL DO NOTHING
          RETURNING 1
        )
        SELECT count(*)::int AS n FROM ins`.pipe(
        Effect.map(([row]): number | "thread_gone" => row?.n ?? 0),
        Effect.catchIf(
          (error: SqlError) => sqlState(error) === "23503",
          () => Effect.succeed("thread_gone" as const)
        )
      )

    return {
      visibleThreads: (scope: Scope, ids: ReadonlyArray<string>) => visibleThreads(scope, ids).pipe(Effect.orDie),
      insert: (scope: Scope, userId: string, events: ReadonlyArray<NewEvent>) =>
        insert(scope, userId, events).pipe(Effect.orDie)
    } as const
  })
}) {}
