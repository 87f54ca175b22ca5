import * as Schema from "effect/Schema"
import { Id, Metadata, PageLimit, QueryBoolean, Timestamp } from "./Common.js"
import { ExampleIds, ExampleTime, exampleOf } from "./Examples.js"
import { Limits } from "./Limits.js"
import { StorableString } from "./Text.js"

const Title = StorableString.pipe(Schema.maxLength(Limits.thread.titleMaxLength))
const ExternalId = StorableString.pipe(Schema.maxLength(Limits.thread.externalIdMaxLength))

export class Thread extends Schema.Class<Thread>("Thread")({
  id: Id,
  project_id: Id,
  workspace_id: Schema.String,
  created_at: Timestamp,
  updated_at: Timestamp,
  title: Schema.NullOr(Schema.String),
  last_message_at: Timestamp,
  is_archived: Schema.Boolean,
  external_id: Schema.NullOr(Schema.String),
  metadata: Schema.Unknown
}) {}

export const ThreadListQuery = Schema.Struct({
  is_archived: Schema.optional(QueryBoolean),
  limit: PageLimit(Limits.thread.listDefault, Limits.thread.listMax),
  after: Schema.optional(StorableString)
})
export type ThreadListQuery = typeof ThreadListQuery.Type

export const ThreadList = Schema.Struct({ threads: Schema.Array(Thread) })

export const CreateThread = Schema.Struct({
  last_message_at: Timestamp,
  title: Schema.optional(Title),
  metadata: Schema.optional(Metadata),
  external_id: Schema.optional(ExternalId),
  upsert: Schema.optional(Schema.Boolean).annotations({
    description:
      "With true, the workspace's thread with this external_id (required, not empty) is answered (200) when there is one, and nothing is written; else the thread is created (201)"
  })
})
  // On the struct, not the refinement: the OpenAPI document takes the examples of the struct's JSON Schema.
  .annotations({
    examples: [
      { last_message_at: ExampleTime, title: "Trip to Lisbon", metadata: { source: "web" } },
      { last_message_at: ExampleTime, title: "Trip to Lisbon", external_id: "client-thread-1", upsert: true }
    ]
  })
  .pipe(
    Schema.filter((input) =>
      input.upsert !== true || (input.external_id !== undefined && input.external_id !== "")
        ? undefined
        : { path: ["external_id"], message: "upsert needs a non-empty external_id" }
    )
  )
export type CreateThread = typeof CreateThread.Type

export const ThreadCreated = Schema.Struct({ thread_id: Id }).annotations({ description: "The thread was created" })

/** An upsert that found the workspace's thread with its external_id: that thread, nothing written. */
export const ThreadExisting = Schema.Struct({ thread_id: Id }).annotations({
  description: "upsert: the workspace's thread with this external_id, as it was"
})

export const UpdateThread = Schema.Struct({
  title: Schema.optional(Title),
  last_message_at: Schema.optional(Timestamp),
  metadata: Schema.optional(Metadata),
  is_archived: Schema.optional(Schema.Boolean)
}).annotations({ examples: [{ title: "Trip to Lisbon in May", is_archived: false }] })
export type UpdateThread = typeof UpdateThread.Type

export const ThreadPath = Schema.Struct({ thread_id: StorableString.annotations(exampleOf(ExampleIds.thread)) })
export type ThreadPath = typeof ThreadPath.Type
