import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as Schema from "effect/Schema"
import { Id } from "./Common.js"
import { ExampleIds } from "./Examples.js"
import { Limits } from "./Limits.js"

/** The one assistant the stream route runs (docs/api-and-auth.md "Titles", docs/decisions.md "Titles"). */
export const TITLE_ASSISTANT_ID = "system/thread_title"

/**
 * A chat message as the client holds it, read leniently: `{ role, content }`
 * with content a string or an array of `{ type: "text", text }` parts (svc/v0),
 * or `{ role, parts }` (AI SDK). Other fields and parts are ignored; only the
 * text is used.
 */
export const ChatMessage = Schema.Record({ key: Schema.String, value: Schema.Unknown }).annotations({
  identifier: "ChatMessage",
  description: "a chat message: { role, content: string | [{ type: 'text', text }] } or { role, parts: [...] }"
})
export type ChatMessage = typeof ChatMessage.Type

export const RunStreamRequest = Schema.Struct({
  thread_id: Id,
  assistant_id: Schema.Literal(TITLE_ASSISTANT_ID),
  messages: Schema.Array(ChatMessage).pipe(Schema.maxItems(Limits.title.messagesMax))
}).annotations({
  examples: [
    {
      thread_id: ExampleIds.thread,
      assistant_id: TITLE_ASSISTANT_ID,
      messages: [{ role: "user", content: "Where should we stay in Lisbon for a week in May?" }]
    }
  ]
})
export type RunStreamRequest = typeof RunStreamRequest.Type

/** The answer: the title as plain text, streamed in chunks; empty when the messages hold no text. */
export const TitleText = Schema.String.pipe(
  HttpApiSchema.withEncoding({ kind: "Text", contentType: "text/plain; charset=utf-8" })
).annotations({ description: "the thread title, streamed as text deltas" })
