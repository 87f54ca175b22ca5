import * as Schema from "effect/Schema"
import { Id, Timestamp } from "./Common.js"
import { ExampleIds, exampleOf } from "./Examples.js"
import { Limits } from "./Limits.js"
import { StorableString } from "./Text.js"

/**
 * The user whose data an erasure deletes: any user id the gateway may have
 * stored (1 to 255 characters, as the identity headers take, trimmed; an
 * anonymous user's `anon_` id too).
 */
export const ErasedUserId = StorableString.pipe(
  Schema.minLength(1, { message: () => "user_id must not be empty" }),
  Schema.maxLength(Limits.identityHeaderMaxLength, {
    message: () => `user_id is longer than ${Limits.identityHeaderMaxLength} characters`
  }),
  Schema.filter((id) => id.trim() === id || "user_id must not start or end with spaces")
).annotations(exampleOf("user_42"))

export const UserPath = Schema.Struct({
  project_id: StorableString.annotations(exampleOf(ExampleIds.project)),
  user_id: ErasedUserId
})

const Count = Schema.Number.pipe(Schema.int(), Schema.nonNegative())

/** What one erasure deleted, per kind: rows of the store, and attachments (their blobs). */
export const ErasureCounts = Schema.Struct({
  threads: Count,
  messages: Count,
  feedback: Count,
  runs: Count,
  scores: Count,
  events: Count,
  attachments: Count.annotations({ description: "blobs deleted (attachments the user's messages referenced)" }),
  spans: Count,
  traces: Count,
  refresh_tokens: Count.annotations({ description: "refresh tokens, that is anonymous sessions" }),
  workspace_claims: Count,
  webhook_deliveries: Count.annotations({
    description: "outgoing webhook deliveries (whatever their status) whose object was one of the objects erased"
  })
})
export type ErasureCounts = typeof ErasureCounts.Type

/**
 * The audit record of an erasure (what DELETE answers, and the erasure log
 * lists): who asked, when, what went. No content, and not the user id: its
 * SHA-256 (hex), which the id can be checked against.
 */
export const UserErasure = Schema.Struct({
  erasure_id: Id,
  user_sha256: Schema.String.annotations({ description: "SHA-256 (hex) of the erased user id" }),
  requested_by: Schema.String.annotations({
    description:
      "`admin-api` (the admin token), `dashboard` (an admin session of the dashboard), or `cli:<operating-system user>` for `svc user erase`"
  }),
  started_at: Timestamp,
  finished_at: Timestamp,
  deleted: ErasureCounts,
  usage_rows_anonymized: Count.annotations({
    description:
      "daily usage rows of the user kept under an anonymous id (the figures stay; rows of a test user are deleted instead)"
  })
})
export type UserErasure = typeof UserErasure.Type

export const UserErasureList = Schema.Struct({ erasures: Schema.Array(UserErasure) })
