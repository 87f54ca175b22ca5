import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Effect from "effect/Effect"
import { Caller } from "../../schema/Api/Security.js"
import { Api } from "../../schema/Api.js"
import type { DeleteMessages } from "../../schema/Message.js"
import type { ThreadPath } from "../../schema/Thread.js"
import { type MessageJson, Messages } from "../../src/threads/Messages.js"

/** A JSON answer written as is: text the database made, spliced (the route's schema gives its shape). */
export const rawJson = (body: string): HttpServerResponse.HttpServerResponse =>
  HttpServerResponse.raw(body, { contentType: "application/json", contentLength: Buffer.byteLength(body) })

/**
 * A page of messages written straight from the rows: content and timestamps
 * arrive from the database as JSON-ready text and are spliced in, and the
 * string goes to Node as is. The shape is the MessageList schema's (the tests
 * decode it with that schema).
 */
export const messagePage = (rows: ReadonlyArray<MessageJson>): HttpServerResponse.HttpServerResponse => {
  const parts: Array<string> = []
  for (const row of rows) {
    parts.push(
      `{"id":${JSON.stringify(row.id)},"parent_id":${JSON.stringify(row.parent_id)},` +
        `"external_id":${JSON.stringify(row.external_id)},"height":${row.height},` +
        `"created_at":"${row.created_at}","updated_at":"${row.updated_at}",` +
        `"format":${JSON.stringify(row.format)},"content":${row.content}}`
    )
  }
  return rawJson(`{"messages":[${parts.join(",")}]}`)
}

export const MessagesLive = HttpApiBuilder.group(Api, "messages", (handlers) =>
  Effect.gen(function* () {
    const messages = yield* Messages
    /** POST .../messages/delete and DELETE .../messages: one call, one answer. */
    const removeMany = ({ path, payload }: { path: ThreadPath; payload: DeleteMessages }) =>
      Effect.flatMap(Caller, (caller) => messages.removeMany(caller, path.thread_id, payload.message_ids)).pipe(
        Effect.map((deleted) => ({ deleted }))
      )
    return handlers
      .handle("list", ({ path, urlParams }) =>
        Effect.flatMap(Caller, (caller) => messages.list(caller, path.thread_id, urlParams)).pipe(
          Effect.map(messagePage)
        )
      )
      .handle("create", ({ path, payload }) =>
        Effect.flatMap(Caller, (caller) => messages.create(caller, path.thread_id, payload)).pipe(
          // A message the thread had (its external_id), replaced or as it was: 200, the MessageExisting answer.
          Effect.map((outcome) =>
            outcome._tag === "Created"
              ? { message_id: outcome.id }
              : HttpServerResponse.unsafeJson({ message_id: outcome.id }, { status: 200 })
          )
        )
      )
      .handle("deleteMany", removeMany)
      .handle("deleteBatch", removeMany)
      .handle("update", ({ path, payload }) =>
        Effect.flatMap(Caller, (caller) => messages.update(caller, path.thread_id, path.message_id, payload.content))
      )
      .handle("feedback", ({ path, payload }) =>
        Effect.flatMap(Caller, (caller) => messages.giveFeedback(caller, path.thread_id, path.message_id, payload))
      )
  })
)
