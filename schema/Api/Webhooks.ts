import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as OpenApi from "@effect/platform/OpenApi"
import { ProjectPath } from "../Admin.js"
import { Conflict, NotFound } from "../Errors.js"
import {
  CreateWebhook,
  Delivery,
  DeliveryList,
  DeliveryListQuery,
  DeliveryPath,
  WebhookCreated,
  WebhookList,
  WebhookPath
} from "../Webhooks.js"
import { ServedOn } from "./RouteRules.js"
import { AdminAuth } from "./Security.js"

/** The webhooks routes' endpoints, shared by the admin API and the dashboard (schema/Api/DashboardOperate.ts). */
export const WebhooksEndpoints = {
  createWebhook: HttpApiEndpoint.post("createWebhook", "/projects/:project_id/webhooks")
    .setPath(ProjectPath)
    .setPayload(CreateWebhook)
    .addSuccess(WebhookCreated, { status: 201 })
    .addError(NotFound)
    .addError(Conflict)
    .annotateContext(
      OpenApi.annotations({
        summary: "Subscribe to events",
        description:
          "A subscription of the project to events (thread.created, message.created, run.created, score.created, feedback.created, alert.fired), delivered to `url` as Standard Webhooks: headers webhook-id, webhook-timestamp and webhook-signature (`v1,` + base64 HMAC-SHA256 of `{id}.{timestamp}.{body}` keyed with the secret's decoded bytes). The answer carries the signing `secret`, shown this once. A URL whose host is (or resolves to) a private, loopback or link-local address is refused unless WEBHOOK_ALLOW_PRIVATE=true. At most 20 per project (409 past it)."
      })
    ),
  listWebhooks: HttpApiEndpoint.get("listWebhooks", "/projects/:project_id/webhooks")
    .setPath(ProjectPath)
    .addSuccess(WebhookList)
    .addError(NotFound)
    .annotateContext(OpenApi.annotations({ summary: "List subscriptions", description: "Without their secrets." })),
  deleteWebhook: HttpApiEndpoint.del("deleteWebhook", "/projects/:project_id/webhooks/:webhook_id")
    .setPath(WebhookPath)
    .addSuccess(HttpApiSchema.NoContent)
    .addError(NotFound)
    .annotateContext(
      OpenApi.annotations({ summary: "Delete a subscription", description: "Its deliveries (and their log) go too." })
    ),
  listDeliveries: HttpApiEndpoint.get("listDeliveries", "/projects/:project_id/webhooks/:webhook_id/deliveries")
    .setPath(WebhookPath)
    .setUrlParams(DeliveryListQuery)
    .addSuccess(DeliveryList)
    .addError(NotFound)
    .annotateContext(
      OpenApi.annotations({
        summary: "The delivery log",
        description:
          "The subscription's latest 100 deliveries, newest first: the event, the status (pending, delivered, failed), each attempt with its status code or error, and the next attempt. A failed attempt is retried with exponential backoff (30 s doubling, at most an hour apart) for 24 hours, then the delivery is failed."
      })
    ),
  redeliver: HttpApiEndpoint.post(
    "redeliver",
    "/projects/:project_id/webhooks/:webhook_id/deliveries/:delivery_id/redeliver"
  )
    .setPath(DeliveryPath)
    .addSuccess(Delivery)
    .addError(NotFound)
    .annotateContext(
      OpenApi.annotations({
        summary: "Deliver again",
        description:
          "Makes the delivery due now (same webhook-id, a fresh 24-hour retry window), whatever its state; the webhooks job sends it on its next run."
      })
    )
} as const

/** Outgoing webhooks (docs/decisions.md "Webhooks"): subscriptions, their delivery log, redelivery. */
export class WebhooksGroup extends HttpApiGroup.make("webhooks")
  .add(WebhooksEndpoints.createWebhook)
  .add(WebhooksEndpoints.listWebhooks)
  .add(WebhooksEndpoints.deleteWebhook)
  .add(WebhooksEndpoints.listDeliveries)
  .add(WebhooksEndpoints.redeliver)
  .middleware(AdminAuth)
  .prefix("/admin")
  .annotate(OpenApi.Description, "Admin plane: outgoing webhooks (ADMIN_TOKEN)")
  .annotate(ServedOn, "backend") {}
