/**
 * What a defect that reached a protocol was. A protocol answers every defect
 * as 500 except what this module recognizes as the client's doing.
 */
import { SqlError } from "@effect/sql/SqlError"
import { sqlState } from "./storage/SqlErrors.js"

/**
 * SQLSTATEs of values PostgreSQL refuses (bad text encoding, NUL, malformed
 * JSON, too deep, dates out of its range). The schemas refuse these first;
 * a value they miss is still the client's (400), not a fault (500).
 */
const UNSTORABLE_SQLSTATES = new Set(["22P05", "22021", "22P02", "22001", "54001", "22007", "22008", "22009"])

/** The database refused a value of the request as it was sent. */
export const isUnstorableValue = (defect: unknown): boolean =>
  defect instanceof SqlError && UNSTORABLE_SQLSTATES.has(sqlState(defect) ?? "")
