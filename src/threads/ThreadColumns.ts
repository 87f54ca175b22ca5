/**
 * The threads feature's wire projection in SQL, shared with search, which
 * answers with threads as the project API writes them.
 */
import { isoTimestampSql } from "../platform/db/SqlText.js"

/**
 * The columns of a thread as the wire writes it (the Thread schema's fields, in its order,
 * timestamps as ISO 8601 UTC with milliseconds), made by the database as
 * one JSON text: the protocol sends it as is, with no object built and
 * encoded per request (measured in bench/, get_thread).
 */
export const THREAD_JSON_COLUMNS = `id, project_id, workspace_id, ${isoTimestampSql("created_at")} AS created_at,
  ${isoTimestampSql("updated_at")} AS updated_at, title, ${isoTimestampSql("last_message_at")} AS last_message_at,
  is_archived, external_id, metadata`
