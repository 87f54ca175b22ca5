import * as SqlClient from "@effect/sql/SqlClient"
import { SqlError } from "@effect/sql/SqlError"
import * as PgClient from "@effect/sql-pg/PgClient"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Schedule from "effect/Schedule"
import pg from "pg"
import { AppConfig } from "../Config.js"
import { StartupError } from "../StartupError.js"
import { DatabasePool, type PoolStats } from "./DatabasePool.js"
import { holdDataDirLock } from "./DataDirLock.js"
import { migrate } from "./Migrations.js"
import { PgliteImagePath } from "./PgliteImage.js"
import { describeStoreFailure, isUnreachable } from "./StoreErrors.js"

export type StoreKind =
  | { readonly kind: "postgres"; readonly url: Redacted.Redacted }
  | {
      readonly kind: "embedded"
      /** undefined: in memory (tests) */
      readonly dataDir: string | undefined
    }

const CONNECT_TIMEOUT_MS = 10_000
const QUERY_TIMEOUT_MS = 60_000

const CANCEL_BACKEND = "SELECT pg_cancel_backend("

/**
 * @effect/sql-pg (0.x) cancels an interrupted statement by sending
 * `SELECT pg_cancel_backend(<pid>)` on another connection of the pool. That
 * cancels whatever the backend runs when it arrives: when the interrupted
 * statement has ended meanwhile and its connection has gone back to the
 * pool, another request's statement (the fuzz suite found it: a client that
 * went away made a thread create of another request answer 500, "canceling
 * statement due to user request"). So the pool answers that one query at
 * once without sending it: an interrupted statement runs to its end, which
 * QUERY_TIMEOUT_MS bounds, and its connection serves the next one after.
 */
const withoutBackendCancel = (pool: pg.Pool) => {
  const query = pool.query
  Object.defineProperty(pool, "query", {
    value: function (this: pg.Pool, text: unknown, ...rest: Array<unknown>) {
      if (typeof text === "string" && text.startsWith(CANCEL_BACKEND)) {
        const callback = rest.find((arg) => typeof arg === "function")
        if (typeof callback === "function") queueMicrotask(() => callback(null))
        return undefined
      }
      return Reflect.apply(query, this, [text, ...rest])
    }
  })
}

/**
 * The pool is made here rather than inside PgClient.layer (same settings,
 * same first `SELECT 1`), because PgClient keeps its pool to itself and the
 * pool's counts are wanted for monitoring.
 */
const postgres = (url: Redacted.Redacted, poolMax: number) =>
  Layer.unwrapScoped(
    Effect.gen(function* () {
      const pool = yield* Effect.acquireRelease(
        Effect.sync(() => {
          const made = new pg.Pool({
            connectionString: Redacted.value(url),
            max: poolMax,
            connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
            // A database that goes silent (packets dropped rather than refused) fails a query after this
            // long, as unreachable (503), instead of holding the request, and the shutdown, for ever.
            query_timeout: QUERY_TIMEOUT_MS,
            keepAlive: true,
            application_name: "svc-gateway"
          })
          // An idle connection's error (server restart) is seen by the next query; here it must not throw.
          made.on("error", () => {})
          withoutBackendCancel(made)
          return made
        }),
        (pool) => Effect.promise(() => pool.end()).pipe(Effect.interruptible, Effect.timeoutOption(1000))
      )
      yield* Effect.tryPromise({
        try: () => pool.query("SELECT 1"),
        catch: (cause) => new SqlError({ cause, message: "PgClient: Failed to connect" })
      }).pipe(
        // A server that accepts and never answers: a connect timeout, which the start-up wait retries.
        Effect.timeoutFail({
          duration: CONNECT_TIMEOUT_MS,
          onTimeout: () =>
            new SqlError({
              cause: new Error("timeout exceeded when trying to connect"),
              message: "PgClient: Failed to connect"
            })
        })
      )
      const stats = (): PoolStats => ({
        total: pool.totalCount,
        idle: pool.idleCount,
        waiting: pool.waitingCount,
        max: poolMax
      })
      return Layer.merge(
        PgClient.layerFromPool({ acquire: Effect.succeed(pool), applicationName: "svc-gateway" }),
        Layer.succeed(DatabasePool, { stats: Option.some(stats) })
      )
    })
  )

