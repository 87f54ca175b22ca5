/**
 * The outbox: every webhook delivery is written here, in the transaction
 * of the data it tells about, and every event body (the envelope `{ type,
 * timestamp, data }`) is made here: a use case's events to the project's
 * subscriptions, an alert's firing to its rule's own address too. The
 * `webhooks` job sends what is written (WebhookJob.ts); the subscriptions
 * themselves are Webhooks.ts's. docs/decisions.md "Webhooks".
 */
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import { notFound } from "../../schema/Errors.js"
import type { Delivery, DeliveryStatus, WebhookEventType } from "../../schema/Webhooks.js"
import { newId } from "../platform/Ids.js"
import { TtlCache } from "../platform/TtlCache.js"
import { fn } from "../platform/telemetry/Traced.js"
import { type DeliveryRow, OutboxRepo } from "./OutboxRepo.js"
import { WebhooksRepo } from "./WebhooksRepo.js"

/** One attempt in a delivery's log (alerts read the log of their firings' deliveries). */
export type { AttemptEntry } from "./OutboxRepo.js"

/** A delivery is retried for this long after its event (or its manual redelivery), then kept as failed. */
export const RETRY_WINDOW_MS = 24 * 3_600_000
/**
 * How long a gateway trusts what it read of a project's subscriptions. A
 * subscription made elsewhere (another gateway, the CLI) gets events from
 * at most this long after; on the gateway that made it, at once.
 */
export const SUBSCRIPTIONS_CACHE_MS = 1_000
/** Deliveries listed at most (newest first). */
export const DELIVERIES_LISTED = 100

const now = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms))

/** The body of every event: the one place its envelope is made. */
const envelope = (type: WebhookEventType, at: Date, data: unknown): string =>
  JSON.stringify({ type, timestamp: at.toISOString(), data })

export const asEvents = (events: ReadonlyArray<string>): Array<WebhookEventType> =>
  events.filter((event): event is WebhookEventType =>
    ["thread.created", "message.created", "run.created", "score.created", "feedback.created", "alert.fired"].includes(
      event
    )
  )

const deliveryOf = (row: DeliveryRow): Delivery => ({
  id: row.id,
  webhook_id: row.webhook_id,
  event_type: asEvents([row.event_type])[0] ?? "alert.fired",
  status: row.status === "delivered" ? "delivered" : row.status === "failed" ? "failed" : "pending",
  attempts: row.attempts,
  attempt_log: row.attempt_log.map((entry) => ({
    at: new Date(entry.at),
    status_code: entry.status_code,
    error: entry.error,
    duration_ms: entry.duration_ms
  })),
  next_attempt_at: row.next_attempt_at,
  retry_until: row.retry_until,
  created_at: row.created_at,
  finished_at: row.finished_at
})

/** The `user_id` an event's object carries, if any. */
const userOf = (data: unknown): string | null =>
  typeof data === "object" && data !== null && "user_id" in data && typeof data.user_id === "string"
    ? data.user_id
    : null

/** The thread an event's object is in (a thread.created's object is the thread). */
const threadOf = (type: WebhookEventType, data: unknown): string | null => {
  if (typeof data !== "object" || data === null) return null
  const id = type === "thread.created" ? ("id" in data ? data.id : null) : "thread_id" in data ? data.thread_id : null
  return typeof id === "string" ? id : null
}

/** The id of the object an event carries (its `data.id`); an alert firing has none. */
const objectOf = (type: WebhookEventType, data: unknown): string | null =>
  type !== "alert.fired" && typeof data === "object" && data !== null && "id" in data && typeof data.id === "string"
    ? data.id
    : null

