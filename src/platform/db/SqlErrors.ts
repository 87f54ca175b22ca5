import type * as SqlClient from "@effect/sql/SqlClient"
import { SqlError } from "@effect/sql/SqlError"
import * as Effect from "effect/Effect"
import * as Schedule from "effect/Schedule"
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

/**
 * `effect` (one statement, or a transaction it wholly is) again, up to twice
 * more, when PostgreSQL ended it to break a deadlock: the documented remedy,
 * safe because a deadlock's victim is rolled back whole. Each try waits a
 * few milliseconds more (with jitter), so the two that met part.
 */
export const retryDeadlock = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.retry(effect, {
    while: isDeadlockVictim,
    times: 2,
    schedule: Schedule.jittered(Schedule.exponential("5 millis"))
  })

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
