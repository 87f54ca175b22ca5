/**
 * The database connection pool's figures, for monitoring (protocols/Metrics.ts
 * reads them when Prometheus scrapes). The PostgreSQL store provides them
 * (storage/Database.ts); the embedded store has no pool (one in-process
 * connection), so the default is none.
 */
import * as Context from "effect/Context"
import * as Option from "effect/Option"

/** The pool's figures at one instant (node-postgres' counts). */
export interface PoolStats {
  /** Connections open, idle or busy. */
  readonly total: number
  readonly idle: number
  /** Queries waiting for a connection. */
  readonly waiting: number
  readonly max: number
}

export class DatabasePool extends Context.Reference<DatabasePool>()("svc/DatabasePool", {
  defaultValue: () => ({ stats: Option.none<() => PoolStats>() })
}) {}
