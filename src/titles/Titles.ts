/**
 * Thread titles (docs/decisions.md "Titles"). A thread with a title gets it
 * back; one without gets a generated title, reserved against the project's
 * monthly quota first, stored on the thread, counted in usage. Everything
 * that can refuse the request (404, 429, and 502 when the generator fails
 * before its first delta) happens before the stream is handed back, so the
 * protocol can still answer a JSON error.
 */
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Scope from "effect/Scope"
import * as Sink from "effect/Sink"
import * as Stream from "effect/Stream"
import type { CallerShape } from "../../schema/Api/Security.js"
import { BadGateway, QuotaExceeded } from "../../schema/Errors.js"
import { Limits } from "../../schema/Limits.js"
import type { ChatMessage } from "../../schema/Title.js"
import { fn } from "../platform/telemetry/Traced.js"
import { Projects } from "../projects/Projects.js"
import { Threads } from "../threads/Threads.js"
import { Usage } from "../usage/Usage.js"
import { toTurns } from "./Conversation.js"
import { type TitleGenerationFailed, TitleGenerator } from "./TitleGenerator.js"
import { TitleQuotaRepo, utcMonth } from "./TitleQuotaRepo.js"

export class Titles extends Effect.Service<Titles>()("svc/Titles", {
  dependencies: [Threads.Default, Projects.Default, TitleQuotaRepo.Default, Usage.Default],
  effect: Effect.gen(function* () {
    const threads = yield* Threads
    const projects = yield* Projects
    const quota = yield* TitleQuotaRepo
    const usage = yield* Usage
    const generator = yield* TitleGenerator
    const clock = yield* Effect.clock

    /** One title of the month taken, or none needed (unlimited plan); how to give it back. */
    const reserve = fn("Titles.reserve")(function* (projectId: string) {
      const project = yield* projects.get(projectId)
      const limit =
        Limits.title.monthlyQuota[Option.match(project, { onNone: () => "hobby" as const, onSome: (p) => p.plan })]
      if (limit === null) return Effect.void
      const month = utcMonth(new Date(clock.unsafeCurrentTimeMillis()))
      if (!(yield* quota.reserve(projectId, month, limit))) {
        return yield* Effect.fail(
          new QuotaExceeded({
            message: `this project's plan allows ${limit} generated titles a month, and they are used up`
          })
        )
      }
      return quota.release(projectId, month)
    })

    /**
     * The title of a thread as a stream of deltas. The returned stream fails
     * with TitleGenerationFailed only after it has delivered a first delta.
     */
    const stream = fn("Titles.stream")(function* (
      caller: CallerShape,
      threadId: string,
      messages: ReadonlyArray<ChatMessage>
    ) {
      const thread = yield* threads.get(caller, threadId)
      if (thread.title !== null && thread.title.trim() !== "") return Stream.make(thread.title)
      const turns = toTurns(messages)
      // No text, nothing to title: an empty answer, which the client reads as no title.
      if (turns.length === 0) return Stream.empty
      const release = yield* reserve(caller.projectId)

      // The first delta is awaited here, so that a generator failing at once is a 502, not a cut stream.
      const scope = yield* Scope.make()
      const [first, rest] = yield* Stream.peel(generator.generate(turns), Sink.head<string>()).pipe(
        Scope.extend(scope),
        Effect.onExit((exit) =>
          Exit.isSuccess(exit) ? Effect.void : Effect.zipRight(release, Scope.close(scope, exit))
        ),
        // Any cause but an interruption: a failure carried across the stream's fibers can arrive as a defect.
        Effect.catchAllCause(
          (cause): Effect.Effect<never, BadGateway> =>
            Cause.isInterruptedOnly(cause)
              ? Effect.interrupt
              : Effect.zipRight(
                  Effect.logWarning("title generation failed", cause),
                  Effect.fail(new BadGateway({ message: "the title could not be generated; try again later" }))
                )
        )
      )

      const pieces: Array<string> = []
      let finished = false
      /** At the end of the stream, before the response ends: a later GET sees the title. */
      const finish = Effect.suspend(() => {
        finished = true
        const title = pieces.join("").trim()
        if (title === "") return release
        usage.record(caller.projectId, caller.userId, { title_generations: 1 })
        // A title set meanwhile (a PUT) is kept; the caller still gets the generated one.
        return threads.setTitleIfUntitled(caller, threadId, title)
      })
      const body: Stream.Stream<string, TitleGenerationFailed> = Stream.concat(
        Stream.fromIterable(Option.toArray(first)),
        rest
      )
      // Failed or cut off (the client went away): the reservation goes back, once.
      let cleaned = false
      const cleanup = Effect.suspend(() => {
        if (cleaned) return Effect.void
        cleaned = true
        return Effect.zipRight(finished ? Effect.void : release, Scope.close(scope, Exit.void))
      })
      // Also when the body never runs (the client left before the response started):
      // the request's scope closes once the response is done, written or not.
      const requestScope = yield* Effect.serviceOption(Scope.Scope)
      if (Option.isSome(requestScope)) yield* Scope.addFinalizer(requestScope.value, cleanup)
      return body.pipe(
        Stream.tap((piece) => Effect.sync(() => pieces.push(piece))),
        Stream.concat(Stream.execute(finish)),
        Stream.ensuring(cleanup)
      )
    })

    return { stream } as const
  })
}) {}