const client = (store: StoreKind, poolMax: number): Layer.Layer<SqlClient.SqlClient, unknown> =>
  store.kind === "postgres"
    ? postgres(store.url, poolMax)
    : // Loaded only for the embedded store: a PostgreSQL gateway never pays for PGlite's module.
      Layer.unwrapScoped(
        Effect.gen(function* () {
          const Pglite = yield* Effect.promise(() => import("./Pglite.js"))
          if (store.dataDir !== undefined) yield* holdDataDirLock(store.dataDir)
          return Pglite.layer(store.dataDir, yield* PgliteImagePath)
        })
      )

/** A SqlClient over the chosen store, with every migration applied. */
export const layerFor = (store: StoreKind, poolMax = 10): Layer.Layer<SqlClient.SqlClient, unknown> =>
  Layer.tap(client(store, poolMax), (context) => Effect.provide(migrate, context))

/** Host, port and database of a PostgreSQL URL, for messages (never its user or password). */
export const describeStore = (store: StoreKind): string => {
  if (store.kind === "embedded") return `embedded PGlite in ${store.dataDir ?? "memory"}`
  try {
    const url = new URL(Redacted.value(store.url))
    return `PostgreSQL ${url.hostname}:${url.port || "5432"}${url.pathname === "/" ? "" : url.pathname}`
  } catch {
    return "PostgreSQL"
  }
}

/**
 * At start, the store is retried while it is unreachable (PostgreSQL may be
 * starting beside the gateway, as in compose.yaml) with a backoff from 250 ms
 * to 5 s, for at most `timeoutMs`; a failure no wait cures (no such database,
 * refused credentials) ends the start at once. Each wait logs one warning.
 */
export const retryAtStart = <A, E, R>(
  layer: Layer.Layer<A, E, R>,
  store: StoreKind,
  timeoutMs: number
): Layer.Layer<A, E | StartupError, R> => {
  const where = describeStore(store)
  const backoff = Schedule.exponential("250 millis").pipe(
    Schedule.union(Schedule.spaced("5 seconds")),
    Schedule.upTo(Duration.millis(timeoutMs)),
    Schedule.intersect(Schedule.recurWhile(isUnreachable)),
    Schedule.delays,
    // The step that ends the schedule outputs no delay: only real waits are logged.
    Schedule.tapOutput((delay) =>
      Duration.isZero(delay)
        ? Effect.void
        : Effect.logWarning(`storage: ${where} is not reachable yet; retrying in ${Duration.format(delay)}`)
    )
  )
  return Layer.retry(layer, backoff).pipe(
    Layer.catchAll((error) => {
      const message = describeStoreFailure(error, where)
      return Layer.fail(message === undefined ? error : new StartupError({ message }))
    })
  )
}

/** DATABASE_URL set: PostgreSQL; otherwise the embedded store under DATA_DIR. */
export const storeFromConfig: Effect.Effect<StoreKind, never> = Effect.gen(function* () {
  const url = yield* AppConfig.databaseUrl
  if (Option.isSome(url)) return { kind: "postgres", url: url.value } as const
  return { kind: "embedded", dataDir: yield* AppConfig.dataDir } as const
}).pipe(Effect.orDie)

const fromConfig = (retry: boolean): Layer.Layer<SqlClient.SqlClient, unknown> =>
  Layer.unwrapEffect(
    Effect.gen(function* () {
      const store = yield* storeFromConfig
      const poolMax = yield* AppConfig.databasePoolMax.pipe(Effect.orDie)
      const startupTimeoutMs = yield* AppConfig.databaseStartupTimeoutMs.pipe(Effect.orDie)
      yield* Effect.logInfo(`storage: ${describeStore(store)}`)
      return retry && store.kind === "postgres"
        ? retryAtStart(layerFor(store, poolMax), store, startupTimeoutMs)
        : layerFor(store, poolMax)
    })
  )

/** The store of the configuration, opened once: a command (svc) fails at once when it cannot be reached. */
export const layer: Layer.Layer<SqlClient.SqlClient, unknown> = fromConfig(false)

/** The store of the configuration for a long-running gateway: PostgreSQL is waited for at start (retryAtStart). */
export const layerWaitingAtStart: Layer.Layer<SqlClient.SqlClient, unknown> = fromConfig(true)
