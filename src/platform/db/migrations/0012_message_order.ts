import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/**
 * The largest message id a thread has had. An append takes the thread's row
 * lock and gives its message an id above this one, so within a thread ids
 * grow in commit order and a reader paging with `after=<last id>` never
 * passes a message that commits later (MessagesRepo.append).
 */
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE threads ADD COLUMN last_message_id text`
  yield* sql`
    UPDATE threads SET last_message_id = m.last_id
    FROM (SELECT project_id, thread_id, max(id) AS last_id FROM messages GROUP BY project_id, thread_id) m
    WHERE threads.project_id = m.project_id AND threads.id = m.thread_id`
})
