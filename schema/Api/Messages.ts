import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as OpenApi from "@effect/platform/OpenApi"
import { InvalidRequest, NotFound } from "../Errors.js"
import { Limits } from "../Limits.js"
import {
  CreateFeedback,
  CreateMessage,
  DeleteMessages,
  Feedback,
  MessageCreated,
  MessageExisting,
  MessageList,
  MessageListQuery,
  MessagePath,
  MessagesDeleted,
  UpdateMessage
} from "../Message.js"
import { ThreadPath } from "../Thread.js"
import { MaxBodyBytes } from "./RouteRules.js"
import { Authenticated } from "./Security.js"

/** The batch delete, in each of its two forms: one payload, one answer, one use case. */
const batchDelete = <const Name extends string>(
  method: "POST" | "DELETE",
  name: Name,
  path: HttpApiEndpoint.PathSegment,
  summary: string,
  answer: string
) =>
  HttpApiEndpoint.make(method)(name, path)
    .setPath(ThreadPath)
    .setPayload(DeleteMessages)
    .addSuccess(MessagesDeleted)
    .addError(NotFound)
    .annotateContext(
      OpenApi.annotations({
        summary,
        description: `Deletes up to ${Limits.message.deleteMax} messages and their descendants; ${answer}`
      })
    )

export class MessagesGroup extends HttpApiGroup.make("messages")
  .add(
    HttpApiEndpoint.get("list", "/threads/:thread_id/messages")
      .setPath(ThreadPath)
      .setUrlParams(MessageListQuery)
      .addSuccess(MessageList)
      .addError(NotFound)
      .annotateContext(
        OpenApi.annotations({
          summary: "List messages",
          description:
            "A thread's messages, oldest first, or newest first with `order=desc`. Page with `after` (the last message id of the previous page, read on in the same order); `format` keeps one format."
        })
      )
  )
  .add(
    HttpApiEndpoint.post("create", "/threads/:thread_id/messages")
      .setPath(ThreadPath)
      .setPayload(CreateMessage)
      .addSuccess(MessageCreated, { status: 201 })
      .addSuccess(MessageExisting, { status: 200 })
      .addError(NotFound)
      .addError(InvalidRequest)
      .annotateContext(
        OpenApi.annotations({
          summary: "Append a message",
          description:
            "Adds a message to the thread, under `parent_id` or `parent_external_id` (neither for a root). Content is a JSON object of at most 64 KB; the body cap is 128 KiB. An `external_id` the thread already has answers 200 with that message's id and stores no new message: when the format or content differ from the stored ones they replace them (the finished version of a message stored while it streamed), else nothing is written (a client's retry)."
        })
      )
  )
  .add(
    batchDelete(
      "POST",
      "deleteMany",
      "/threads/:thread_id/messages/delete",
      "Delete messages",
      "answers how many were deleted."
    )
  )
  .add(
    // The form later 0.2 clients send: a DELETE with a body.
    batchDelete(
      "DELETE",
      "deleteBatch",
      "/threads/:thread_id/messages",
      "Delete messages (DELETE form)",
      "answers how many were deleted. The same as `POST .../messages/delete`, the ids in the JSON body."
    )
  )
  .add(
    HttpApiEndpoint.put("update", "/threads/:thread_id/messages/:message_id")
      .setPath(MessagePath)
      .setPayload(UpdateMessage)
      .addSuccess(HttpApiSchema.NoContent)
      .addError(NotFound)
      .annotateContext(
        OpenApi.annotations({
          summary: "Replace a message's content",
          description: "Replaces the content of one message."
        })
      )
  )
  .add(
    HttpApiEndpoint.post("feedback", "/threads/:thread_id/messages/:message_id/feedback")
      .setPath(MessagePath)
      .setPayload(CreateFeedback)
      .addSuccess(Feedback)
      .addError(NotFound)
      .annotateContext(
        OpenApi.annotations({
          summary: "Give feedback on a message",
          description: "One feedback per message and user: a second one replaces the first."
        })
      )
  )
  .middleware(Authenticated)
  // 64 KB of content plus its envelope.
  .annotate(MaxBodyBytes, Limits.body.messageMaxBytes)
  .annotate(OpenApi.Description, "Messages of a thread, as a tree (each message has a parent), and feedback on them") {}
