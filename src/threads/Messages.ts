import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { CallerShape } from "../../schema/Api/Security.js"
import { type InvalidRequest, invalid, type NotFound, notFound } from "../../schema/Errors.js"
import type { CreateFeedback, CreateMessage, MessageListQuery } from "../../schema/Message.js"
import { retryDeadlock } from "../platform/db/SqlErrors.js"
import { settled } from "../platform/db/WriteOutcome.js"
import { rowNotFoundAs404 } from "../platform/Found.js"
import { newId } from "../platform/Ids.js"
import { fn } from "../platform/telemetry/Traced.js"
import { messageText, textsByFormat } from "../platform/text/SearchText.js"
import { Usage } from "../usage/Usage.js"
import { Outbox } from "../webhooks/Outbox.js"
import { FeedbackRepo } from "./FeedbackRepo.js"
import { type AppendOutcome, type MessageRow, MessagesRepo } from "./MessagesRepo.js"
import { Threads } from "./Threads.js"

/**
 * Statements an append runs before it gives up finding the message that took its external_id. One more
 * suffices unless that message is deleted and its external_id taken again between the two, every time.
 */
const EXTERNAL_ID_TRIES = 10

const parentRefused = (field: "parent_id" | "parent_external_id", disagree: boolean): InvalidRequest =>
  disagree
    ? invalid("parent_id and parent_external_id name different messages", field)
    : invalid(`${field} is not a message of this thread`, field)

/** A listed message as JSON-ready text (content and timestamps made by the database). */
export type MessageJson = MessageRow

