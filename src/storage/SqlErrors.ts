import { SqlError } from "@effect/sql/SqlError"
import * as Effect from "effect/Effect"
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
