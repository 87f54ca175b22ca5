/**
 * A write whose connection to the store was lost while it ran (a PostgreSQL
 * restart, a pooler stopped, a network cut) may have committed: the server
 * can commit and then lose the connection before its answer arrives. A 503
 * (retry) for such a write would have the client store it twice (issue 28:
 * a soak stored a run report twice that way). So the write's outcome is
 * looked up once the store answers again, by what the write chose before it
 * was sent (the row's id): found, the write succeeded and is answered so;
 * not found, it was not written, and the 503 stands. A write that never had
 * a connection sent nothing (StoreErrors.ts `mayHaveRun`): 503 at once. A
 * store that does not answer within OUTCOME_WAIT_MS leaves the outcome
 * unknown: StoreOutcomeUnknown, which the protocols answer without inviting
 * a retry (docs/decisions.md "Writes cut off from the store").
 */
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { isUnreachable, mayHaveRun } from "./StoreErrors.js"

/** How long a write cut off from the store waits for it to answer the lookup of its outcome. */
export const OUTCOME_WAIT_MS = 10_000

/** Lookups are tried this often at first, then less often, up to OUTCOME_RETRY_MAX_MS apart. */
const OUTCOME_RETRY_MS = 100
const OUTCOME_RETRY_MAX_MS = 1_000

/** A write may or may not have been stored, and the store did not answer long enough to find out. */
export class StoreOutcomeUnknown extends Data.TaggedError("StoreOutcomeUnknown")<{ readonly what: string }> {}

/** The write failed as the store became unreachable (a failure or a defect), and it may have run. */
const cutOff = (cause: Cause.Cause<unknown>): boolean =>
  !Cause.isInterruptedOnly(cause) && mayHaveRun(Cause.squash(cause))

/** The lookup could not reach the store (for whatever reason): try again. */
const unreachable = (cause: Cause.Cause<unknown>): boolean =>
  !Cause.isInterruptedOnly(cause) && isUnreachable(Cause.squash(cause))

type Looked<A> = { readonly _tag: "Answered"; readonly found: Option.Option<A> } | { readonly _tag: "Unreachable" }

/**
 * `write`, whose outcome `lookup` reads back when the store became
 * unreachable while it ran (`what` names it in logs and in the unknown
 * outcome). `lookup` must find exactly what `write` would have stored, by a
 * key chosen before `write` was sent; its own store failures are defects
 * (the repositories' `orDie`), of which unreachability is waited out.
 */
export const settled =
  <A, R2>(what: string, lookup: Effect.Effect<Option.Option<A>, never, R2>) =>
  <E, R>(write: Effect.Effect<A, E, R>): Effect.Effect<A, E, R | R2> =>
    Effect.catchAllCause(write, (cause) => {
      if (!cutOff(cause)) return Effect.failCause(cause)
      const once: Effect.Effect<Looked<A>, never, R2> = Effect.matchCauseEffect(lookup, {
        onSuccess: (found) => Effect.succeed({ _tag: "Answered", found } as const),
        onFailure: (failure) =>
          unreachable(failure) ? Effect.succeed({ _tag: "Unreachable" } as const) : Effect.failCause(failure)
      })
      const loop = (deadline: number, wait: number): Effect.Effect<A, E, R2> =>
        Effect.flatMap(once, (looked) => {
          if (looked._tag === "Answered") {
            return Option.match(looked.found, {
              // Not stored: the store's failure stands (503, retry).
              onNone: () => Effect.failCause(cause),
              onSome: (value) =>
                Effect.as(
                  Effect.logWarning(`a ${what} cut off from the store had been stored; answered as stored`),
                  value
                )
            })
          }
          return Effect.flatMap(Clock.currentTimeMillis, (now) =>
            now + wait > deadline
              ? Effect.die(new StoreOutcomeUnknown({ what }))
              : Effect.zipRight(Effect.sleep(wait), loop(deadline, Math.min(OUTCOME_RETRY_MAX_MS, wait * 2)))
          )
        })
      return Effect.flatMap(Clock.currentTimeMillis, (now) => loop(now + OUTCOME_WAIT_MS, OUTCOME_RETRY_MS))
    })
