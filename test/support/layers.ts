/**
 * Shared fixtures: a real gateway on a real socket over a real store. Every
 * suite runs on the embedded store; with TEST_DATABASE_URL set, also on
 * PostgreSQL, each suite in a database of its own.
 */

import * as path from "node:path"
import * as HttpServer from "@effect/platform/HttpServer"
import * as SqlClient from "@effect/sql/SqlClient"
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as Redacted from "effect/Redacted"
import * as Scope from "effect/Scope"
import pg from "pg"
import { afterAll, beforeAll, vi } from "vitest"
import { gatewayLayer } from "../../app/Gateway.js"
import { DashboardDir } from "../../protocols/dashboard/Assets.js"
import { environment } from "../../src/platform/Config.js"
import * as Database from "../../src/platform/db/Database.js"
import { LoggingLive } from "../../src/platform/telemetry/Logging.js"
import { TopicWorkerPath } from "../../src/topics/TopicCompute.js"

export const ADMIN_TOKEN = "test-admin-token-0123456789abcdefghij"

export interface StoreUnderTest {
  readonly name: "pglite" | "postgres"
  /** A fresh store for one suite, and how to drop it. */
  readonly make: () => Promise<{ readonly store: Database.StoreKind; readonly drop: () => Promise<void> }>
}

export const pglite: StoreUnderTest = {
  name: "pglite",
  make: async () => ({ store: { kind: "embedded", dataDir: undefined }, drop: async () => {} })
}

/** A database of its own on the server of TEST_DATABASE_URL. */
export const freshPostgresDatabase = async (baseUrl: string) => {
  const name = `svc_test_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`
  const admin = new pg.Client({ connectionString: baseUrl })
  await admin.connect()
  await admin.query(`CREATE DATABASE ${name}`)
  await admin.end()
  const url = new URL(baseUrl)
  url.pathname = `/${name}`
  return {
    url: url.toString(),
    drop: async () => {
      const client = new pg.Client({ connectionString: baseUrl })
      await client.connect()
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
      await client.end()
    }
  }
}

const postgres = (baseUrl: string): StoreUnderTest => ({
  name: "postgres",
  make: async () => {
    const db = await freshPostgresDatabase(baseUrl)
    return { store: { kind: "postgres", url: Redacted.make(db.url) }, drop: db.drop }
  }
})

/**
 * TEST_STORES=postgres leaves the embedded store out of the suites that run
 * on every store: .ci/run's pass through PgBouncer (transaction pooling)
 * runs the PostgreSQL side alone.
 */
const onlyPostgres = process.env.TEST_STORES === "postgres"
if (onlyPostgres && !process.env.TEST_DATABASE_URL) throw new Error("TEST_STORES=postgres needs TEST_DATABASE_URL")

export const stores: ReadonlyArray<StoreUnderTest> = process.env.TEST_DATABASE_URL
  ? onlyPostgres
    ? [postgres(process.env.TEST_DATABASE_URL)]
    : [pglite, postgres(process.env.TEST_DATABASE_URL)]
  : [pglite]

/**
 * The stores of the suites whose subject does not depend on the store (the
 * client library over the gateway, the CLI commands of the settings plane,
 * whose services the REST suites run on every store): the embedded store,
 * and PostgreSQL too with TEST_ALL_STORES=1, which CI sets (.ci/run). A
 * local `npm test` with TEST_DATABASE_URL stays quicker without it.
 */
export const allStores = process.env.TEST_ALL_STORES === "1"
export const clientStores: ReadonlyArray<StoreUnderTest> = allStores ? stores : stores.slice(0, 1)

/**
 * The gateway's clock in tests: real time shifted by `offsetMs`, which a test
 * moves to put itself where it needs to be (the start of a rate-limit
 * minute, five minutes after a token was issued, next month) instead of
 * waiting. Services read time through their Clock; sleeps are real.
 */
export class ShiftableClock implements Clock.Clock {
  readonly [Clock.ClockTypeId]: Clock.ClockTypeId = Clock.ClockTypeId
  offsetMs = 0
  private readonly real = Clock.make()
  unsafeCurrentTimeMillis(): number {
    return this.real.unsafeCurrentTimeMillis() + this.offsetMs
  }
  unsafeCurrentTimeNanos(): bigint {
    return this.real.unsafeCurrentTimeNanos() + BigInt(this.offsetMs) * 1_000_000n
  }
  get currentTimeMillis(): Effect.Effect<number> {
    return Effect.sync(() => this.unsafeCurrentTimeMillis())
  }
  get currentTimeNanos(): Effect.Effect<bigint> {
    return Effect.sync(() => this.unsafeCurrentTimeNanos())
  }
  sleep(duration: Duration.Duration): Effect.Effect<void> {
    return this.real.sleep(duration)
  }
  /** Moves the clock by `ms` (forward or back). */
  advance(ms: number): void {
    this.offsetMs += ms
  }
  /** Puts the clock `intoMs` into the next window of `windowMs` (a fresh rate-limit minute, say). */
  toNextWindow(windowMs: number, intoMs = 1_000): void {
    const now = this.unsafeCurrentTimeMillis()
    this.advance(Math.ceil((now + 1) / windowMs) * windowMs + intoMs - now)
  }
}

