import * as SqlClient from "@effect/sql/SqlClient"
import * as PgClient from "@effect/sql-pg/PgClient"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { AppConfig } from "../Config.js"
import { holdDataDirLock } from "./DataDirLock.js"
import { migrate } from "./Migrations.js"
import * as Pglite from "./Pglite.js"

export type StoreKind =
  | { readonly kind: "postgres"; readonly url: Redacted.Redacted }
  | {
      readonly kind: "embedded"
      /** undefined: in memory (tests) */
      readonly dataDir: string | undefined
    }

const client = (store: StoreKind, poolMax: number): Layer.Layer<SqlClient.SqlClient, unknown> =>
  store.kind === "postgres"
    ? PgClient.layer({
        url: store.url,
        maxConnections: poolMax,
        connectTimeout: Duration.seconds(10),
        applicationName: "svc-gateway"
      })
    : store.dataDir === undefined
      ? Pglite.layer(undefined)
      : Layer.unwrapScoped(Effect.map(holdDataDirLock(store.dataDir), () => Pglite.layer(store.dataDir)))

/** A SqlClient over the chosen store, with every migration applied. */
export const layerFor = (store: StoreKind, poolMax = 10): Layer.Layer<SqlClient.SqlClient, unknown> =>
  Layer.tap(client(store, poolMax), (context) => Effect.provide(migrate, context))

/** DATABASE_URL set: PostgreSQL; otherwise the embedded store under DATA_DIR. */
export const storeFromConfig: Effect.Effect<StoreKind, never> = Effect.gen(function* () {
  const url = yield* AppConfig.databaseUrl
  if (Option.isSome(url)) return { kind: "postgres", url: url.value } as const
  return { kind: "embedded", dataDir: yield* AppConfig.dataDir } as const
}).pipe(Effect.orDie)

export const layer: Layer.Layer<SqlClient.SqlClient, unknown> = Layer.unwrapEffect(
  Effect.gen(function* () {
    const store = yield* storeFromConfig
    const poolMax = yield* AppConfig.databasePoolMax.pipe(Effect.orDie)
    yield* Effect.logInfo(
      store.kind === "postgres" ? "storage: PostgreSQL" : `storage: embedded PGlite in ${store.dataDir}`
    )
    return layerFor(store, poolMax)
  })
)
