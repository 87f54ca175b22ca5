import * as Schema from "effect/Schema"
import { Id, MessageContent, PageLimit, Timestamp } from "./Common.js"
import { ExampleIds, exampleOf } from "./Examples.js"
import { Limits } from "./Limits.js"
import { StorableString } from "./Text.js"

export const MessageFormat = StorableString.pipe(
  Schema.minLength(1, { message: () => "format must not be empty" }),
  Schema.maxLength(Limits.message.formatMaxLength)
)

export class Message extends Schema.Class<Message>("Message")({
  id: Id,
  parent_id: Schema.NullOr(Id),
  height: Schema.Number,
  created_at: Timestamp,
  updated_at: Timestamp,
  format: Schema.String,
  content: Schema.Record({ key: Schema.String, value: Schema.Unknown })
}) {}

const exampleContent = { role: "user", content: [{ type: "text", text: "Where should we stay in Lisbon?" }] }

export const MessageListQuery = Schema.Struct({
  format: Schema.optional(MessageFormat),
  limit: PageLimit(Limits.message.listDefault, Limits.message.listMax),
  after: Schema.optional(StorableString)
})
export type MessageListQuery = typeof MessageListQuery.Type

export const MessageList = Schema.Struct({ messages: Schema.Array(Message) })

export const CreateMessage = Schema.Struct({
  parent_id: Schema.NullOr(StorableString),
  format: MessageFormat,
  content: MessageContent
}).annotations({ examples: [{ parent_id: null, format: "svc/v0", content: exampleContent }] })
export type CreateMessage = typeof CreateMessage.Type

export const MessageCreated = Schema.Struct({ message_id: Id })

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
