import type { ClaimRequest } from "../../schema/Auth.js"
import type { CreateFeedback, CreateMessage, DeleteMessages, MessageListQuery } from "../../schema/Message.js"
import type { CreateThread, ThreadListQuery, UpdateThread } from "../../schema/Thread.js"
import * as check from "../core/check.js"
import type { Transport } from "../core/request.js"
import { formatFromWire, formatToWire } from "./format.js"
import { type CloudMessage, type CloudThread, idOf, listOf, messageOf, threadOf } from "./shapes.js"

type Encoded<S extends { readonly Encoded: unknown }> = S["Encoded"]

/**
 * Each field optional, and undefined allowed: the query skips an undefined value
 * (docs/decisions.md "Client library (svc-client)").
 */
type Loose<A> = { readonly [K in keyof A]?: A[K] | undefined }

/** Query of the thread lists: is_archived, limit, after. */
export type ThreadListParams = Loose<ThreadListQuery>
/** Query of the message lists: format, limit, after, order (`desc`: newest first). */
export type MessageListParams = Loose<MessageListQuery>

/** `last_message_at` is a Date here, sent as an ISO string. */
export type CreateThreadBody = Omit<CreateThread, "last_message_at"> & { readonly last_message_at: Date }
export type UpdateThreadBody = Omit<UpdateThread, "last_message_at"> & { readonly last_message_at?: Date }
export type CreateMessageBody = Encoded<typeof CreateMessage>
export type FeedbackBody = CreateFeedback
export type DeleteMessagesBody = Encoded<typeof DeleteMessages>

const seg = encodeURIComponent

/** Dates as ISO strings; the rest as given. */
const withIsoDates = <T extends { readonly last_message_at?: Date | undefined }>(body: T) => {
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(body)) out[key] = value instanceof Date ? value.toISOString() : value
  return out
}

/** Trimmed, and left out when empty. */
const feedbackBody = (body: FeedbackBody): Record<string, unknown> => {
  const comment = typeof body.comment === "string" ? body.comment.trim() : ""
  return comment === "" ? { type: body.type } : { type: body.type, comment }
}

/** The query with the format named as the wire names it (format.ts). */
const wireQuery = (query: MessageListParams | undefined): MessageListParams | undefined =>
  typeof query?.format === "string" ? Object.assign({}, query, { format: formatToWire(query.format) }) : query

/** A listed message with its format named as the promise client names it (format.ts). */
const listedMessage = (value: unknown, path: string): CloudMessage => {
  const message = messageOf(value, path)
  const format = formatFromWire(message.format)
  return format === message.format ? message : Object.assign({}, message, { format })
}

export const messagesList = (transport: Transport, path: string, query?: MessageListParams) =>
  transport
    .json(path, { query: wireQuery(query) })
    .then((body) => ({ messages: listOf<CloudMessage>(body, "messages", "message", listedMessage) }))

export const threadsList = (transport: Transport, path: string, query?: ThreadListParams) =>
  transport
    .json(path, { query })
    .then((body) => ({ threads: listOf<CloudThread>(body, "threads", "thread", threadOf) }))

export const makeMessages = (transport: Transport) => ({
  list: (threadId: string, query?: MessageListParams): Promise<{ messages: ReadonlyArray<CloudMessage> }> =>
    messagesList(transport, `/threads/${seg(threadId)}/messages`, query),
  /**
   * Stores a message (`aui/v0` is sent as `svc/v0`). With an `external_id` the thread has, the
   * gateway answers that message's id and its content becomes this one (docs/decisions.md).
   */
  create: (threadId: string, body: CreateMessageBody): Promise<{ message_id: string }> =>
    transport
      .json(`/threads/${seg(threadId)}/messages`, {
        method: "POST",
        body:
          body.format === formatToWire(body.format)
            ? body
            : Object.assign({}, body, { format: formatToWire(body.format) })
      })
      .then((answer) => ({ message_id: idOf(answer, "message_id") })),
  update: async (threadId: string, messageId: string, body: { readonly content: CreateMessageBody["content"] }) => {
    await transport.noContent(`/threads/${seg(threadId)}/messages/${seg(messageId)}`, { method: "PUT", body })
  },
  /** Deletes up to 200 messages of a thread and their descendants. */
  delete: (threadId: string, body: DeleteMessagesBody): Promise<{ deleted: number }> =>
    transport
      .json(`/threads/${seg(threadId)}/messages`, { method: "DELETE", body })
      .then((answer) => ({ deleted: check.integer(check.object(answer, "body").deleted, "deleted") })),
  feedback: (
    threadId: string,
    messageId: string,
    body: FeedbackBody
  ): Promise<{ feedback_id: string; type: FeedbackBody["type"] }> =>
    transport
      .json(`/threads/${seg(threadId)}/messages/${seg(messageId)}/feedback`, {
        method: "POST",
        body: feedbackBody(body)
      })
      .then((answer) => ({
        feedback_id: idOf(answer, "feedback_id"),
        type: check.oneOf(check.object(answer, "body").type, ["positive", "negative"], "type")
      }))
})

export const makeThreads = (transport: Transport) => ({
  list: (query?: ThreadListParams): Promise<{ threads: ReadonlyArray<CloudThread> }> =>
    threadsList(transport, "/threads", query),
  get: (threadId: string): Promise<CloudThread> =>
    transport.json(`/threads/${seg(threadId)}`).then((body) => threadOf(body, "thread")),
  create: (body: CreateThreadBody): Promise<{ thread_id: string }> =>
    transport
      .json("/threads", { method: "POST", body: withIsoDates(body) })
      .then((answer) => ({ thread_id: idOf(answer, "thread_id") })),
  update: async (threadId: string, body: UpdateThreadBody): Promise<void> => {
    await transport.noContent(`/threads/${seg(threadId)}`, { method: "PUT", body: withIsoDates(body) })
  },
  /** Moves the anonymous user's threads behind `refresh_token` to the caller. */
  claim: (body: (typeof ClaimRequest)["Encoded"]): Promise<{ moved: number }> =>
    transport
      .json("/threads/claim", { method: "POST", body })
      .then((answer) => ({ moved: check.integer(check.object(answer, "body").moved, "moved") })),
  delete: async (threadId: string): Promise<void> => {
    await transport.noContent(`/threads/${seg(threadId)}`, { method: "DELETE" })
  },
  messages: makeMessages(transport)
})
