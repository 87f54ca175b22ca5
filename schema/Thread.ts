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
  external_id: Schema.optional(ExternalId)
}).annotations({ examples: [{ last_message_at: ExampleTime, title: "Trip to Lisbon", metadata: { source: "web" } }] })
export type CreateThread = typeof CreateThread.Type

export const ThreadCreated = Schema.Struct({ thread_id: Id })

export const UpdateThread = Schema.Struct({
  title: Schema.optional(Title),
  last_message_at: Schema.optional(Timestamp),
  metadata: Schema.optional(Metadata),
  is_archived: Schema.optional(Schema.Boolean)
}).annotations({ examples: [{ title: "Trip to Lisbon in May", is_archived: false }] })
export type UpdateThread = typeof UpdateThread.Type

export const ThreadPath = Schema.Struct({ thread_id: StorableString.annotations(exampleOf(ExampleIds.thread)) })
export type ThreadPath = typeof ThreadPath.Type
