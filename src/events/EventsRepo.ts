import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { RowNotFound } from "../platform/db/RowNotFound.js"
import { isReferenceGone } from "../platform/db/SqlErrors.js"
import type { TenantScope } from "../platform/db/TenantScope.js"
import { fn } from "../platform/telemetry/Traced.js"

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

/** Ids an event batch names. */
export interface EventTargets {
  readonly threads: ReadonlyArray<string>
  readonly messages: ReadonlyArray<string>
  readonly runs: ReadonlyArray<string>
}

/** Of those, the ones the caller's workspace holds, each with its thread id. */
export interface VisibleTargets {
  readonly threads: Map<string, string>
  readonly messages: Map<string, string>
  readonly runs: Map<string, string>
}

export class EventsRepo extends Effect.Service<EventsRepo>()("svc/EventsRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    /**
     * Which of the named threads, messages and runs the caller's workspace
     * holds, each with its thread: one statement for a whole batch.
     */
    const visibleTargets = (scope: TenantScope, targets: EventTargets) => {
      const parts = [
        targets.threads.length === 0
          ? undefined
          : sql`SELECT 'thread' AS kind, id, id AS thread_id FROM threads
              WHERE project_id = ${scope.projectId} AND workspace_id = ${scope.workspaceId} AND ${sql.in("id", targets.threads)}`,
        targets.messages.length === 0
          ? undefined
          : sql`SELECT 'message' AS kind, m.id, m.thread_id FROM messages m
              JOIN threads t ON t.project_id = m.project_id AND t.id = m.thread_id
              WHERE m.project_id = ${scope.projectId} AND t.workspace_id = ${scope.workspaceId}
                AND ${sql.in("m.id", targets.messages)}`,
        targets.runs.length === 0
          ? undefined
          : sql`SELECT 'run' AS kind, id, thread_id FROM runs
              WHERE project_id = ${scope.projectId} AND workspace_id = ${scope.workspaceId} AND ${sql.in("id", targets.runs)}`
      ].filter((part) => part !== undefined)
      const visible: VisibleTargets = { threads: new Map(), messages: new Map(), runs: new Map() }
      if (parts.length === 0) return Effect.succeed(visible)
      return sql<{
        kind: "thread" | "message" | "run"
        id: string
        thread_id: string
      }>`${sql.join(" UNION ALL ", false)(parts)}`.pipe(
        Effect.map((rows) => {
          for (const row of rows) {
            const into =
              row.kind === "thread" ? visible.threads : row.kind === "message" ? visible.messages : visible.runs
            into.set(row.id, row.thread_id)
          }
          return visible
        })
      )
    }

    /**
     * Stores the events in one statement; an event id the user sent before is
     * skipped. Answers how many rows were new; RowNotFound when a thread was
     * deleted meanwhile (the caller checks again).
     */
    const insert = (scope: TenantScope, userId: string, events: ReadonlyArray<NewEvent>) =>
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
        Effect.map(([row]) => row?.n ?? 0),
        Effect.catchIf(isReferenceGone, () => Effect.fail(new RowNotFound({ what: "thread" })))
      )

    /**
     * How many of the events `ids` are stored, none when none is: for an insert cut off from the store
     * (Events.ingest). One statement inserts a batch, so it is all of the batch's new events or none.
     */
    const storedOf = (projectId: string, ids: ReadonlyArray<string>) =>
      sql<{ n: number }>`SELECT count(*)::int AS n FROM events
        WHERE project_id = ${projectId} AND id IN ${sql.in(ids)}`.pipe(
        Effect.map(([row]) => (row !== undefined && row.n > 0 ? Option.some(row.n) : Option.none()))
      )

    return {
      visibleTargets: fn("EventsRepo.visibleTargets")(visibleTargets, Effect.orDie),
      storedOf: fn("EventsRepo.storedOf")(storedOf, Effect.orDie),
      insert: fn("EventsRepo.insert")(insert, Effect.catchTag("SqlError", Effect.die))
    } as const
  })
}) {}
