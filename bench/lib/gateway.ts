/**
 * The whole gateway in the bench's own process on 127.0.0.1:<free port>, as
 * test/support/layers.ts starts it for the tests (without vitest), on the store the
 * bench is given: PostgreSQL with BENCH_DATABASE_URL (a server URL: a fresh
 * database is made, and dropped after), else the embedded store in a
 * temporary directory.
 */

import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as HttpServer from "@effect/platform/HttpServer"
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as Redacted from "effect/Redacted"
import * as Scope from "effect/Scope"
import { gatewayLayer } from "../../app/Gateway.js"
import { environment } from "../../src/platform/Config.js"
import * as Database from "../../src/platform/db/Database.js"
import { TopicWorkerPath } from "../../src/topics/TopicCompute.js"
import { createDatabase } from "./db.js"

export const ADMIN_TOKEN = "bench-admin-token-0123456789abcdefghij"

export interface InProcessGateway {
  readonly baseUrl: string
  readonly sql: (text: string, params?: ReadonlyArray<unknown>) => Promise<ReadonlyArray<Record<string, unknown>>>
  readonly close: () => Promise<void>
}

export const startGateway = async (
  store: Database.StoreKind,
  env: Record<string, string>
): Promise<InProcessGateway> => {
  const config = environment({ ADMIN_TOKEN, BOOTSTRAP_DEFAULT_PROJECT: "false", PORT: "0", HOST: "127.0.0.1", ...env })
  const layer = gatewayLayer(Database.layerFor(store, 10)).pipe(
    Layer.provide(Logger.minimumLogLevel(LogLevel.None)),
    Layer.provide(
      Layer.succeed(TopicWorkerPath, path.resolve(import.meta.dirname, "..", "..", "dist", "topics-worker.js"))
    ),
    Layer.provide(Layer.setConfigProvider(config))
  )
  const scope = Effect.runSync(Scope.make())
  const context = await Effect.runPromise(Layer.buildWithScope(layer, scope))
  const address = Effect.runSync(Effect.provide(HttpServer.HttpServer, context)).address
  if (address._tag !== "TcpAddress") throw new Error("expected a TCP address")
  const sqlClient = Effect.runSync(Effect.provide(SqlClient.SqlClient, context))
  return {
    baseUrl: `http://127.0.0.1:${address.port}`,
    sql: (text, params = []) => Effect.runPromise(sqlClient.unsafe(text, params)),
    close: () => Effect.runPromise(Scope.close(scope, Exit.void))
  }
}

/** The bench's store (see above), and how to drop it. */
export const benchStore = async (
  name: string
): Promise<{ readonly store: Database.StoreKind; readonly drop: () => Promise<void> }> => {
  const base = process.env.BENCH_DATABASE_URL
  if (base === undefined) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), `svc-bench-${name}-`))
    return {
      store: { kind: "embedded", dataDir: dir },
      drop: async () => fs.rmSync(dir, { recursive: true, force: true })
    }
  }
  const db = await createDatabase(base)
  return { store: { kind: "postgres", url: Redacted.make(db.url) }, drop: db.drop }
}
