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

/**
 * PgBouncer answers a database it cannot find on its server with a protocol
 * violation (08P01, a connection exception) and PostgreSQL's own message; it
 * is the missing database (3D000), not a store that is unreachable for now.
 */
const POOLER_NO_DATABASE = /^database ".*" does not exist$/

/** The SQLSTATE, with a pooler's missing database read as PostgreSQL's (3D000). */
const stateOf = (cause: unknown): string | undefined => {
  const code = errorCode(cause)
  return code === "08P01" && POOLER_NO_DATABASE.test(messageOf(cause)) ? "3D000" : code
}

const messageOf = (cause: unknown): string =>
  cause instanceof Error ? cause.message : typeof cause === "string" ? cause : ""

/**
 * Whether the cause, or one it wraps (`.cause`, an AggregateError's
 * `.errors`: Node reports a refused connection to every address of a host as
 * one), at most 5 deep, is one `judge` says yes to: its first verdict on the
 * way in decides (undefined: look at what it wraps).
 */
const someCause = (cause: unknown, judge: (cause: object) => boolean | undefined, depth = 0): boolean => {
  if (depth > 5 || typeof cause !== "object" || cause === null) return false
  const verdict = judge(cause)
  if (verdict !== undefined) return verdict
  if ("errors" in cause && Array.isArray(cause.errors) && cause.errors.some((e) => someCause(e, judge, depth + 1))) {
    return true
  }
  return "cause" in cause && someCause(cause.cause, judge, depth + 1)
}

/** A cause that says unreachable. */
const unreachable = (cause: object): boolean | undefined => {
  const code = stateOf(cause) ?? ""
  if (NETWORK_CODES.has(code) || UNAVAILABLE_SQLSTATES.has(code) || /^08[0-9A-Z]{3}$/.test(code)) return true
  // A server's error of another SQLSTATE is not unreachability, whatever its message quotes (a client's value).
  if (/^[0-9A-Z]{5}$/.test(code)) return false
  return UNAVAILABLE_MESSAGE.test(messageOf(cause)) ? true : undefined
}

/** The store cannot be reached now (or is shutting down, or starting): it may come back by itself. */
export const isUnreachable = (error: unknown): boolean =>
  error instanceof SqlError && someCause(error.cause, unreachable)

/** Codes of a connection that was never made: nothing of a statement reached the server. */
const NOT_CONNECTED_CODES = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EHOSTDOWN",
  "53300",
  "57P03"
])

/**
 * What node-postgres and @effect/sql-pg say when no connection could be had,
 * or a client already broken refused to send: the statement was never sent.
 */
const NOT_SENT_MESSAGE =
  /^Failed to acquire connection|^PgClient: Failed to connect|timeout exceeded when trying to connect|not queryable/i

/** A cause that says the statement was never sent. */
const notSent = (cause: object): true | undefined =>
  NOT_CONNECTED_CODES.has(stateOf(cause) ?? "") || NOT_SENT_MESSAGE.test(messageOf(cause)) ? true : undefined

/**
 * The store became unreachable while a statement may have been running: the
 * connection was cut, reset or timed out after it was sent, or the server
 * shut down under it. It may have run, and committed (src/platform/db/WriteOutcome.ts).
 * A connection that could not be had is unreachability too, but nothing was sent.
 */
export const mayHaveRun = (error: unknown): boolean =>
  isUnreachable(error) &&
  !(error instanceof SqlError && (NOT_SENT_MESSAGE.test(error.message) || someCause(error.cause, notSent)))

/**
 * One line on why the store could not be opened at start, naming the
 * setting: `where` describes the store (host and database, never the URL's
 * password).
 */
export const describeStoreFailure = (error: unknown, where: string): string | undefined => {
  if (!(error instanceof SqlError)) return undefined
  const code = stateOf(error.cause)
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
