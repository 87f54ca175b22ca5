import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import { Conflict, invalid, notFound } from "../../schema/Errors.js"
import {
  type CreateWebhook,
  type Delivery,
  WEBHOOK_LIMITS,
  type Webhook,
  type WebhookCreated,
  type WebhookEventType
} from "../../schema/Webhooks.js"
import { AppConfig } from "../platform/Config.js"
import { orNotFound } from "../platform/Found.js"
import { newId } from "../platform/Ids.js"
import { TtlCache } from "../platform/TtlCache.js"
import { fn } from "../platform/telemetry/Traced.js"
import { ProjectsRepo } from "../projects/ProjectsRepo.js"
import { refusedHost } from "./WebhookAddress.js"
import { newSecret } from "./WebhookSender.js"
import { type DeliveryRow, type WebhookRow, WebhooksRepo } from "./WebhooksRepo.js"

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

const asEvents = (events: ReadonlyArray<string>): Array<WebhookEventType> =>
  events.filter((event): event is WebhookEventType =>
    ["thread.created", "message.created", "run.created", "score.created", "feedback.created", "alert.fired"].includes(
      event
    )
  )

const webhookOf = (row: WebhookRow): Webhook => ({
  id: row.id,
  url: row.url,
  events: asEvents(row.events),
  created_at: row.created_at
})

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

/**
 * Outgoing webhooks (decisions.md §12): a project's subscriptions, the
 * events written to the outbox with the data that caused them, the
 * delivery log and manual redelivery. Deliveries themselves are the
 * `webhooks` job's (src/webhooks/WebhookJob.ts).
 */
export class Webhooks extends Effect.Service<Webhooks>()("svc/Webhooks", {
  dependencies: [WebhooksRepo.Default, ProjectsRepo.Default],
  effect: Effect.gen(function* () {
    const repo = yield* WebhooksRepo
    const projects = yield* ProjectsRepo
    const allowPrivate = yield* AppConfig.webhookAllowPrivate
    const clock = yield* Effect.clock
    const subscribed = new TtlCache<string, ReadonlySet<string>>(10_000, () => clock.unsafeCurrentTimeMillis())

    const requireProject = (projectId: string) => Effect.flatMap(projects.get(projectId), orNotFound("project"))

    const create = fn("Webhooks.create")(function* (projectId: string, input: CreateWebhook) {
      yield* requireProject(projectId)
      if (!URL.canParse(input.url)) return yield* Effect.fail(invalid("url is not a valid URL", "url"))
      const refused = yield* Effect.promise(() => refusedHost(new URL(input.url).hostname, allowPrivate))
      if (refused !== undefined) return yield* Effect.fail(invalid(`url refused: ${refused}`, "url"))
      const secret = newSecret()
      const row = yield* repo.withTransaction(
        Effect.gen(function* () {
          if ((yield* repo.count(projectId)) >= WEBHOOK_LIMITS.perProject) {
            return yield* Effect.fail(
              new Conflict({ message: `a project has at most ${WEBHOOK_LIMITS.perProject} webhooks` })
            )
          }
          return yield* repo.insert({
            projectId,
            id: newId("wh"),
            url: input.url,
            events: input.events,
            secret,
            at: yield* now
          })
        })
      )
      subscribed.delete(projectId)
      if (row === undefined) return yield* Effect.dieMessage("webhook insert returned no row")
      const created: WebhookCreated = { ...webhookOf(row), secret }
      return created
    })

    const list = fn("Webhooks.list")(function* (projectId: string) {
      yield* requireProject(projectId)
      return (yield* repo.list(projectId)).map(webhookOf)
    })

    const remove = fn("Webhooks.remove")(function* (projectId: string, webhookId: string) {
      yield* requireProject(projectId)
      if (!(yield* repo.remove(projectId, webhookId))) return yield* Effect.fail(notFound("webhook"))
      subscribed.delete(projectId)
    })

    const requireWebhook = (projectId: string, webhookId: string) =>
      Effect.zipRight(
        requireProject(projectId),
        Effect.flatMap(repo.exists(projectId, webhookId), (found) =>
          found ? Effect.void : Effect.fail(notFound("webhook"))
        )
      )

    const deliveries = fn("Webhooks.deliveries")(function* (projectId: string, webhookId: string) {
      yield* requireWebhook(projectId, webhookId)
      return (yield* repo.listDeliveries(projectId, webhookId, DELIVERIES_LISTED)).map(deliveryOf)
    })

    /** Due again now, with a fresh 24-hour window, whatever its state (delivered ones too). */
    const redeliver = fn("Webhooks.redeliver")(function* (projectId: string, webhookId: string, deliveryId: string) {
      yield* requireWebhook(projectId, webhookId)
      const at = yield* now
      const row = yield* repo.redeliver(projectId, webhookId, deliveryId, at, new Date(at.getTime() + RETRY_WINDOW_MS))
      if (row === undefined) return yield* Effect.fail(notFound("delivery"))
      return deliveryOf(row)
    })

    /** Whether some subscription of the project asks for `type` (cached SUBSCRIPTIONS_CACHE_MS). */
    const wants = (projectId: string, type: WebhookEventType) =>
      Effect.gen(function* () {
        const cached = subscribed.get(projectId)
        if (cached !== undefined) return cached.has(type)
        const events = new Set(yield* repo.subscribedEvents(projectId))
        subscribed.set(projectId, events, clock.unsafeCurrentTimeMillis() + SUBSCRIPTIONS_CACHE_MS)
        return events.has(type)
      })

    /**
     * Writes a delivery of `type` with `data` for each subscription of the
     * project to it, on the caller's connection: call it inside the
     * transaction that writes the data (the outbox). The alerts feature
     * calls it for `alert.fired`. `userId`: the user whose object it carries
     * (by default the object's `user_id`). Each delivery records its
     * object's id (`data.id`), by which an erasure that deletes the object
     * deletes the delivery. Answers the deliveries written.
     */
    const emit = fn("Webhooks.emit")(function* (
      projectId: string,
      type: WebhookEventType,
      data: unknown,
      userId: string | null = userOf(data)
    ) {
      const at = yield* now
      const eventId = newId("msg")
      return yield* repo.enqueue({
        projectId,
        type,
        eventId,
        body: JSON.stringify({ type, timestamp: at.toISOString(), data }),
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
                  repo.enqueueMessage({
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

    return { create, list, remove, deliveries, redeliver, emit, withEvent, withEvents, withMessageCreated } as const
  })
}) {}
