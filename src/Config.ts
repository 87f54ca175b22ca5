import * as Config from "effect/Config"

/** Every configuration key of the gateway; the README's table lists the same. */
export const AppConfig = {
  port: Config.port("PORT").pipe(Config.withDefault(8787)),
  host: Config.string("HOST").pipe(Config.withDefault("127.0.0.1")),
  dataDir: Config.string("DATA_DIR").pipe(Config.withDefault("./.data")),
  databaseUrl: Config.option(Config.redacted("DATABASE_URL")),
  databasePoolMax: Config.integer("DATABASE_POOL_MAX").pipe(Config.withDefault(10)),
  adminToken: Config.option(Config.redacted("ADMIN_TOKEN")),
  maxBodyBytes: Config.integer("MAX_BODY_BYTES").pipe(Config.withDefault(1024 * 1024)),
  apiKeyCacheMs: Config.integer("API_KEY_CACHE_MS").pipe(Config.withDefault(5_000)),
  shutdownTimeoutMs: Config.integer("SHUTDOWN_TIMEOUT_MS").pipe(Config.withDefault(10_000)),
  bootstrap: Config.boolean("BOOTSTRAP_DEFAULT_PROJECT").pipe(Config.withDefault(true))
} as const
