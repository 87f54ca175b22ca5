import type * as SqlClient from "@effect/sql/SqlClient"
import { SqlError } from "@effect/sql/SqlError"
import * as Cause from "effect/Cause"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Random from "effect/Random"
import { errorCode } from "../ErrorCode.js"

/** The SQLSTATE of a database error, when the driver gave one. */
export const sqlState = (error: SqlError): string | undefined => errorCode(error.cause)

/** A row the statement referenced went away concurrently (foreign key violation, 23503). */
export const isReferenceGone = (error: unknown): boolean => error instanceof SqlError && sqlState(error) === "23503"

/**
 * A row referenced by the statement went away concurrently (foreign key
 * violation, 23503): answer `value` instead, as if the check had failed.
 */
export const whenReferenceGone =
  <B>(value: B) =>
  <A, R>(effect: Effect.Effect<A, SqlError, R>): Effect.Effect<A | B, SqlError, R> =>
    Effect.catchIf(effect, isReferenceGone, () => Effect.succeed(value))

/** PostgreSQL chose this statement's transaction to end a deadlock (40P01): nothing of it was written. */
export const isDeadlockVictim = (error: unknown): boolean => error instanceof SqlError && sqlState(error) === "40P01"

/** The cause is a deadlock's victim, failed or died (a transaction's SqlError is a defect: inTransaction). */
const deadlocked = (cause: Cause.Cause<unknown>): boolean => {
  if (Cause.isInterrupted(cause)) return false
  const failure = Cause.failureOption(cause)
  if (Option.isSome(failure)) return isDeadlockVictim(failure.value)
  const defect = Cause.dieOption(cause)
  return Option.isSome(defect) && isDeadlockVictim(defect.value)
}

/**
 * `effect` again, up to `triesLeft` more times, when PostgreSQL ended it to
 * break a deadlock: the documented remedy. `effect` must be the whole
 * transaction (or a statement outside any): a deadlock's victim is rolled
 * back whole, while a statement tried again inside its aborted transaction
 * only fails again ("current transaction is aborted"). Each try waits 5 to
 * 10 ms more, so the two that met part.
 */
export const retryDeadlock = <A, E, R>(effect: Effect.Effect<A, E, R>, triesLeft = 2): Effect.Effect<A, E, R> =>
  Effect.catchAllCause(effect, (cause) =>
    triesLeft > 0 && deadlocked(cause)
      ? Effect.flatMap(Random.nextIntBetween(5, 10), (ms) =>
          Effect.zipRight(Effect.sleep(Duration.millis(ms * (3 - triesLeft))), retryDeadlock(effect, triesLeft - 1))
        )
      : Effect.failCause(cause)
  )

/**
 * `effect` in a transaction of `sql`: the store's own failures (SqlError,
 * the commit's included) become defects, the effect's errors (a domain
 * failure: not found, a conflict) stay as they were.
 */
export const inTransaction =
  (sql: SqlClient.SqlClient) =>
  <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, Exclude<E, SqlError>, R> =>
    sql.withTransaction(effect).pipe(
      Effect.catchIf(
        (error): error is SqlError => error instanceof SqlError,
        (error) => Effect.die(error)
      )
    )
