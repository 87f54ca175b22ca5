/**
 * The `webhook_deliveries` table, the outbox: every statement that writes a
 * delivery is here (the Outbox service is its only user besides the
 * webhooks job, which sends them). Erasure and retention delete deliveries
 * through the user-data map (src/erasure/UserData.ts). Times come from the
 * gateway's clock (parameters), so tests can move it.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import type { DeliveryStatus } from "../../schema/Webhooks.js"
import { inTransaction } from "../platform/db/SqlErrors.js"
import { isoTimestampSql } from "../platform/db/SqlText.js"
import { fn } from "../platform/telemetry/Traced.js"

export interface AttemptEntry {
  readonly at: string
  readonly status_code: number | null
  readonly error: string | null
  readonly duration_ms: number
}

export interface DeliveryRow {
  readonly id: string
  readonly webhook_id: string
  readonly event_type: string
  readonly status: string
  readonly attempts: number
  readonly attempt_log: ReadonlyArray<AttemptEntry>
  readonly next_attempt_at: Date | null
  readonly retry_until: Date
  readonly created_at: Date
  readonly finished_at: Date | null
}

/** A due delivery as the job takes it: with its destination and secret. */
export interface ClaimedDelivery {
  readonly project_id: string
  readonly id: string
  readonly url: string
  readonly secret: string
  readonly body: string
  readonly attempts: number
  readonly retry_until: Date
}

/** What an attempt leads to, as the delivery's status: done, tried again at `at`, or given up. */
export type AttemptResult =
  | { readonly status: "delivered" }
  | { readonly status: "pending"; readonly at: Date }
  | { readonly status: "failed" }

/** An attempt on a claimed delivery (`at`: when it ended), with what follows from it. */
export interface RecordedAttempt {
  readonly project_id: string
  readonly id: string
  readonly entry: AttemptEntry
  readonly result: AttemptResult
  readonly at: Date
}

/** Attempts kept in a delivery's log (the oldest go first). */
const LOG_KEPT = 50

const DELIVERY_COLUMNS = `id, webhook_id, event_type, status, attempts, attempt_log, next_attempt_at, retry_until,
  created_at, finished_at`

