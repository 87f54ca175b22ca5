/**
 * What a database failure says about the store: unreachable for now (retry:
 * 503 to a request, a retry at start), or a fault of its configuration (the
 * database or role does not exist, a wrong password: no retry helps).
 */
import { SqlError } from "@effect/sql/SqlError"
import { errorCode } from "../ErrorCode.js"

/** Network errors of the driver (node:net and DNS codes). */
const NETWORK_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ECONNABORTED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EHOSTDOWN",
  "EPIPE"
])

/**
 * SQLSTATEs of a server that is going away or not taking connections yet:
 * class 08 (connection exceptions), admin/crash shutdown, starting up, too
 * many connections.
 */
const UNAVAILABLE_SQLSTATES = new Set(["57P01", "57P02", "57P03", "53300"])

/** What node-postgres and @effect/sql-pg say on a connect or read timeout, or a connection cut mid-way. */
const UNAVAILABLE_MESSAGE =
  /connection timed out|timeout exceeded when trying to connect|connection terminated|connection timeout|client has encountered a connection error|connection is closed|query read timeout/i

const messageOf = (cause: unknown): string =>
  cause instanceof Error ? cause.message : typeof cause === "string" ? cause : ""

/** The cause, or one it wraps (`.cause`, an AggregateError's `.errors`), at most 5 deep, says unreachable. */
const unreachableCause = (cause: unknown, depth: number): boolean => {
  if (depth > 5 || typeof cause !== "object" || cause === null) return false
  const code = errorCode(cause) ?? ""
  if (NETWORK_CODES.has(code) || UNAVAILABLE_SQLSTATES.has(code) || /^08[0-9A-Z]{3}$/.test(code)) return true
  // A server's error of another SQLSTATE is not unreachability, whatever its message quotes (a client's value).
  if (/^[0-9A-Z]{5}$/.test(code)) return false
  if (UNAVAILABLE_MESSAGE.test(messageOf(cause))) return true
  // Node reports a refused connection to every address of a host as an AggregateError.
  if ("errors" in cause && Array.isArray(cause.errors) && cause.errors.some((e) => unreachableCause(e, depth + 1))) {
    return true
  }
  return "cause" in cause && unreachableCause(cause.cause, depth + 1)
}

/** The store cannot be reached now (or is shutting down, or starting): it may come back by itself. */
export const isUnreachable = (error: unknown): boolean => error instanceof SqlError && unreachableCause(error.cause, 0)

/**
 * One line on why the store could not be opened at start, naming the
 * setting: `where` describes the store (host and database, never the URL's
 * password).
 */
export const describeStoreFailure = (error: unknown, where: string): string | undefined => {
  if (!(error instanceof SqlError)) return undefined
  const code = errorCode(error.cause)
  const reason = messageOf(error.cause) || error.message
  switch (code) {
    case "3D000":
      return `the database of DATABASE_URL does not exist (${where}): create it (createdb, or CREATE DATABASE) or fix DATABASE_URL`
    case "28000":
    case "28P01":
      return `PostgreSQL refused the credentials of DATABASE_URL (${where}): ${reason}`
    case "ENOTFOUND":
    case "EAI_AGAIN":
      return `the host of DATABASE_URL cannot be resolved (${where}): fix DATABASE_URL, or start the database`
    case "ECONNREFUSED":
      return `nothing answers at DATABASE_URL's address (${where}): start PostgreSQL, or fix DATABASE_URL`
  }
  if (isUnreachable(error)) return `PostgreSQL could not be reached (${where}): ${reason}`
  return undefined
}
