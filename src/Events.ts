import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import type { CallerShape } from "../schema/Api/Security.js"
import { EngagementEvent, EventRejection } from "../schema/Event.js"
import { newId } from "./Ids.js"
import { EventsRepo, type NewEvent } from "./storage/EventsRepo.js"
import { Usage } from "./Usage.js"

const decodeEvent = Schema.decodeUnknownEither(EngagementEvent, { errors: "first" })

const describe = (error: ParseResult.ParseError): string => {
  const [issue] = ParseResult.ArrayFormatter.formatErrorSync(error)
  if (issue === undefined) return "invalid event"
  return issue.path.length === 0 ? issue.message : `${issue.path.join(".")}: ${issue.message}`
}

export class Events extends Effect.Service<Events>()("svc/Events", {
  dependencies: [EventsRepo.Default, Usage.Default],
  effect: Effect.gen(function* () {
    const repo = yield* EventsRepo
    const usage = yield* Usage

    /**
     * Keeps every valid event of the batch and reports the others by index
     * (decisions.md §5): a bad event never costs the good ones.
     */
    const ingest = Effect.fn("Events.ingest")(function* (caller: CallerShape, batch: ReadonlyArray<unknown>) {
      const rejected: Array<EventRejection> = []
      const valid: Array<{ index: number; event: EngagementEvent }> = []
      batch.forEach((raw, index) => {
        const decoded = decodeEvent(raw)
        if (Either.isLeft(decoded)) rejected.push(EventRejection.make({ index, error: describe(decoded.left) }))
        else valid.push({ index, event: decoded.right })
      })
      // A thread deleted between the check and the insert: check again (twice at most).
      for (let attempt = 0; ; attempt++) {
        const threadIds = [...new Set(valid.flatMap(({ event }) => (event.thread_id ? [event.thread_id] : [])))]
        const visible = yield* repo.visibleThreads(caller, threadIds)
        const kept = valid.filter(({ event }) => event.thread_id === undefined || visible.has(event.thread_id))
        const rows = kept.map(
          ({ event }): NewEvent => ({
            id: newId("evt"),
            kind: event.kind,
            client_id: event.id ?? null,
            thread_id: event.thread_id ?? null,
            message_id: event.message_id ?? null,
            run_id: event.run_id ?? null,
            value: event.value ?? null,
            props: event.props ?? null
          })
        )
        const stored = rows.length === 0 ? 0 : yield* repo.insert(caller, caller.userId, rows)
        if (stored === "thread_gone" && attempt < 2) continue
        const missing = valid.filter(
          ({ event }) => (event.thread_id !== undefined && !visible.has(event.thread_id)) || stored === "thread_gone"
        )
        for (const { index } of missing) rejected.push(EventRejection.make({ index, error: "thread not found" }))
        if (typeof stored === "number" && stored > 0) usage.record(caller.projectId, caller.userId, { events: stored })
        rejected.sort((a, b) => a.index - b.index)
        return { accepted: batch.length - rejected.length, rejected }
      }
    })

    return { ingest } as const
  })
}) {}
