import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import { whenReferenceGone } from "./SqlErrors.js"

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
     * Undefined when the message is not in the thread (or went away meanwhile).
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
        Effect.map((rows): FeedbackRow | undefined => rows[0]),
        whenReferenceGone(undefined)
      )

    return { upsert: (input: Parameters<typeof upsert>[0]) => upsert(input).pipe(Effect.orDie) } as const
  })
}) {}
