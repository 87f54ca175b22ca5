import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import type { CallerShape } from "../../schema/Api/Security.js"
import { EngagementEvent, EventRejection } from "../../schema/Event.js"
import { Limits } from "../../schema/Limits.js"
import { settled } from "../platform/db/WriteOutcome.js"
import { newId } from "../platform/Ids.js"
import { RateLimiter } from "../platform/RateLimiter.js"
import { fn } from "../platform/telemetry/Traced.js"
import { Usage } from "../usage/Usage.js"
import { EventsRepo, type NewEvent, type VisibleTargets } from "./EventsRepo.js"

const decodeEvent = Schema.decodeUnknownEither(EngagementEvent, { errors: "first" })

const describe = (error: ParseResult.ParseError): string => {
  const [issue] = ParseResult.ArrayFormatter.formatErrorSync(error)
  if (issue === undefined) return "invalid event"
  return issue.path.length === 0 ? issue.message : `${issue.path.join(".")}: ${issue.message}`
}

const unique = (ids: ReadonlyArray<string | undefined>): Array<string> =>
  [...new Set(ids)].filter((id): id is string => id !== undefined)

/**
 * The thread an event is filed under (the one it names, or that of its
 * message or run, so it goes when the thread goes), or why its references
 * cannot be kept: each thread, message and run it names must be the caller's
 * workspace's (of another workspace or project it reads as not found, as
 * everywhere), all in one thread.
 */
const resolveTargets = (
  event: EngagementEvent,
  visible: VisibleTargets
): { readonly thread: string | null } | { readonly problem: string } => {
  let thread = event.thread_id
  if (thread !== undefined && !visible.threads.has(thread)) return { problem: "thread not found" }
  for (const [kind, id, known] of [
    ["message", event.message_id, visible.messages],
    ["run", event.run_id, visible.runs]
  ] as const) {
    if (id === undefined) continue
    const itsThread = known.get(id)
    if (itsThread === undefined) return { problem: `${kind} not found` }
    if (thread !== undefined && itsThread !== thread) return { problem: `${kind} is not in the event's thread` }
    thread = itsThread
  }
  return { thread: thread ?? null }
}

export class Events extends Effect.Service<Events>()("svc/Events", {
  dependencies: [EventsRepo.Default, RateLimiter.Default, Usage.Default],
  effect: Effect.gen(function* () {
    const repo = yield* EventsRepo
    const limiter = yield* RateLimiter
    const usage = yield* Usage

    /**
     * Keeps every valid event of the batch and reports the others by index
     * (docs/decisions.md "Engagement events"): a bad event never costs the
     * good ones.
     */
    const ingest = fn("Events.ingest")(function* (caller: CallerShape, batch: ReadonlyArray<unknown>) {
      // 600 events a minute per user of the project, counted in events, not requests (the batch's invalid ones too).
      yield* limiter.consume(`events:${caller.projectId}:${caller.userId}`, Limits.event.perMinute, 60, batch.length)
      const rejected: Array<EventRejection> = []
      const valid: Array<{ index: number; event: EngagementEvent }> = []
      batch.forEach((raw, index) => {
        const decoded = decodeEvent(raw)
        if (Either.isLeft(decoded)) rejected.push(EventRejection.make({ index, error: describe(decoded.left) }))
        else valid.push({ index, event: decoded.right })
      })
      const targets = {
        threads: unique(valid.map(({ event }) => event.thread_id)),
        messages: unique(valid.map(({ event }) => event.message_id)),
        runs: unique(valid.map(({ event }) => event.run_id))
      }
      // A thread deleted between the check and the insert: check again (twice at most).
      for (let attempt = 0; ; attempt++) {
        const visible = yield* repo.visibleTargets(caller, targets)
        const problems = new Map<number, string>()
        const rows: Array<NewEvent> = []
        for (const { index, event } of valid) {
          const resolved = resolveTargets(event, visible)
          if ("problem" in resolved) {
            problems.set(index, resolved.problem)
            continue
          }
          rows.push({
            id: newId("evt"),
            kind: event.kind,
            client_id: event.id ?? null,
            thread_id: resolved.thread,
            message_id: event.message_id ?? null,
            run_id: event.run_id ?? null,
            value: event.value ?? null,
            props: event.props ?? null
          })
        }
        const stored =
          rows.length === 0
            ? 0
            : yield* repo.insert(caller, caller.userId, rows).pipe(
                // Cut off from the store, the batch is looked up by its ids before answering (WriteOutcome.ts).
                settled(
                  "event batch",
                  repo.storedOf(
                    caller.projectId,
                    rows.map((row) => row.id)
                  )
                ),
                Effect.catchTag("RowNotFound", () => Effect.succeed("thread_gone" as const))
              )
        if (stored === "thread_gone" && attempt < 2) continue
        for (const { index } of valid) {
          const problem = stored === "thread_gone" ? "thread not found" : problems.get(index)
          if (problem !== undefined) rejected.push(EventRejection.make({ index, error: problem }))
        }
        if (typeof stored === "number" && stored > 0) usage.record(caller.projectId, caller.userId, { events: stored })
        rejected.sort((a, b) => a.index - b.index)
        return { accepted: batch.length - rejected.length, rejected }
      }
    })

    return { ingest } as const
  })
}) {}
