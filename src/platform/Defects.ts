/**
 * What a defect that reached a protocol was. A protocol answers every defect
 * as 500 except what this module recognizes: the client's doing
 * (`isUnstorableValue`), or a store that cannot be reached now (`isStoreUnavailable`).
 */
import { SqlError } from "@effect/sql/SqlError"
import { DataDirLocked } from "./db/DataDirLock.js"
import { sqlState } from "./db/SqlErrors.js"
import { isUnreachable } from "./db/StoreErrors.js"
import { StoreOutcomeUnknown } from "./db/WriteOutcome.js"

/**
 * SQLSTATEs of values PostgreSQL refuses (bad text encoding, NUL, malformed
 * JSON, too deep, dates out of its range). The schemas refuse these first;
 * a value they miss is still the client's (400), not a fault (500).
 */
const UNSTORABLE_SQLSTATES = new Set(["22P05", "22021", "22P02", "22001", "54001", "22007", "22008", "22009"])

/** The database refused a value of the request as it was sent. */
export const isUnstorableValue = (defect: unknown): boolean =>
  defect instanceof SqlError && UNSTORABLE_SQLSTATES.has(sqlState(defect) ?? "")

/**
 * The store cannot be used now, through no fault of the request: the embedded
 * store is held by another process, or a database error whose cause is a
 * network failure, a server shutting down or refusing connections, or a cut
 * connection (storage/StoreErrors.ts `isUnreachable`). The same codes outside
 * a `SqlError` (a JWKS fetch, S3) are not the store's.
 */
export const isStoreUnavailable = (defect: unknown): boolean => defect instanceof DataDirLocked || isUnreachable(defect)

/**
 * A write cut off from the store whose outcome the store did not answer in
 * time to tell (src/platform/db/WriteOutcome.ts): what was being written
 * ("message", "run report"), else undefined.
 */
export const unknownWriteOf = (defect: unknown): string | undefined =>
  defect instanceof StoreOutcomeUnknown ? defect.what : undefined
