import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as Effect from "effect/Effect"
import { Api } from "../../schema/Api.js"
import { Webhooks } from "../../src/webhooks/Webhooks.js"

export const WebhooksLive = HttpApiBuilder.group(Api, "webhooks", (handlers) =>
  Effect.gen(function* () {
    const webhooks = yield* Webhooks
    return handlers
      .handle("createWebhook", ({ path, payload }) => webhooks.create(path.project_id, payload))
      .handle("listWebhooks", ({ path }) => Effect.map(webhooks.list(path.project_id), (list) => ({ webhooks: list })))
      .handle("deleteWebhook", ({ path }) => webhooks.remove(path.project_id, path.webhook_id))
      .handle("listDeliveries", ({ path, urlParams }) =>
        Effect.map(webhooks.deliveries(path.project_id, path.webhook_id, urlParams.status), (deliveries) => ({
          deliveries
        }))
      )
      .handle("redeliver", ({ path }) => webhooks.redeliver(path.project_id, path.webhook_id, path.delivery_id))
  })
)