export class Messages extends Effect.Service<Messages>()("svc/Messages", {
  dependencies: [MessagesRepo.Default, FeedbackRepo.Default, Threads.Default, Usage.Default, Outbox.Default],
  effect: Effect.gen(function* () {
    const repo = yield* MessagesRepo
    const feedback = yield* FeedbackRepo
    const threads = yield* Threads
    const usage = yield* Usage
    const outbox = yield* Outbox

    /** Rows with content as JSON text; the protocol writes them out without re-serializing. */
    const list = fn("Messages.list")(function* (caller: CallerShape, threadId: string, query: MessageListQuery) {
      yield* threads.requireVisible(caller, threadId)
      return yield* repo.list(caller.projectId, threadId, {
        limit: query.limit,
        format: query.format,
        after: query.after,
        order: query.order
      })
    })

    /**
     * The project read API: a thread of any workspace of the project. With maxBytes, the page ends at
     * the first message whose content takes it past maxBytes (MessagesRepo.list).
     */
    const listProject = fn("Messages.listProject")(function* (
      projectId: string,
      threadId: string,
      query: MessageListQuery,
      maxBytes?: number
    ) {
      yield* threads.requireInProject(projectId, threadId)
      const { limit, format, after, order } = query
      return yield* repo.list(projectId, threadId, { limit, format, after, order, maxBytes })
    })

    /**
     * Appends a message (Created), or answers the thread's message with the same external_id: a
     * re-post whose format or content differ replaces them, search text included (Replaced: the
     * finished version of a message an app stored while it streamed), an identical one writes
     * nothing (Existing: a client's retry). Neither counts a message in usage nor sends
     * message.created; the parent of a re-post is not compared (a message does not move in the tree).
     */
    const create = fn("Messages.create")(function* (caller: CallerShape, threadId: string, input: CreateMessage) {
      const message = {
        threadId,
        userId: caller.userId,
        parentId: input.parent_id ?? null,
        parentExternalId: input.parent_external_id ?? null,
        externalId: input.external_id ?? null,
        format: input.format,
        contentJson: JSON.stringify(input.content),
        searchText: messageText(input.format, input.content)
      }
      // The repository gives the message an id above the thread's largest, made under the thread's lock
      // when this one is not (MessagesRepo.append): appends racing on a thread all succeed. An append that
      // lost its external_id to a concurrent one runs again to find it; so does one whose message with
      // that external_id was deleted before its replace.
      const attempt = (id: string, triesLeft: number): Effect.Effect<AppendOutcome, InvalidRequest | NotFound> => {
        const again = () =>
          triesLeft > 1 ? attempt(id, triesLeft - 1) : Effect.dieMessage("external_id taken, yet not found")
        return repo.append(caller, Object.assign({ id }, message)).pipe(
          Effect.flatMap(
            (outcome): Effect.Effect<AppendOutcome, InvalidRequest | NotFound> =>
              outcome._tag !== "Existing"
                ? Effect.succeed(outcome)
                : Effect.flatMap(
                    repo.replaceIfChanged(caller.projectId, threadId, outcome.id, message),
                    ({ found, replaced }) =>
                      !found ? again() : Effect.succeed(replaced ? { _tag: "Replaced", id: outcome.id } : outcome)
                  )
          ),
          Effect.catchTags({
            ExternalIdTaken: again,
            ParentRefused: ({ field, disagree }) => Effect.fail(parentRefused(field, disagree)),
            RowNotFound: ({ what }) => Effect.fail(notFound(what))
          })
        )
      }
      // message.created goes out with the message (the outbox); a retry or a replace sends nothing.
      // Cut off from the store, the append is looked up by the id it chose before answering (WriteOutcome.ts).
      // Ended by PostgreSQL to break a deadlock, the whole append (its transaction, with the deliveries) is
      // tried again: two appends to one thread can meet so when the thread row also holds key locks from
      // the runs, scores and events referring to it (docs/decisions.md "Deadlocks between appends").
      const id = newId("msg")
      const outcome = yield* retryDeadlock(
        outbox.withMessageCreated(caller.projectId, attempt(id, EXTERNAL_ID_TRIES), (done) =>
          done._tag === "Created" ? done.id : undefined
        )
      ).pipe(
        settled(
          "message",
          Effect.map(
            repo.findAppended(caller.projectId, threadId, id),
            Option.map((found): AppendOutcome => ({ _tag: "Created", id: found }))
          )
        )
      )
      if (outcome._tag === "Created") usage.record(caller.projectId, caller.userId, { messages: 1 })
      return outcome
    })

    const update = fn("Messages.update")(function* (
      caller: CallerShape,
      threadId: string,
      messageId: string,
      content: Readonly<Record<string, unknown>>
    ) {
      yield* threads.requireVisible(caller, threadId)
      yield* rowNotFoundAs404(
        repo.updateContent(caller.projectId, threadId, messageId, JSON.stringify(content), textsByFormat(content))
      )
    })

    const removeMany = fn("Messages.removeMany")(function* (
      caller: CallerShape,
      threadId: string,
      messageIds: ReadonlyArray<string>
    ) {
      yield* threads.requireVisible(caller, threadId)
      return yield* repo.removeWithDescendants(caller.projectId, threadId, [...new Set(messageIds)])
    })

    const giveFeedback = fn("Messages.giveFeedback")(function* (
      caller: CallerShape,
      threadId: string,
      messageId: string,
      input: CreateFeedback
    ) {
      yield* threads.requireVisible(caller, threadId)
      // Every feedback given (a new one, or one that replaces the user's earlier) is a feedback.created.
      return yield* outbox.withEvent(
        caller.projectId,
        "feedback.created",
        rowNotFoundAs404(
          feedback.upsert({
            projectId: caller.projectId,
            id: newId("fb"),
            threadId,
            messageId,
            userId: caller.userId,
            type: input.type,
            comment: input.comment ?? null
          })
        ),
        (row) =>
          Effect.succeed({
            id: row.feedback_id,
            thread_id: threadId,
            message_id: messageId,
            user_id: caller.userId,
            workspace_id: caller.workspaceId,
            type: row.type,
            comment: row.comment
          })
      )
    })

    return { list, listProject, create, update, removeMany, giveFeedback } as const
  })
}) {}