export class Outbox extends Effect.Service<Outbox>()("svc/Outbox", {
  dependencies: [OutboxRepo.Default, WebhooksRepo.Default],
  effect: Effect.gen(function* () {
    const repo = yield* OutboxRepo
    const subscriptions = yield* WebhooksRepo
    const clock = yield* Effect.clock
    const subscribed = new TtlCache<string, ReadonlySet<string>>(10_000, () => clock.unsafeCurrentTimeMillis())

    /** The project's subscriptions changed on this gateway: read them again at the next event. */
    const forget = (projectId: string) => subscribed.delete(projectId)

    /** Whether some subscription of the project asks for `type` (cached SUBSCRIPTIONS_CACHE_MS). */
    const wants = (projectId: string, type: WebhookEventType) =>
      Effect.gen(function* () {
        const cached = subscribed.get(projectId)
        if (cached !== undefined) return cached.has(type)
        const events = new Set(yield* subscriptions.subscribedEvents(projectId))
        subscribed.set(projectId, events, clock.unsafeCurrentTimeMillis() + SUBSCRIPTIONS_CACHE_MS)
        return events.has(type)
      })

    /**
     * Writes a delivery of `type` with `data` for each subscription of the
     * project to it, on the caller's connection: call it inside the
     * transaction that writes the data (the outbox). `userId`: the user whose object it carries
     * (by default the object's `user_id`). Each delivery records its
     * object's id (`data.id`), by which an erasure that deletes the object
     * deletes the delivery. Answers the deliveries written.
     */
    const emit = fn("Outbox.emit")(function* (
      projectId: string,
      type: WebhookEventType,
      data: unknown,
      userId: string | null = userOf(data)
    ) {
      const at = yield* now
      const eventId = newId("msg")
      return yield* repo.toSubscribers({
        projectId,
        type,
        eventId,
        body: envelope(type, at, data),
        userId,
        threadId: threadOf(type, data),
        objectId: objectOf(type, data),
        at,
        retryUntil: new Date(at.getTime() + RETRY_WINDOW_MS)
      })
    })

    /**
     * Runs `effect` (which writes something) and, when the project has a
     * subscription to `type`, the deliveries of each of `dataOf(result)` in
     * the same transaction (none when nothing was created: a retry found
     * the existing rows). Without a subscription, `effect` alone.
     */
    const withEvents = <A, E, R>(
      projectId: string,
      type: WebhookEventType,
      effect: Effect.Effect<A, E, R>,
      dataOf: (result: A) => Effect.Effect<ReadonlyArray<unknown>>,
      userId?: string
    ): Effect.Effect<A, E, R> =>
      Effect.flatMap(wants(projectId, type), (wanted) =>
        wanted
          ? repo.withTransaction(
              Effect.tap(effect, (result) =>
                Effect.flatMap(dataOf(result), (items) =>
                  Effect.forEach(items, (data) => emit(projectId, type, data, userId ?? userOf(data)), {
                    discard: true
                  })
                )
              )
            )
          : effect
      )

    /**
     * `withEvents` for one object: `dataOf` answers undefined when nothing was
     * created. `userId`: the user whose object it is, where the object does
     * not say (a thread's wire shape has no user_id).
     */
    const withEvent = <A, E, R>(
      projectId: string,
      type: WebhookEventType,
      effect: Effect.Effect<A, E, R>,
      dataOf: (result: A) => Effect.Effect<unknown>,
      userId?: string
    ): Effect.Effect<A, E, R> =>
      withEvents(
        projectId,
        type,
        effect,
        (result) => Effect.map(dataOf(result), (data) => (data === undefined ? [] : [data])),
        userId
      )

    /**
     * `withEvent` for message.created: the message's deliveries are made
     * from its row by one statement in the append's transaction.
     */
    const withMessageCreated = <A, E, R>(
      projectId: string,
      effect: Effect.Effect<A, E, R>,
      createdId: (result: A) => string | undefined
    ): Effect.Effect<A, E, R> =>
      Effect.flatMap(wants(projectId, "message.created"), (wanted) =>
        wanted
          ? repo.withTransaction(
              Effect.tap(effect, (result) => {
                const messageId = createdId(result)
                if (messageId === undefined) return Effect.void
                return Effect.flatMap(now, (at) =>
                  repo.messageToSubscribers({
                    projectId,
                    messageId,
                    eventId: newId("msg"),
                    at,
                    retryUntil: new Date(at.getTime() + RETRY_WINDOW_MS)
                  })
                )
              })
            )
          : effect
      )

    /**
     * An alert's firing to its rule's own webhook_url, on the caller's
     * connection (the firing's transaction): answers the delivery's id,
     * which the firing's history row keeps. `at`: the firing's time.
     */
    const toAlertRule = fn("Outbox.toAlertRule")(function* (
      projectId: string,
      ruleId: string,
      data: unknown,
      at: Date
    ) {
      const id = `${newId("msg")}-1`
      yield* repo.toAlertRule({
        projectId,
        id,
        ruleId,
        type: "alert.fired",
        body: envelope("alert.fired", at, data),
        at,
        retryUntil: new Date(at.getTime() + RETRY_WINDOW_MS)
      })
      return id
    })

    /** A subscription's deliveries, newest first. */
    const deliveries = (projectId: string, webhookId: string, status?: DeliveryStatus) =>
      Effect.map(repo.listDeliveries(projectId, webhookId, DELIVERIES_LISTED, status), (rows) => rows.map(deliveryOf))

    /** Due again now, with a fresh 24-hour window, whatever its state (delivered ones too). */
    const redeliver = (projectId: string, webhookId: string, deliveryId: string) =>
      Effect.gen(function* () {
        const at = yield* now
        const row = yield* repo.redeliver(
          projectId,
          webhookId,
          deliveryId,
          at,
          new Date(at.getTime() + RETRY_WINDOW_MS)
        )
        if (row === undefined) return yield* Effect.fail(notFound("delivery"))
        return deliveryOf(row)
      })

    return {
      forget,
      wants,
      emit,
      withEvent,
      withEvents,
      withMessageCreated,
      toAlertRule,
      deliveries,
      redeliver
    } as const
  })
}) {}
