import * as Schema from "effect/Schema"
import { Id, MessageContent, PageLimit, Timestamp } from "./Common.js"
import { ExampleIds, exampleOf } from "./Examples.js"
import { Limits } from "./Limits.js"
import { StorableString } from "./Text.js"

export const MessageFormat = StorableString.pipe(
  Schema.minLength(1, { message: () => "format must not be empty" }),
  Schema.maxLength(Limits.message.formatMaxLength)
)

/**
 * A client's own id for a message: unique in its thread (a second create with
 * it answers the first message), 1 to 255 characters.
 */
export const MessageExternalId = StorableString.pipe(
  Schema.minLength(1, { message: () => "an external id must not be empty" }),
  Schema.maxLength(Limits.message.externalIdMaxLength)
)

export class Message extends Schema.Class<Message>("Message")({
  id: Id,
  parent_id: Schema.NullOr(Id),
  /** The client's own id for the message, null when it gave none. */
  external_id: Schema.NullOr(Schema.String),
  height: Schema.Number,
  created_at: Timestamp,
  updated_at: Timestamp,
  format: Schema.String,
  content: Schema.Record({ key: Schema.String, value: Schema.Unknown })
}) {}

const exampleContent = { role: "user", content: [{ type: "text", text: "Where should we stay in Lisbon?" }] }

/** The order of a message list: by creation (id), oldest first (`asc`, the default) or newest first (`desc`). */
export const MessageListOrder = Schema.Literal("asc", "desc").annotations({
  description:
    "`asc` (the default): oldest first; `desc`: newest first. `after` reads on in the same order (the messages after it in that order)."
})
export type MessageListOrder = typeof MessageListOrder.Type

export const MessageListQuery = Schema.Struct({
  format: Schema.optional(MessageFormat),
  limit: PageLimit(Limits.message.listDefault, Limits.message.listMax),
  after: Schema.optional(StorableString),
  order: Schema.optional(MessageListOrder)
})
export type MessageListQuery = typeof MessageListQuery.Type

export const MessageList = Schema.Struct({ messages: Schema.Array(Message) })

export const CreateMessage = Schema.Struct({
  /** Null or absent for a root. */
  parent_id: Schema.optional(Schema.NullOr(StorableString)),
  format: MessageFormat,
  content: MessageContent,
  external_id: Schema.optional(Schema.NullOr(MessageExternalId)).annotations({
    description:
      "The client's own id for the message, unique in the thread: a second create with it answers that message's id (200) and stores no new message; when its format or content differ, they replace the message's (a re-post of a finished message), else nothing is written (a retry)"
  }),
  parent_external_id: Schema.optional(Schema.NullOr(MessageExternalId)).annotations({
    description:
      "The parent named by its external_id, in place of parent_id (with both, they must name the same message)"
  })
}).annotations({
  examples: [
    { parent_id: null, format: "svc/v0", content: exampleContent },
    { parent_external_id: "client-msg-1", external_id: "client-msg-2", format: "svc/v0", content: exampleContent }
  ]
})
export type CreateMessage = typeof CreateMessage.Type

export const MessageCreated = Schema.Struct({ message_id: Id }).annotations({
  description: "The message was stored"
})

/**
 * A create whose external_id the thread already has: that message's id. Its format and content
 * are replaced when the request's differ (a replace), else nothing is written (a retry).
 */
export const MessageExisting = Schema.Struct({ message_id: Id }).annotations({
  description:
    "The thread already has a message with this external_id: its id, no new message. Its format and content are now the request's (replaced when they differed; an identical re-post writes nothing)"
})

export const UpdateMessage = Schema.Struct({ content: MessageContent }).annotations({
  examples: [{ content: exampleContent }]
})

export const DeleteMessages = Schema.Struct({
  message_ids: Schema.Array(StorableString).pipe(Schema.minItems(1), Schema.maxItems(Limits.message.deleteMax))
}).annotations({ examples: [{ message_ids: [ExampleIds.message] }] })
export type DeleteMessages = typeof DeleteMessages.Type

export const MessagesDeleted = Schema.Struct({ deleted: Schema.Number })

export const MessagePath = Schema.Struct({
  thread_id: StorableString.annotations(exampleOf(ExampleIds.thread)),
  message_id: StorableString.annotations(exampleOf(ExampleIds.message))
})

export const FeedbackType = Schema.Literal("positive", "negative")

export const CreateFeedback = Schema.Struct({
  type: FeedbackType,
  comment: Schema.optional(StorableString.pipe(Schema.maxLength(Limits.feedback.commentMaxLength)))
}).annotations({ examples: [{ type: "positive", comment: "Clear and to the point" }] })
export type CreateFeedback = typeof CreateFeedback.Type

export const Feedback = Schema.Struct({
  feedback_id: Id,
  type: FeedbackType,
  comment: Schema.NullOr(Schema.String)
})
