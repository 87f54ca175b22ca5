import { isIP } from "node:net"
import * as Config from "effect/Config"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import { Limits } from "../../schema/Limits.js"

/**
 * Settings are validated where they are declared, so that start-up (app/main.ts)
 * can read them all before anything starts and refuse a bad one with a line
 * that names it (src/platform/ConfigErrors.ts). A message says what is expected, never
 * the value (it may be a secret).
 */

/**
 * The settings as the process environment gives them, with an empty (or
 * blank) variable counted as unset: compose files and orchestrators write
 * `NAME=` for a setting left empty, which means "the default", never "the
 * empty string".
 */
export const environment = (env: Readonly<Record<string, string | undefined>> = process.env) =>
  ConfigProvider.fromMap(
    new Map(
      Object.entries(env).flatMap(([name, value]) =>
        value === undefined || value.trim() === "" ? [] : [[name, value] as const]
      )
    ),
    { pathDelim: "_", seqDelim: "," }
  )

/** An integer setting within [min, max]. */
export const integerIn = (name: string, min: number, max: number, fallback: number, unit = "") =>
  Config.string(name).pipe(
    Config.validate({
      message: `must be a whole number${unit} from ${min} to ${max}`,
      validation: (text) => /^\s*-?\d+\s*$/.test(text) && Number(text) >= min && Number(text) <= max
    }),
    Config.map(Number),
    Config.withDefault(fallback)
  )

/** A URL of one of `protocols` (with their colon) naming a host. */
const isUrlOf =
  (...protocols: ReadonlyArray<string>) =>
  (value: string): boolean => {
    if (!URL.canParse(value)) return false
    const url = new URL(value)
    return protocols.includes(url.protocol) && url.hostname !== ""
  }

/** An http:// or https:// URL naming a host. */
export const isHttpUrl = isUrlOf("http:", "https:")

/** A PostgreSQL URL; a message about it never repeats it (it holds the password). */
const isPostgresUrl = isUrlOf("postgres:", "postgresql:")

/** A base URL: an http(s) URL without query or fragment; the trailing slash is dropped. */
const baseUrlSetting = (name: string) =>
  Config.string(name).pipe(
    Config.validate({
      message: "must be an http:// or https:// URL without ?query or #fragment",
      validation: (value) => isHttpUrl(value) && !value.includes("?") && !value.includes("#")
    }),
    Config.map((url) => url.replace(/\/+$/, ""))
  )

