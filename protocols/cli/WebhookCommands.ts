/**
 * `svc webhook create | list | delete | deliveries | redeliver`
 * (docs/decisions.md "Webhooks"), over the same service as the admin
 * HTTP API. Deliveries are made by the gateway's `webhooks` job, not
 * by the CLI.
 */
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import { InvalidRequest, Issue } from "../../schema/Errors.js"
import { CreateWebhook, type Delivery, DeliveryStatus, WEBHOOK_EVENTS } from "../../schema/Webhooks.js"
import { Webhooks } from "../../src/webhooks/Webhooks.js"
import { print } from "./Output.js"

const projectId = Options.text("project").pipe(Options.withDescription("project id"))
const webhookId = Options.text("id").pipe(Options.withDescription("webhook id (wh_...)"))
const iso = (date: Date | null) => (date === null ? "-" : date.toISOString())

/** The API's schema decides, and the message names the option. */
const decodeCreate = (input: unknown) =>
  Schema.decodeUnknown(CreateWebhook, { errors: "all" })(input).pipe(
    Effect.mapError((error) => {
      const issues = ParseResult.ArrayFormatter.formatErrorSync(error)
      return new InvalidRequest({
        message: issues
          .map((issue) => `${issue.path[0] === "events" ? "--event" : "--url"}: ${issue.message}`)
          .join("; "),
        issues: issues.map((issue) => new Issue({ path: issue.path.map(String).join("."), message: issue.message }))
      })
    })
  )

export const webhookCreate = Command.make(
  "create",
  {
    projectId,
    url: Options.text("url").pipe(Options.withDescription("where deliveries are POSTed (http:// or https://)")),
    events: Options.text("event").pipe(
      Options.repeated,
      Options.withDescription(`an event type; repeat it: ${WEBHOOK_EVENTS.join(", ")}`)
    )
  },
  ({ events, projectId, url }) =>
    Effect.gen(function* () {
      const input = yield* decodeCreate({ url, events })
      const created = yield* (yield* Webhooks).create(projectId, input)
      yield* print(
        created,
        `webhook ${created.id} created: ${created.url} (${created.events.join(", ")})\nsigning secret (shown once): ${created.secret}`
      )
    })
)

export const webhookList = Command.make("list", { projectId }, ({ projectId }) =>
  Effect.gen(function* () {
    const webhooks = yield* (yield* Webhooks).list(projectId)
    yield* print(
      { webhooks },
      webhooks.map((hook) => `${hook.id}\t${hook.url}\t${hook.events.join(",")}`).join("\n") || "no webhooks"
    )
  })
)

export const webhookDelete = Command.make("delete", { projectId, webhookId }, ({ projectId, webhookId }) =>
  Effect.gen(function* () {
    yield* (yield* Webhooks).remove(projectId, webhookId)
    yield* print({ deleted: webhookId }, `webhook ${webhookId} deleted`)
  })
)

const deliveryLine = (delivery: Delivery) =>
  [
    delivery.id,
    delivery.event_type,
    delivery.status,
    `attempts ${delivery.attempts}`,
    `codes ${delivery.attempt_log.map((attempt) => attempt.status_code ?? "none").join(",") || "-"}`,
    `next ${iso(delivery.next_attempt_at)}`
  ].join("\t")

const deliveryStatus = Options.optional(
  Options.choice("status", DeliveryStatus.literals).pipe(Options.withDescription("only deliveries in this state"))
)

export const webhookDeliveries = Command.make(
  "deliveries",
  { projectId, webhookId, status: deliveryStatus },
  ({ projectId, webhookId, status }) =>
    Effect.gen(function* () {
      const deliveries = yield* (yield* Webhooks).deliveries(projectId, webhookId, Option.getOrUndefined(status))
      yield* print({ deliveries }, deliveries.map(deliveryLine).join("\n") || "no deliveries")
    })
)

export const webhookRedeliver = Command.make(
  "redeliver",
  {
    projectId,
    webhookId,
    deliveryId: Options.text("delivery").pipe(Options.withDescription("delivery id (msg_...)"))
  },
  ({ deliveryId, projectId, webhookId }) =>
    Effect.gen(function* () {
      const delivery = yield* (yield* Webhooks).redeliver(projectId, webhookId, deliveryId)
      yield* print(delivery, `delivery ${delivery.id} is due again: ${deliveryLine(delivery)}`)
    })
)
