import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import { inTransaction } from "../platform/db/SqlErrors.js"
import { fn } from "../platform/telemetry/Traced.js"

export interface WebhookRow {
  readonly id: string
  readonly url: string
  readonly events: ReadonlyArray<string>
  readonly created_at: Date
}

/**
 * The `webhooks` table: a project's subscriptions. Their deliveries are the
 * outbox's (OutboxRepo.ts). Times come from the gateway's clock
 * (parameters), so tests can move it.
 */
export class WebhooksRepo extends Effect.Service<WebhooksRepo>()("svc/WebhooksRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const count = (projectId: string) =>
      sql<{ n: number }>`SELECT count(*)::int AS n FROM webhooks WHERE project_id = ${projectId}`.pipe(
        Effect.map(([row]) => row?.n ?? 0)
      )

    const insert = (input: {
      readonly projectId: string
      readonly id: string
      readonly url: string
      readonly events: ReadonlyArray<string>
      readonly secret: string
      readonly at: Date
    }) =>
      sql<WebhookRow>`INSERT INTO webhooks (project_id, id, url, events, secret, created_at)
        VALUES (${input.projectId}, ${input.id}, ${input.url}, 
          ARRAY(SELECT jsonb_array_elements_text(${JSON.stringify(input.events)}::jsonb)),
          ${input.secret}, ${input.at})
        RETURNING id, url, events, created_at`.pipe(Effect.map(([row]) => row))

    const list = (projectId: string) =>
      sql<WebhookRow>`SELECT id, url, events, created_at FROM webhooks
        WHERE project_id = ${projectId} ORDER BY id`

    const exists = (projectId: string, id: string) =>
      sql`SELECT 1 FROM webhooks WHERE project_id = ${projectId} AND id = ${id}`.pipe(
        Effect.map((rows) => rows.length > 0)
      )

    /** Deliveries go with it (the foreign key cascades). */
    const remove = (projectId: string, id: string) =>
      sql`DELETE FROM webhooks WHERE project_id = ${projectId} AND id = ${id} RETURNING id`.pipe(
        Effect.map((rows) => rows.length > 0)
      )

    /** The event types some subscription of the project asks for. */
    const subscribedEvents = (projectId: string) =>
      sql<{
        event: string
      }>`SELECT DISTINCT unnest(events) AS event FROM webhooks WHERE project_id = ${projectId}`.pipe(
        Effect.map((rows) => rows.map((row) => row.event))
      )

    return {
      count: fn("WebhooksRepo.count")(count, Effect.orDie),
      insert: fn("WebhooksRepo.insert")(insert, Effect.orDie),
      list: fn("WebhooksRepo.list")(list, Effect.orDie),
      exists: fn("WebhooksRepo.exists")(exists, Effect.orDie),
      remove: fn("WebhooksRepo.remove")(remove, Effect.orDie),
      subscribedEvents: fn("WebhooksRepo.subscribedEvents")(subscribedEvents, Effect.orDie),
      /** `effect` in a transaction; the store's own failures are defects, the effect's errors stay. */
      withTransaction: inTransaction(sql)
    } as const
  })
}) {}
