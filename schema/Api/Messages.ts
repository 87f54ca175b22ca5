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
  MessageList,
  MessageListQuery,
  MessagePath,
  MessagesDeleted,
  UpdateMessage
} from "../Message.js"
import { ThreadPath } from "../Thread.js"
import { withIdentityHeaderParameters } from "./Identity.js"
import { MaxBodyBytes } from "./RouteRules.js"
import { Authenticated } from "./Security.js"

export class MessagesGroup extends HttpApiGroup.make("messages")
  .add(
    HttpApiEndpoint.get("list", "/threads/:thread_id/messages")
      .setPath(ThreadPath)
      .setUrlParams(MessageListQuery)
      .addSuccess(MessageList)
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.post("create", "/threads/:thread_id/messages")
      .setPath(ThreadPath)
      .setPayload(CreateMessage)
      .addSuccess(MessageCreated, { status: 201 })
      .addError(NotFound)
      .addError(InvalidRequest)
  )
  .add(
    HttpApiEndpoint.post("deleteMany", "/threads/:thread_id/messages/delete")
      .setPath(ThreadPath)
      .setPayload(DeleteMessages)
      .addSuccess(MessagesDeleted)
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.put("update", "/threads/:thread_id/messages/:message_id")
      .setPath(MessagePath)
      .setPayload(UpdateMessage)
      .addSuccess(HttpApiSchema.NoContent)
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.post("feedback", "/threads/:thread_id/messages/:message_id/feedback")
      .setPath(MessagePath)
      .setPayload(CreateFeedback)
      .addSuccess(Feedback)
      .addError(NotFound)
  )
  .middleware(Authenticated)
  .annotateEndpoints(OpenApi.Transform, withIdentityHeaderParameters)
  // 64 KB of content plus its envelope.
  .annotate(MaxBodyBytes, Limits.body.messageMaxBytes) {}
