import * as Data from "effect/Data"
import * as Effect from "effect/Effect"

/**
 * The repositories' one way of saying a write found nothing to write to: the
 * row it needs is not there, or not in the caller's scope (`what` names it).
 * Reads of one row answer `Option` instead. The use case decides what the
 * caller hears (usually 404, see `src/platform/Found.ts`).
 */
export class RowNotFound extends Data.TaggedError("RowNotFound")<{ readonly what: string }> {}

/** A write's returned rows: none means the row `what` was not there. */
export const foundOrFail =
  (what: string) =>
  <A>(rows: ReadonlyArray<A>): Effect.Effect<void, RowNotFound> =>
    rows.length > 0 ? Effect.void : Effect.fail(new RowNotFound({ what }))
