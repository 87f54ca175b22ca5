/** Engagement events (docs/api-and-auth.md "Run reports, scores and events", docs/decisions.md "Engagement events"). */
import * as Schema from "effect/Schema"
import { Id, isPlainObject, utf8Length } from "./Common.js"
import { Limits } from "./Limits.js"
import { jsonProblem, StorableString } from "./Text.js"

export const EVENT_KINDS = [
  "message_sent",
  "message_edited",
  "run_stopped",
  "message_regenerated",
  "message_copied",
  "branch_switched",
  "suggestions_shown",
  "suggestion_clicked",
  "attachment_added",
  "attachment_failed",
  "thread_switched",
  "tool_approved",
  "tool_rejected",
  "speech_started",
  "voice_started",
  "error_shown"
] as const

/** The first string anywhere in a JSON value longer than `max`, as a path. */
const longString = (value: unknown, max: number, path: Array<string> = []): Array<string> | undefined => {
  if (typeof value === "string") return value.length > max ? path : undefined
  if (typeof value !== "object" || value === null) return undefined
  for (const [key, inner] of Object.entries(value)) {
    const found = longString(inner, max, [...path, key])
    if (found) return found
  }
  return undefined
}

/** The path of the first key anywhere in a JSON value longer than `max` (array indexes are not keys). */
const longKey = (value: unknown, max: number, path: Array<string> = []): Array<string> | undefined => {
  if (typeof value !== "object" || value === null) return undefined
  const isArray = Array.isArray(value)
  for (const [key, inner] of Object.entries(value)) {
    if (!isArray && key.length > max) return [...path, key]
    const found = longKey(inner, max, [...path, key])
    if (found) return found
  }
  return undefined
}

/** props: a JSON object of at most 1 KB serialized, keys (at any depth) of 64 characters, strings of 256. */
export const EventProps = Schema.Unknown.pipe(
  Schema.filter((value): value is Readonly<Record<string, unknown>> => isPlainObject(value), {
    message: () => "props must be a JSON object"
  }),
  Schema.filter((value) => {
    const { propsKeyMaxLength, propsMaxBytes, propsStringMaxLength } = Limits.event
    const problem = jsonProblem(value)
    if (problem) return problem
    // Measured first: past 1 KB nothing below can be deep or long.
    if (utf8Length(JSON.stringify(value)) > propsMaxBytes) return `props larger than ${propsMaxBytes} bytes serialized`
    const keyPath = longKey(value, propsKeyMaxLength)
    if (keyPath) return { path: keyPath, message: `key longer than ${propsKeyMaxLength} characters` }
    const path = longString(value, propsStringMaxLength)
    return path === undefined || { path, message: `string longer than ${propsStringMaxLength} characters` }
  })
)

export const EngagementEvent = Schema.Struct({
  kind: Schema.Literal(...EVENT_KINDS),
  id: Schema.optional(StorableString.pipe(Schema.minLength(1), Schema.maxLength(Limits.event.idMaxLength))),
  thread_id: Schema.optional(Id),
  message_id: Schema.optional(Id),
  run_id: Schema.optional(Id),
  value: Schema.optional(Schema.Number.pipe(Schema.int(), Schema.between(0, Number.MAX_SAFE_INTEGER))),
  props: Schema.optional(EventProps)
}).annotations({ identifier: "EngagementEvent", parseOptions: { onExcessProperty: "error" } })
export type EngagementEvent = typeof EngagementEvent.Type

/** The batch: each event is checked on its own (partial acceptance), so they arrive unchecked. */
export const EventBatch = Schema.Struct({
  events: Schema.Array(Schema.Unknown).pipe(
    Schema.minItems(1, { message: () => "events must hold at least one event" }),
    Schema.maxItems(Limits.event.batchMax, { message: () => `at most ${Limits.event.batchMax} events a request` })
  )
}).annotations({
  identifier: "EventBatch",
  parseOptions: { onExcessProperty: "error" },
  examples: [{ events: [{ kind: "suggestions_shown", value: 3, props: { surface: "composer" } }] }]
})

export class EventRejection extends Schema.Class<EventRejection>("EventRejection")({
  index: Schema.Number,
  error: Schema.String
}) {}

export const EventsAccepted = Schema.Struct({
  accepted: Schema.Number,
  rejected: Schema.Array(EventRejection)
})
