/**
 * The use cases' side of the repositories' not-found convention: an empty
 * `Option` or a `RowNotFound` becomes the wire's 404 for the named thing.
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { type NotFound, notFound } from "../../schema/Errors.js"
import { RowNotFound } from "./db/RowNotFound.js"

/** The value, or 404 `{what} not found`. */
export const orNotFound =
  (what: string) =>
  <A>(option: Option.Option<A>): Effect.Effect<A, NotFound> =>
    Option.isSome(option) ? Effect.succeed(option.value) : Effect.fail(notFound(what))

/** A repository's RowNotFound as 404 `{what} not found`. */
export const rowNotFoundAs404 = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.catchIf(
    effect,
    (error): error is Extract<E, RowNotFound> => error instanceof RowNotFound,
    (missing) => Effect.fail(notFound(missing.what))
  )