const HOSTNAME =
  /^(?=.{1,253}$)([A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/

/** An IP address, or a host name whose last label is not all digits (999.1.1.1 is neither). */
export const isHostOrAddress = (host: string): boolean =>
  isIP(host) !== 0 || (HOSTNAME.test(host) && !/^\d+$/.test(host.split(".").at(-1) ?? ""))

const commaList = (list: string) =>
  list
    .split(",")
    .map((entry) => entry.trim())
    .filter((entry) => entry !== "")

/** The shortest BLOB_SIGNING_SECRET: 32 characters, an HMAC-SHA256 key's worth. */
const BLOB_SECRET_MIN_LENGTH = 32
/** The shortest ADMIN_TOKEN: 32 characters (e.g. `openssl rand -hex 32` gives 64), no guessable word. */
const ADMIN_TOKEN_MIN_LENGTH = 32

const PORT_DEFAULT = 8787
const HOST_DEFAULT = "127.0.0.1"

const port = integerIn("PORT", 0, 65_535, PORT_DEFAULT)
const host = Config.string("HOST").pipe(
  Config.validate({
    message: "must be an IP address or a host name (0.0.0.0: every interface)",
    validation: isHostOrAddress
  }),
  Config.withDefault(HOST_DEFAULT)
)

/**
 * A secret setting, validated as read (a rule applied after the value is
 * wrapped would lose the setting's name in the error).
 */
const secret = (name: string, rule?: { readonly message: string; readonly validation: (value: string) => boolean }) =>
  (rule === undefined ? Config.string(name) : Config.string(name).pipe(Config.validate(rule))).pipe(
    Config.map(Redacted.make)
  )

/** The gateway's configuration keys (logging keys are read in Logging.ts); the README's table lists them all. */
export const AppConfig = {
  /** 0 picks a free port (tests). */
  port,
  host,
  dataDir: Config.nonEmptyString("DATA_DIR").pipe(Config.withDefault("./.data")),
  databaseUrl: Config.option(
    secret("DATABASE_URL", {
      message: "must be a PostgreSQL URL: postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE",
      validation: isPostgresUrl
    })
  ),
  databasePoolMax: integerIn("DATABASE_POOL_MAX", 1, 1_000, 10),
  /** How long start-up keeps trying to reach PostgreSQL (it may be starting too) before it gives up. */
  databaseStartupTimeoutMs: integerIn("DATABASE_STARTUP_TIMEOUT_MS", 0, 3_600_000, 30_000, " of milliseconds"),
  /** Absent or empty: the admin API is off. */
  adminToken: Config.option(
    secret("ADMIN_TOKEN", {
      message: `must be at least ${ADMIN_TOKEN_MIN_LENGTH} characters (e.g. openssl rand -hex 32), or unset: the admin API is off`,
      validation: (value) => value.length >= ADMIN_TOKEN_MIN_LENGTH
    })
  ),
  maxBodyBytes: integerIn("MAX_BODY_BYTES", 1_024, 64 * 1024 * 1024, Limits.body.defaultMaxBytes, " of bytes"),
  apiKeyCacheMs: integerIn("API_KEY_CACHE_MS", 0, 3_600_000, 5_000, " of milliseconds"),
  shutdownTimeoutMs: integerIn("SHUTDOWN_TIMEOUT_MS", 0, 600_000, 10_000, " of milliseconds"),
  /**
   * Proxies whose X-Forwarded-For is believed (comma-separated addresses).
   * Empty: the client address is the socket's peer.
   */
  trustedProxies: Config.string("TRUSTED_PROXIES").pipe(
    Config.validate({
      message: "must be IP addresses separated by commas",
      validation: (list) => commaList(list).every((entry) => isIP(entry) !== 0)
    }),
    Config.withDefault(""),
    Config.map((list) => new Set(commaList(list)))
  ),
  /** An OpenAI-compatible endpoint for thread titles; unset: titles are extractive (no model). */
  titleModelBaseUrl: Config.option(baseUrlSetting("TITLE_MODEL_BASE_URL")),
  titleModelApiKey: Config.option(secret("TITLE_MODEL_API_KEY")),
  titleModel: Config.nonEmptyString("TITLE_MODEL").pipe(Config.withDefault("gpt-4o-mini")),
  /** A model stream that goes this long without a delta fails. */
  titleModelTimeoutMs: integerIn("TITLE_MODEL_TIMEOUT_MS", 1, 600_000, 30_000, " of milliseconds"),
  bootstrap: Config.boolean("BOOTSTRAP_DEFAULT_PROJECT").pipe(Config.withDefault(true)),
  /**
   * The first API key of the project `default` made on an empty store, for
   * unattended installs; unset: one is generated and printed once.
   */
  bootstrapApiKey: Config.option(
    secret("BOOTSTRAP_API_KEY", {
      message: "must be sk_ followed by 32 to 128 letters, digits, - or _",
      validation: (key) => /^sk_[A-Za-z0-9_-]{32,128}$/.test(key)
    })
  ),
  /** Where the local blob store keeps attachments; unset: `${DATA_DIR}/blobs`. */
  blobDir: Config.option(Config.nonEmptyString("BLOB_DIR")),
  /** HMAC key of the local store's signed URLs; unset: generated once and kept in the database. */
  blobSigningSecret: Config.option(
    secret("BLOB_SIGNING_SECRET", {
      message: `must be at least ${BLOB_SECRET_MIN_LENGTH} characters (or empty: generated and kept in the store)`,
      validation: (value) => value.length >= BLOB_SECRET_MIN_LENGTH
    })
  ),
  /** Set: attachments go to this S3 bucket (any S3-compatible endpoint) instead of the local store. */
  s3Bucket: Config.option(Config.string("S3_BUCKET")),
  s3Endpoint: Config.option(baseUrlSetting("S3_ENDPOINT")),
  s3Region: Config.nonEmptyString("S3_REGION").pipe(Config.withDefault("us-east-1")),
  /** Both unset: the AWS SDK's default credential chain (environment, profile, instance role). */
  s3AccessKeyId: Config.option(Config.string("S3_ACCESS_KEY_ID")),
  s3SecretAccessKey: Config.option(secret("S3_SECRET_ACCESS_KEY")),
  s3ForcePathStyle: Config.boolean("S3_FORCE_PATH_STYLE").pipe(Config.withDefault(false)),
  /** The base of the `publicUrl` of an S3 attachment; unset: derived from the endpoint and bucket. */
  s3PublicUrl: Config.option(baseUrlSetting("S3_PUBLIC_URL")),
  /**
   * How often this gateway looks for due jobs (src/platform/jobs/); 0: never on its
   * own (jobs then run only through POST /v1/admin/jobs/{job}/run).
   */
  jobsPollSeconds: integerIn("JOBS_POLL_SECONDS", 0, 3_600, 15, " of seconds"),
  /** How often the retention job runs (once across every gateway on the store). */
  retentionIntervalMinutes: integerIn("RETENTION_INTERVAL_MINUTES", 1, 1_440, 60, " of minutes"),
  /** How long a shorter retention waits before it takes effect. */
  retentionGraceHours: integerIn("RETENTION_GRACE_HOURS", 0, 720, 24, " of hours"),
  /** Threads (or spans, ...) deleted per transaction by the retention job. */
  retentionBatchSize: integerIn("RETENTION_BATCH_SIZE", 1, 10_000, 200),
  /** Webhook destinations on private, loopback or link-local addresses are refused unless this is true. */
  webhookAllowPrivate: Config.boolean("WEBHOOK_ALLOW_PRIVATE").pipe(Config.withDefault(false)),
  /** An OpenAI-compatible endpoint for `model` evaluators; unset: only `rule` evaluators can be made. */
  evaluatorModelBaseUrl: Config.option(baseUrlSetting("EVALUATOR_MODEL_BASE_URL")),
  evaluatorModelApiKey: Config.option(secret("EVALUATOR_MODEL_API_KEY")),
  evaluatorModel: Config.nonEmptyString("EVALUATOR_MODEL").pipe(Config.withDefault("gpt-4o-mini")),
  /** A model call that takes longer fails (and is retried with backoff). */
  evaluatorModelTimeoutMs: integerIn("EVALUATOR_MODEL_TIMEOUT_MS", 1, 600_000, 30_000, " of milliseconds"),
  /** How often the evaluators job runs (once across every gateway on the store). */
  evaluatorIntervalSeconds: integerIn("EVALUATOR_INTERVAL_SECONDS", 1, 86_400, 60, " of seconds"),
  /** A run is evaluated once it is this old (its report and late writers are in). */
  evaluatorRunDelaySeconds: integerIn("EVALUATOR_RUN_DELAY_SECONDS", 0, 86_400, 10, " of seconds"),
  /** A thread is evaluated (by its last user message then) once it is this old. */
  evaluatorThreadDelaySeconds: integerIn("EVALUATOR_THREAD_DELAY_SECONDS", 0, 604_800, 600, " of seconds"),
  /** The first wait before a failed model evaluation is tried again (doubling each time, at most 1 hour). */
  evaluatorRetryBaseSeconds: integerIn("EVALUATOR_RETRY_BASE_SECONDS", 1, 3_600, 30, " of seconds"),
  /** Attempts of a model evaluation before it is recorded as failed. */
  evaluatorMaxAttempts: integerIn("EVALUATOR_MAX_ATTEMPTS", 1, 20, 5),
  /** How often the topics job runs (once across every gateway on the store). */
  topicsIntervalSeconds: integerIn("TOPICS_INTERVAL_SECONDS", 1, 86_400, 600, " of seconds"),
  /** Topics group the threads started in this many last days. */
  topicsWindowDays: integerIn("TOPICS_WINDOW_DAYS", 1, 365, 30, " of days"),
  /** A new thread is placed in a topic once it is this old (its first messages are in). */
  topicsSettleSeconds: integerIn("TOPICS_SETTLE_SECONDS", 0, 86_400, 300, " of seconds"),
  /** A project's topics are grouped again from scratch at least this often (0: at every pass). */
  topicsRefreshHours: integerIn("TOPICS_REFRESH_HOURS", 0, 720, 24, " of hours"),
  /** A full run reads at most this many threads of the window, the most recent. */
  topicsMaxThreads: integerIn("TOPICS_MAX_THREADS", 100, 100_000, 20_000),
  /**
   * An OpenAI-compatible endpoint that names topics and places the threads
   * no topic's words fit; unset: topics are extractive only.
   */
  topicsModelBaseUrl: Config.option(baseUrlSetting("TOPICS_MODEL_BASE_URL")),
  topicsModelApiKey: Config.option(secret("TOPICS_MODEL_API_KEY")),
  topicsModel: Config.nonEmptyString("TOPICS_MODEL").pipe(Config.withDefault("gpt-4o-mini")),
  /** A topics model call that takes longer (reading the answer included) fails: the extractive label stays. */
  topicsModelTimeoutMs: integerIn("TOPICS_MODEL_TIMEOUT_MS", 1, 600_000, 30_000, " of milliseconds"),
  /**
   * The service's public URL: the `iss` of the JWTs it signs. Unset: the
   * address it listens on (`http://HOST:PORT`), right only for local use.
   */
  publicUrl: Config.all([Config.option(baseUrlSetting("PUBLIC_URL")), host, port]).pipe(
    Config.map(([url, host, port]) => Option.getOrElse(url, () => `http://${host}:${port}`))
  )
} as const

/** S3 credentials come in pairs: one without the other is a mistake, not the default chain. */
export const S3CredentialsConfig = Config.all([AppConfig.s3AccessKeyId, AppConfig.s3SecretAccessKey]).pipe(
  Config.validate({
    message: "S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY are set together, or both left unset",
    validation: ([id, secret]) => Option.isSome(id) === Option.isSome(secret)
  })
)
