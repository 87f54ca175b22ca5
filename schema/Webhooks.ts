import * as Schema from "effect/Schema"
import { Id, Timestamp } from "./Common.js"
import { ExampleIds, exampleOf } from "./Examples.js"
import { StorableString } from "./Text.js"

/** The events a subscription may ask for (docs/decisions.md "Webhooks"); `alert.fired` comes from alert rules. */
export const WEBHOOK_EVENTS = [
  "thread.created",
  "message.created",
  "run.created",
  "score.created",
  "feedback.created",
  "alert.fired"
] as const
export const WebhookEventType = Schema.Literal(...WEBHOOK_EVENTS)
export type WebhookEventType = typeof WebhookEventType.Type

/** Limits of our own (docs/decisions.md "Webhooks"): subscriptions per project, URL length. */
export const WEBHOOK_LIMITS = { perProject: 20, urlMaxLength: 2_048 } as const

const EXAMPLE_URL = "https://93.184.215.14/hooks/svc"

export const WebhookUrl = StorableString.pipe(
  Schema.maxLength(WEBHOOK_LIMITS.urlMaxLength, {
    message: () => `url is longer than ${WEBHOOK_LIMITS.urlMaxLength} characters`
  }),
  // A host (no user name or password: no "@" before the path), then an optional port and path.
  Schema.pattern(/^https?:\/\/[^\s/?#@]+(\/[^\s]*)?$/i, {
    message: () => "url must be an http:// or https:// URL with a host and no user name or password"
  })
).annotations(exampleOf(EXAMPLE_URL))

export const CreateWebhook = Schema.Struct({
  url: WebhookUrl,
  events: Schema.Array(WebhookEventType).pipe(
    Schema.minItems(1, { message: () => "events must name at least one event type" }),
    Schema.filter((events) => new Set(events).size === events.length || "events must not repeat an event type")
  )
}).annotations({ examples: [{ url: EXAMPLE_URL, events: ["message.created", "run.created"] }] })
export type CreateWebhook = typeof CreateWebhook.Type

export const Webhook = Schema.Struct({
  id: Id,
  url: Schema.String,
  events: Schema.Array(WebhookEventType),
  created_at: Timestamp
})
export type Webhook = typeof Webhook.Type

export const WebhookCreated = Schema.Struct({
  ...Webhook.fields,
  secret: Schema.String.annotations({
    description:
      "`whsec_` + base64: the Standard Webhooks signing secret. Shown once, here; deliveries are signed with its decoded bytes."
  })
})
export type WebhookCreated = typeof WebhookCreated.Type

export const WebhookList = Schema.Struct({ webhooks: Schema.Array(Webhook) })

const ProjectId = StorableString.annotations(exampleOf(ExampleIds.project))
const WebhookId = StorableString.annotations(exampleOf("wh_01M80KEP26YA9DZXRJENQJN9YP"))

export const WebhookPath = Schema.Struct({ project_id: ProjectId, webhook_id: WebhookId })
export const DeliveryPath = Schema.Struct({
  project_id: ProjectId,
  webhook_id: WebhookId,
  delivery_id: StorableString.annotations(exampleOf("msg_01M80KEP26YA9DZXRJENQJN9YP-1"))
})

export const DeliveryAttempt = Schema.Struct({
  at: Timestamp,
  status_code: Schema.NullOr(Schema.Number).annotations({ description: "the answer's status; null: none came" }),
  error: Schema.NullOr(Schema.String).annotations({ description: "why it failed (timeout, refused address, ...)" }),
  duration_ms: Schema.Number
})

export const DeliveryStatus = Schema.Literal("pending", "delivered", "failed")
export type DeliveryStatus = typeof DeliveryStatus.Type

export const Delivery = Schema.Struct({
  id: Id.annotations({ description: "the `webhook-id` header: the same on every attempt" }),
  webhook_id: Id,
  event_type: WebhookEventType,
  status: DeliveryStatus,
  attempts: Schema.Number,
  attempt_log: Schema.Array(DeliveryAttempt),
  next_attempt_at: Schema.NullOr(Timestamp),
  retry_until: Timestamp,
  created_at: Timestamp,
  finished_at: Schema.NullOr(Timestamp)
})
export type Delivery = typeof Delivery.Type

export const DeliveryList = Schema.Struct({ deliveries: Schema.Array(Delivery) })

/** The delivery log's filter: one status, or every delivery. */
export const DeliveryListQuery = Schema.Struct({
  status: Schema.optional(DeliveryStatus).annotations({ description: "only deliveries in this state" })
})