export interface Gateway {
  readonly baseUrl: string
  /** The gateway's clock (real time until a test moves it). */
  readonly clock: ShiftableClock
  /** Runs SQL on the gateway's own store (fixtures a client cannot make, e.g. an expired key). */
  readonly sql: <Row extends object = Record<string, unknown>>(
    text: string,
    params?: ReadonlyArray<unknown>
  ) => Promise<ReadonlyArray<Row>>
  readonly close: () => Promise<void>
}

/** A gateway startGateway started: with its store and configuration, for `svc` run on them (test/support/cli-harness.ts). */
export interface StartedGateway extends Gateway {
  /** The gateway's store client itself. */
  readonly sqlClient: SqlClient.SqlClient
  /** The configuration the gateway was started with (`env` over the test defaults). */
  readonly env: Readonly<Record<string, string>>
}

export interface GatewayOptions {
  /** Log as `npm start` does (LoggingLive: LOG_FORMAT and LOG_LEVEL from `env`, to the console) instead of not at all. */
  readonly logging?: boolean
  /**
   * Where to keep what the gateway logs at ERROR (a 500's cause, pretty-printed), so
   * that a suite can show why a request failed when logging is otherwise off.
   */
  readonly errors?: Array<string>
}

/** A logger that keeps ERROR lines, with their causes, in `into`. */
const errorsInto = (into: Array<string>) =>
  Logger.add(
    Logger.make(({ logLevel, message, cause, date }) => {
      if (!LogLevel.greaterThanEqual(logLevel, LogLevel.Error)) return
      const text = Array.isArray(message) ? message.map(String).join(" ") : String(message)
      into.push(`${date.toISOString()} ${text}${Cause.isEmpty(cause) ? "" : `\n${Cause.pretty(cause)}`}`)
    })
  )

/** Starts the whole gateway on 127.0.0.1:<free port>. */
export const startGateway = async (
  store: Database.StoreKind,
  env: Record<string, string> = {},
  options: GatewayOptions = {}
): Promise<StartedGateway> => {
  const clock = new ShiftableClock()
  const settings = { ADMIN_TOKEN, BOOTSTRAP_DEFAULT_PROJECT: "false", PORT: "0", HOST: "127.0.0.1", ...env }
  // Read as the gateway reads its environment (an empty setting is unset).
  const config = environment(settings)
  const layer = gatewayLayer(Database.layerFor(store, 5)).pipe(
    // The page the global setup built (dist/dashboard), as `npm start` serves it.
    Layer.provide(Layer.succeed(DashboardDir, path.resolve(import.meta.dirname, "..", "..", "dist", "dashboard"))),
    // The topics job's worker, as built by the global setup.
    Layer.provide(
      Layer.succeed(TopicWorkerPath, path.resolve(import.meta.dirname, "..", "..", "dist", "topics-worker.js"))
    ),
    Layer.provide(options.logging ? LoggingLive : Layer.empty),
    Layer.provide(options.errors === undefined ? Layer.empty : errorsInto(options.errors)),
    Layer.provide(
      Logger.minimumLogLevel(
        process.env.TEST_LOG ? LogLevel.Debug : options.errors === undefined ? LogLevel.None : LogLevel.Error
      )
    ),
    Layer.provide(Layer.setClock(clock)),
    Layer.provide(Layer.setConfigProvider(config))
  )
  const scope = Effect.runSync(Scope.make())
  const context = await Effect.runPromise(Layer.buildWithScope(layer, scope))
  const server = Effect.runSync(Effect.provide(HttpServer.HttpServer, context))
  const address = server.address
  if (address._tag !== "TcpAddress") throw new Error("expected a TCP address")
  const sqlClient = Effect.runSync(Effect.provide(SqlClient.SqlClient, context))
  return {
    baseUrl: `http://127.0.0.1:${address.port}`,
    clock,
    sql: <Row extends object>(text: string, params: ReadonlyArray<unknown> = []) =>
      Effect.runPromise(sqlClient.unsafe<Row>(text, params)),
    sqlClient,
    env: settings,
    close: () => Effect.runPromise(Scope.close(scope, Exit.void))
  }
}

export interface Reply<T = any> {
  readonly status: number
  readonly headers: Headers
  readonly body: T
  readonly text: string
}