export class OutboxRepo extends Effect.Service<OutboxRepo>()("svc/OutboxRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const deliveryColumns = sql.literal(DELIVERY_COLUMNS)

    /**
     * A delivery for each subscription of the project to `type`, on the
     * caller's connection (so in its transaction). Ids: `{eventId}-{n}`.
     * `objectId`: the object it carries, by which an erasure finds it.
     */
    const toSubscribers = (input: {
      readonly projectId: string
      readonly type: string
      readonly eventId: string
      readonly body: string
      readonly userId: string | null
      readonly threadId: string | null
      readonly objectId: string | null
      readonly at: Date
      readonly retryUntil: Date
    }) =>
      sql<{ n: number }>`WITH ins AS (
          INSERT INTO webhook_deliveries (project_id, id, webhook_id, event_type, body, user_id, thread_id, object_id,
            created_at, next_attempt_at, retry_until)
          SELECT project_id, ${input.eventId} || '-' || row_number() OVER (ORDER BY id), id, ${input.type},
            ${input.body}, ${input.userId}, ${input.threadId}, ${input.objectId}, ${input.at}, ${input.at},
            ${input.retryUntil}
          FROM webhooks WHERE project_id = ${input.projectId} AND ${input.type} = ANY (events)
          RETURNING 1)
        SELECT count(*)::int AS n FROM ins`.pipe(Effect.map(([row]) => row?.n ?? 0))

    /**
     * `toSubscribers` for message.created, the body made by the database from the
     * message row (its wire shape) in the same statement: one round trip.
     */
    const messageToSubscribers = (input: {
      readonly projectId: string
      readonly messageId: string
      readonly eventId: string
      readonly at: Date
      readonly retryUntil: Date
    }) =>
      sql<{ n: number }>`WITH body AS (
          SELECT json_build_object('type', 'message.created', 'timestamp', ${input.at.toISOString()}::text,
            'data', json_build_object('id', id, 'thread_id', thread_id, 'parent_id', parent_id,
              'external_id', external_id, 'user_id', user_id, 'height', height, 'format', format, 'content', content,
              'created_at', ${sql.literal(isoTimestampSql("created_at"))},
              'updated_at', ${sql.literal(isoTimestampSql("updated_at"))}))::text AS text, user_id, thread_id, id
          FROM messages WHERE project_id = ${input.projectId} AND id = ${input.messageId}
        ), ins AS (
          INSERT INTO webhook_deliveries (project_id, id, webhook_id, event_type, body, user_id, thread_id, object_id,
            created_at, next_attempt_at, retry_until)
          SELECT w.project_id, ${input.eventId} || '-' || row_number() OVER (ORDER BY w.id), w.id, 'message.created',
            body.text, body.user_id, body.thread_id, body.id, ${input.at}, ${input.at}, ${input.retryUntil}
          FROM webhooks w CROSS JOIN body
          WHERE w.project_id = ${input.projectId} AND 'message.created' = ANY (w.events)
          RETURNING 1)
        SELECT count(*)::int AS n FROM ins`.pipe(Effect.map(([row]) => row?.n ?? 0))

    /**
     * Takes up to `batch` due deliveries for `holder` until `leaseUntil` (SKIP LOCKED: gateways share the work),
     * each with its destination and secret: its subscription's, or its alert rule's (src/alerts/AlertJob.ts).
     */
    const claim = (holder: string, at: Date, leaseUntil: Date, batch: number) =>
      sql<ClaimedDelivery>`UPDATE webhook_deliveries d SET lease_until = ${leaseUntil}, leased_by = ${holder}
        FROM (
          SELECT c.project_id, c.id, coalesce(w.url, a.webhook_url) AS url, coalesce(w.secret, a.secret) AS secret
          FROM webhook_deliveries c
            LEFT JOIN webhooks w ON w.project_id = c.project_id AND w.id = c.webhook_id
            LEFT JOIN alert_rules a ON a.project_id = c.project_id AND a.id = c.alert_rule_id
          WHERE c.status = 'pending' AND c.next_attempt_at <= ${at}
            AND (c.lease_until IS NULL OR c.lease_until <= ${at})
          ORDER BY c.next_attempt_at LIMIT ${batch}
          FOR UPDATE OF c SKIP LOCKED) t
        WHERE d.project_id = t.project_id AND d.id = t.id AND t.url IS NOT NULL
        RETURNING d.project_id, d.id, t.url, t.secret, d.body, d.attempts, d.retry_until`

    /** Moves the leases of `rows` that `holder` still holds to `until` (src/platform/jobs/Lease.ts): the rows it moved. */
    const renew = (
      holder: string,
      rows: ReadonlyArray<{ readonly project_id: string; readonly id: string }>,
      until: Date
    ) =>
      sql<{ project_id: string; id: string }>`UPDATE webhook_deliveries d SET lease_until = ${until}
        FROM jsonb_to_recordset(${JSON.stringify(rows.map((row) => ({ project_id: row.project_id, id: row.id })))}::jsonb)
          AS k(project_id text, id text)
        WHERE d.project_id = k.project_id AND d.id = k.id AND d.leased_by = ${holder}
        RETURNING d.project_id, d.id`

    /**
     * Records attempts made under `holder`'s lease, and what follows from
     * each, in one statement (the job writes a batch's as they gather). A
     * row another holder took meanwhile is left as it is.
     */
    const recordAttempts = (holder: string, attempts: ReadonlyArray<RecordedAttempt>) =>
      sql`UPDATE webhook_deliveries d SET attempts = d.attempts + 1,
          attempt_log = (CASE WHEN jsonb_array_length(d.attempt_log) >= ${LOG_KEPT} THEN d.attempt_log - 0
            ELSE d.attempt_log END) || jsonb_build_array(k.entry),
          status = k.status, next_attempt_at = k.next_attempt_at, finished_at = k.finished_at,
          lease_until = NULL, leased_by = NULL
        FROM jsonb_to_recordset(${JSON.stringify(
          attempts.map(({ project_id, id, entry, result, at }) => ({
            project_id,
            id,
            entry,
            status: result.status,
            next_attempt_at: result.status === "pending" ? result.at.toISOString() : null,
            finished_at: result.status === "pending" ? null : at.toISOString()
          }))
        )}::jsonb) AS k(project_id text, id text, entry jsonb, status text, next_attempt_at timestamptz,
          finished_at timestamptz)
        WHERE d.project_id = k.project_id AND d.id = k.id AND d.leased_by = ${holder}`.pipe(Effect.asVoid)

    const listDeliveries = (projectId: string, webhookId: string, limit: number, status: DeliveryStatus | undefined) =>
      sql<DeliveryRow>`SELECT ${deliveryColumns} FROM webhook_deliveries
        WHERE project_id = ${projectId} AND webhook_id = ${webhookId}
          ${status === undefined ? sql`` : sql`AND status = ${status}`}
        ORDER BY id DESC LIMIT ${limit}`

    /** Due again now, with a new retry window; its log stays. */
    const redeliver = (projectId: string, webhookId: string, id: string, at: Date, retryUntil: Date) =>
      sql<DeliveryRow>`UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = ${at},
          retry_until = ${retryUntil}, finished_at = NULL
        WHERE project_id = ${projectId} AND webhook_id = ${webhookId} AND id = ${id}
        RETURNING ${deliveryColumns}`.pipe(Effect.map(([row]) => row))

    /** Pending deliveries (due or not), for the job's report. */
    const pending = sql<{ n: number }>`SELECT count(*)::int AS n FROM webhook_deliveries WHERE status = 'pending'`.pipe(
      Effect.map(([row]) => row?.n ?? 0)
    )

    /**
     * One delivery to an alert rule's own webhook_url (the job reads the
     * address and secret from the rule), on the caller's connection.
     */
    const toAlertRule = (input: {
      readonly projectId: string
      readonly id: string
      readonly ruleId: string
      readonly type: string
      readonly body: string
      readonly at: Date
      readonly retryUntil: Date
    }) =>
      sql`INSERT INTO webhook_deliveries (project_id, id, alert_rule_id, event_type, body, created_at,
          next_attempt_at, retry_until)
        VALUES (${input.projectId}, ${input.id}, ${input.ruleId}, ${input.type}, ${input.body}, ${input.at},
          ${input.at}, ${input.retryUntil})`.pipe(Effect.asVoid)

    return {
      toSubscribers: fn("OutboxRepo.toSubscribers")(toSubscribers, Effect.orDie),
      messageToSubscribers: fn("OutboxRepo.messageToSubscribers")(messageToSubscribers, Effect.orDie),
      toAlertRule: fn("OutboxRepo.toAlertRule")(toAlertRule, Effect.orDie),
      claim: fn("OutboxRepo.claim")(claim, Effect.orDie),
      renew: fn("OutboxRepo.renew")(renew, Effect.orDie),
      recordAttempts: fn("OutboxRepo.recordAttempts")(recordAttempts, Effect.orDie),
      listDeliveries: fn("OutboxRepo.listDeliveries")(listDeliveries, Effect.orDie),
      redeliver: fn("OutboxRepo.redeliver")(redeliver, Effect.orDie),
      pending: pending.pipe(Effect.orDie),
      /** `effect` in a transaction; the store's own failures are defects, the effect's errors stay. */
      withTransaction: inTransaction(sql)
    } as const
  })
}) {}
