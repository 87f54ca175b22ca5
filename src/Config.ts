import * as Config from "effect/Config"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { Limits } from "../schema/Limits.js"

/** The gateway's configuration keys (logging keys are read in Logging.ts); the README's table lists them all. */
export const AppConfig = {
  /** 0 picks a free port (tests). */
  port: Config.integer("PORT").pipe(
    Config.validate({ message: "PORT must be 0 to 65535", validation: (port) => port >= 0 && port <= 65_535 }),
    Config.withDefault(8787)
  ),
  host: Config.string("HOST").pipe(Config.withDefault("127.0.0.1")),
  dataDir: Config.string("DATA_DIR").pipe(Config.withDefault("./.data")),
  databaseUrl: Config.option(Config.redacted("DATABASE_URL")),
  databasePoolMax: Config.integer("DATABASE_POOL_MAX").pipe(Config.withDefault(10)),
  /** Absent or empty: the admin API is off. */
  /** A JWK Set of private signing keys; unset: a key is generated and kept in the store. */
  signingKeys: Config.option(Config.redacted("JWT_SIGNING_KEYS")),
  adminToken: Config.option(Config.redacted("ADMIN_TOKEN")).pipe(
    Config.map(Option.filter((token) => Redacted.value(token).trim() !== ""))
  ),
  maxBodyBytes: Config.integer("MAX_BODY_BYTES").pipe(
    Config.validate({ message: "MAX_BODY_BYTES must be positive", validation: (bytes) => bytes > 0 }),
    Config.withDefault(Limits.body.defaultMaxBytes)
  ),
  apiKeyCacheMs: Config.integer("API_KEY_CACHE_MS").pipe(Config.withDefault(5_000)),
  shutdownTimeoutMs: Config.integer("SHUTDOWN_TIMEOUT_MS").pipe(Config.withDefault(10_000)),
  /**
   * Proxies whose X-Forwarded-For is believed (comma-separated addresses).
   * Empty: the client address is the socket's peer.
   */
  trustedProxies: Config.string("TRUSTED_PROXIES").pipe(
    Config.withDefault(""),
    Config.map(
      (list) =>
        new Set(
          list
            .split(",")
            .map((entry) => entry.trim())
            .filter((entry) => entry !== "")
        )
    )
  ),
  /** An OpenAI-compatible endpoint for thread titles; unset: titles are extractive (no model). */
  titleModelBaseUrl: Config.option(Config.string("TITLE_MODEL_BASE_URL")),
  titleModelApiKey: Config.option(Config.redacted("TITLE_MODEL_API_KEY")),
  titleModel: Config.string("TITLE_MODEL").pipe(Config.withDefault("gpt-4o-mini")),
  /** A model stream that goes this long without a delta fails. */
  titleModelTimeoutMs: Config.integer("TITLE_MODEL_TIMEOUT_MS").pipe(Config.withDefault(30_000)),
  bootstrap: Config.boolean("BOOTSTRAP_DEFAULT_PROJECT").pipe(Config.withDefault(true)),
  /** Where the local blob store keeps attachments; unset: `${DATA_DIR}/blobs`. */
  blobDir: Config.option(Config.string("BLOB_DIR")),
  /** HMAC key of the local store's signed URLs; unset: generated once and kept in the database. */
  blobSigningSecret: Config.option(Config.redacted("BLOB_SIGNING_SECRET")).pipe(
    Config.map(Option.filter((secret) => Redacted.value(secret).trim() !== ""))
  ),
  /** Set: attachments go to this S3 bucket (any S3-compatible endpoint) instead of the local store. */
  s3Bucket: Config.option(Config.string("S3_BUCKET")).pipe(Config.map(Option.filter((bucket) => bucket !== ""))),
  s3Endpoint: Config.option(Config.string("S3_ENDPOINT")),
  s3Region: Config.string("S3_REGION").pipe(Config.withDefault("us-east-1")),
  /** Both unset: the AWS SDK's default credential chain (environment, profile, instance role). */
  s3AccessKeyId: Config.option(Config.string("S3_ACCESS_KEY_ID")),
  s3SecretAccessKey: Config.option(Config.redacted("S3_SECRET_ACCESS_KEY")),
  s3ForcePathStyle: Config.boolean("S3_FORCE_PATH_STYLE").pipe(Config.withDefault(false)),
  /** The base of the `publicUrl` of an S3 attachment; unset: derived from the endpoint and bucket. */
  s3PublicUrl: Config.option(Config.string("S3_PUBLIC_URL")),
  /**
   * The service's public URL: the `iss` of the JWTs it signs. Unset: the
   * address it listens on (`http://HOST:PORT`), right only for local use.
   */
  publicUrl: Config.string("PUBLIC_URL").pipe(
    Config.orElse(() =>
      Config.all([
        Config.string("HOST").pipe(Config.withDefault("127.0.0.1")),
        Config.integer("PORT").pipe(Config.withDefault(8787))
      ]).pipe(Config.map(([host, port]) => `http://${host}:${port}`))
    ),
    Config.map((url) => url.replace(/\/$/, ""))
  )
} as const