export interface CallOptions {
  readonly body?: unknown
  /** A raw body sent as is (with its own content type header). */
  readonly raw?: string
  readonly headers?: Record<string, string>
}

/** One HTTP call; the body is parsed when it is JSON. */
export const call = async (
  baseUrl: string,
  method: string,
  path: string,
  options: CallOptions = {}
): Promise<Reply> => {
  const headers: Record<string, string> = { ...options.headers }
  let body: string | undefined
  if (options.raw !== undefined) body = options.raw
  else if (options.body !== undefined) {
    body = JSON.stringify(options.body)
    headers["content-type"] ??= "application/json"
  }
  const response = await fetch(`${baseUrl}${path}`, { method, headers, ...(body === undefined ? {} : { body }) })
  const text = await response.text()
  let parsed: unknown
  try {
    parsed = text === "" ? undefined : JSON.parse(text)
  } catch {
    parsed = undefined
  }
  return { status: response.status, headers: response.headers, body: parsed, text }
}

export const admin = (gateway: Gateway) => (method: string, path: string, body?: unknown) =>
  call(gateway.baseUrl, method, `/v1/admin${path}`, {
    ...(body === undefined ? {} : { body }),
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` }
  })

/** A new project through the admin API: its id and first API key. */
export const createProject = async (gateway: Gateway, name = "test") => {
  const reply = await admin(gateway)("POST", "/projects", { name })
  if (reply.status !== 201) throw new Error(`project create failed: ${reply.status} ${reply.text}`)
  return reply.body as { project_id: string; api_key: string }
}

/** A client acting as one user in one workspace with an API key. */
export const asUser =
  (gateway: Gateway, apiKey: string, userId: string, workspaceId: string) =>
  (method: string, path: string, options: CallOptions = {}) =>
    call(gateway.baseUrl, method, `/v1${path}`, {
      ...options,
      headers: {
        authorization: `Bearer ${apiKey}`,
        "svc-user-id": userId,
        "svc-workspace-id": workspaceId,
        ...options.headers
      }
    })

export type UserClient = ReturnType<typeof asUser>

export const NOW = "2026-11-22T10:15:30.123Z"

/**
 * One gateway for a suite on a fresh store: started before its tests, closed
 * (and its database dropped) after them. Read `.current` inside tests.
 */
/**
 * A store of its own for a suite that works on the store itself (no
 * gateway): made before its tests, its SQL client in `.sql`, dropped after.
 */
export const useStore = (storeUnderTest: StoreUnderTest, poolSize = 4) => {
  const handle: { sql: SqlClient.SqlClient | undefined } = { sql: undefined }
  let close = async () => {}
  beforeAll(async () => {
    const made = await storeUnderTest.make()
    const scope = Effect.runSync(Scope.make())
    const context = await Effect.runPromise(Layer.buildWithScope(Database.layerFor(made.store, poolSize), scope))
    handle.sql = Effect.runSync(Effect.provide(SqlClient.SqlClient, context))
    close = async () => {
      await Effect.runPromise(Scope.close(scope, Exit.void))
      await made.drop()
    }
  })
  afterAll(() => close())
  return {
    get sql(): SqlClient.SqlClient {
      if (handle.sql === undefined) throw new Error("the store is not open yet (read .sql inside tests)")
      return handle.sql
    }
  }
}

/** The console lines written while a suite runs (LoggingLive writes with console.log); the console stays quiet. */
export const captureConsole = (): Array<string> => {
  const lines: Array<string> = []
  let spy: { mockRestore: () => void } | undefined
  beforeAll(() => {
    spy = vi.spyOn(console, "log").mockImplementation((...args: Array<unknown>) => {
      lines.push(args.map(String).join(" "))
    })
  })
  afterAll(() => spy?.mockRestore())
  return lines
}

export const useGateway = (
  storeUnderTest: StoreUnderTest,
  /** The configuration, or how to make it when the gateway starts (from what other hooks set up first). */
  env: Record<string, string> | (() => Record<string, string>) = {},
  options: GatewayOptions = {}
) => {
  const handle: { current: Gateway; store: Database.StoreKind } = {
    store: { kind: "embedded", dataDir: undefined },
    current: {
      baseUrl: "",
      clock: new ShiftableClock(),
      sql: () => Promise.reject(new Error("gateway not started")),
      close: async () => {}
    }
  }
  let drop = async () => {}
  beforeAll(async () => {
    const made = await storeUnderTest.make()
    drop = made.drop
    handle.store = made.store
    handle.current = await startGateway(made.store, typeof env === "function" ? env() : env, options)
  })
  afterAll(async () => {
    await handle.current.close()
    await drop()
  })
  return handle
}
