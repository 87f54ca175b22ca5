import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import { Conflict, invalid, notFound } from "../../schema/Errors.js"
import {
  type CreateWebhook,
  type DeliveryStatus,
  WEBHOOK_LIMITS,
  type Webhook,
  type WebhookCreated
} from "../../schema/Webhooks.js"
import { AppConfig } from "../platform/Config.js"
import { newId } from "../platform/Ids.js"
import { fn } from "../platform/telemetry/Traced.js"
import { Projects } from "../projects/Projects.js"
import { asEvents, Outbox } from "./Outbox.js"
import { refusedHost } from "./WebhookAddress.js"
import { newSecret } from "./WebhookSender.js"
import { type WebhookRow, WebhooksRepo } from "./WebhooksRepo.js"

const now = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms))

const webhookOf = (row: WebhookRow): Webhook => ({
  id: row.id,
  url: row.url,
  events: asEvents(row.events),
  created_at: row.created_at
})

/**
 * Outgoing webhooks (docs/decisions.md "Webhooks"): a project's
 * subscriptions, their delivery log and manual redelivery. The deliveries
 * are written by the outbox (Outbox.ts) and sent by the `webhooks` job
 * (WebhookJob.ts).
 */
export class Webhooks extends Effect.Service<Webhooks>()("svc/Webhooks", {
  dependencies: [WebhooksRepo.Default, Outbox.Default, Projects.Default],
  effect: Effect.gen(function* () {
    const repo = yield* WebhooksRepo
    const projects = yield* Projects
    const allowPrivate = yield* AppConfig.webhookAllowPrivate
    const outbox = yield* Outbox

    const requireProject = projects.require

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
      outbox.forget(projectId)
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
      outbox.forget(projectId)
    })

    const requireWebhook = (projectId: string, webhookId: string) =>
      Effect.zipRight(
        requireProject(projectId),
        Effect.flatMap(repo.exists(projectId, webhookId), (found) =>
          found ? Effect.void : Effect.fail(notFound("webhook"))
        )
      )

    /** The subscription's deliveries (newest first), those in `status` only when given. */
    const deliveries = fn("Webhooks.deliveries")(function* (
      projectId: string,
      webhookId: string,
      status?: DeliveryStatus
    ) {
      yield* requireWebhook(projectId, webhookId)
      return yield* outbox.deliveries(projectId, webhookId, status)
    })

    /** Due again now, with a fresh 24-hour window, whatever its state (delivered ones too). */
    const redeliver = fn("Webhooks.redeliver")(function* (projectId: string, webhookId: string, deliveryId: string) {
      yield* requireWebhook(projectId, webhookId)
      return yield* outbox.redeliver(projectId, webhookId, deliveryId)
    })

    return { create, list, remove, deliveries, redeliver } as const
  })
}) {}
