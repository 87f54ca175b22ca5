import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import type { MessageFeedback } from "../../schema/Dashboard.js"
import { RowNotFound } from "../platform/db/RowNotFound.js"
import { isReferenceGone } from "../platform/db/SqlErrors.js"
import { fn } from "../platform/telemetry/Traced.js"

export interface FeedbackRow {
  readonly feedback_id: string
  readonly type: "positive" | "negative"
  readonly comment: string | null
}

export class FeedbackRepo extends Effect.Service<FeedbackRepo>()("svc/FeedbackRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    /**
     * One feedback per message and user: a second one replaces the first.
     * RowNotFound when the message is not in the thread (or went away meanwhile).
     */
    const upsert = (input: {
      readonly projectId: string
      readonly id: string
      readonly threadId: string
      readonly messageId: string
      readonly userId: string
      readonly type: "positive" | "negative"
      readonly comment: string | null
    }) =>
      sql<FeedbackRow>`INSERT INTO message_feedback (project_id, id, thread_id, message_id, user_id, type, comment)
        SELECT ${input.projectId}, ${input.id}, ${input.threadId}, m.id, ${input.userId}, ${input.type}, ${input.comment}
        FROM messages m
        WHERE m.project_id = ${input.projectId} AND m.thread_id = ${input.threadId} AND m.id = ${input.messageId}
        ON CONFLICT (project_id, message_id, user_id)
        DO UPDATE SET type = EXCLUDED.type, comment = EXCLUDED.comment, updated_at = now()
        RETURNING id AS feedback_id, type, comment`.pipe(
        Effect.flatMap(([row]) => (row ? Effect.succeed(row) : Effect.fail(new RowNotFound({ what: "message" })))),
        Effect.catchIf(isReferenceGone, () => Effect.fail(new RowNotFound({ what: "message" })))
      )

    /**
     * The feedback on every message of the thread, oldest first, at most `limit`. Found through the
     * thread's messages (index (project_id, thread_id, id)), then each message's feedback (the unique
     * index (project_id, message_id, user_id)).
     */
    const ofThread = (projectId: string, threadId: string, limit: number) =>
      sql<typeof MessageFeedback.Type>`SELECT f.message_id, f.user_id, f.type, f.comment, f.created_at
        FROM message_feedback f
        WHERE f.project_id = ${projectId}
          AND f.message_id IN (SELECT m.id FROM messages m WHERE m.project_id = ${projectId} AND m.thread_id = ${threadId})
        ORDER BY f.created_at, f.id
        LIMIT ${limit}`

    return {
      upsert: fn("FeedbackRepo.upsert")(upsert, Effect.catchTag("SqlError", Effect.die)),
      ofThread: fn("FeedbackRepo.ofThread")(ofThread, Effect.orDie)
    } as const
  })
}) {}
