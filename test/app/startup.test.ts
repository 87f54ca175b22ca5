/**
 * A start that cannot go on says why in one line (what, which setting, how to
 * fix) and exits 1; every setting is validated before anything starts.
 */

import { generateKeyPairSync } from "node:crypto"
import * as fs from "node:fs"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import { afterAll, describe, expect, it } from "vitest"
import { AllSettings, describeStartupFailure } from "../../app/Startup.js"
import { environment } from "../../src/platform/Config.js"
import { runGatewayToExit, spawnGateway } from "../support/process.js"

/** The settings read as the gateway reads its environment (src/platform/Config.ts `environment`: empty is unset). */
const settingsError = (env: Record<string, string>) => {
  const result = Effect.runSync(Effect.either(Effect.withConfigProvider(AllSettings, environment(env))))
  return Either.isLeft(result) ? describeStartupFailure(Cause.fail(result.left)) : undefined
}

/** A JWK Set of one generated key of `alg`, as JSON, and the key's parts to spoil. */
const jwks = (alg: "ES256" | "EdDSA", change: Record<string, unknown> = {}) => {
  const { privateKey } =
    alg === "ES256" ? generateKeyPairSync("ec", { namedCurve: "P-256" }) : generateKeyPairSync("ed25519")
  return JSON.stringify({ keys: [{ ...privateKey.export({ format: "jwk" }), kid: `k-${alg}`, alg, ...change }] })
}

describe("settings are validated before the start", () => {
  it("accepts the defaults", () => {
    expect(settingsError({})).toBeUndefined()
  })

  // Each bad value, and what its line must name.
  const cases: ReadonlyArray<[Record<string, string>, RegExp]> = [
    [{ PORT: "abc" }, /PORT must be a whole number from 0 to 65535/],
    [{ PORT: "70000" }, /PORT must be a whole number from 0 to 65535/],
    [{ HOST: "999.1.1.1" }, /HOST must be an IP address or a host name/],
    [{ MAX_BODY_BYTES: "-5" }, /MAX_BODY_BYTES must be a whole number of bytes from 1024/],
    [{ PUBLIC_URL: "notaurl" }, /PUBLIC_URL must be an http:\/\/ or https:\/\/ URL/],
    [{ PUBLIC_URL: "ftp://example.com" }, /PUBLIC_URL must be an http/],
    [{ DATABASE_URL: "garbage" }, /DATABASE_URL must be a PostgreSQL URL/],
    [{ DATABASE_POOL_MAX: "0" }, /DATABASE_POOL_MAX must be a whole number from 1/],
    [{ TRUSTED_PROXIES: "10.0.0.1, proxy" }, /TRUSTED_PROXIES must be IP addresses/],
    [{ HTTP_HEADERS_TIMEOUT_MS: "0" }, /HTTP_HEADERS_TIMEOUT_MS must be a whole number of milliseconds/],
    [{ SHUTDOWN_TIMEOUT_MS: "soon" }, /SHUTDOWN_TIMEOUT_MS must be a whole number/],
    [{ LOG_LEVEL: "loud" }, /LOG_LEVEL must be all, trace, debug/],
    [{ LOG_FORMAT: "xml" }, /LOG_FORMAT must be one of json, pretty, logfmt/],
    [{ BOOTSTRAP_DEFAULT_PROJECT: "maybe" }, /BOOTSTRAP_DEFAULT_PROJECT must be true or false/],
    [{ BOOTSTRAP_API_KEY: "sk_short" }, /BOOTSTRAP_API_KEY must be sk_ followed by 32 to 128/],
    [{ BLOB_SIGNING_SECRET: "short" }, /BLOB_SIGNING_SECRET must be at least 32 characters/],
    [{ TITLE_MODEL_BASE_URL: "localhost:11434" }, /TITLE_MODEL_BASE_URL must be an http/],
    [{ S3_ACCESS_KEY_ID: "AKIA" }, /S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY are set together/],
    [{ METRICS_ENABLED: "sometimes" }, /METRICS_ENABLED must be true or false/],
    [{ METRICS_TOKEN: "short" }, /METRICS_TOKEN must be at least 16 characters/],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: "collector:4318" }, /OTEL_EXPORTER_OTLP_ENDPOINT must be an http\(s\) URL/],
    [{ OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" }, /OTEL_EXPORTER_OTLP_PROTOCOL: grpc is not supported/],
    [{ OTEL_TRACES_SAMPLER: "sometimes" }, /OTEL_TRACES_SAMPLER must be one of always_on/],
    [{ OTEL_TRACES_SAMPLER_ARG: "2" }, /OTEL_TRACES_SAMPLER_ARG must be a number from 0 to 1/],
    [{ JOBS_POLL_SECONDS: "3601" }, /JOBS_POLL_SECONDS must be a whole number of seconds from 0 to 3600/],
    [
      { RETENTION_INTERVAL_MINUTES: "0" },
      /RETENTION_INTERVAL_MINUTES must be a whole number of minutes from 1 to 1440/
    ],
    [{ RETENTION_GRACE_HOURS: "721" }, /RETENTION_GRACE_HOURS must be a whole number of hours from 0 to 720/],
    [{ RETENTION_BATCH_SIZE: "0" }, /RETENTION_BATCH_SIZE must be a whole number from 1 to 10000/],
    [{ WEBHOOK_ALLOW_PRIVATE: "yes please" }, /WEBHOOK_ALLOW_PRIVATE must be true or false/],
    [{ EVALUATOR_MODEL_BASE_URL: "localhost:11434" }, /EVALUATOR_MODEL_BASE_URL must be an http/],
    [{ EVALUATOR_MODEL_TIMEOUT_MS: "0" }, /EVALUATOR_MODEL_TIMEOUT_MS must be a whole number of milliseconds/],
    [{ TOPICS_MODEL_BASE_URL: "localhost:11434" }, /TOPICS_MODEL_BASE_URL must be an http/],
    [{ TOPICS_MODEL_TIMEOUT_MS: "0" }, /TOPICS_MODEL_TIMEOUT_MS must be a whole number of milliseconds/],
    [{ EVALUATOR_INTERVAL_SECONDS: "0" }, /EVALUATOR_INTERVAL_SECONDS must be a whole number of seconds from 1/],
    [{ EVALUATOR_RUN_DELAY_SECONDS: "-1" }, /EVALUATOR_RUN_DELAY_SECONDS must be a whole number of seconds/],
    [{ EVALUATOR_THREAD_DELAY_SECONDS: "604801" }, /EVALUATOR_THREAD_DELAY_SECONDS must be a whole number of seconds/],
    [{ EVALUATOR_RETRY_BASE_SECONDS: "3601" }, /EVALUATOR_RETRY_BASE_SECONDS must be a whole number of seconds/],
    [{ EVALUATOR_MAX_ATTEMPTS: "21" }, /EVALUATOR_MAX_ATTEMPTS must be a whole number from 1 to 20/],
    [{ ADMIN_TOKEN: "change-me" }, /ADMIN_TOKEN must be at least 32 characters/],
    [{ ADMIN_TOKEN: "x".repeat(31) }, /ADMIN_TOKEN must be at least 32 characters/],
    [{ JWT_SIGNING_KEYS: "notjson" }, /JWT_SIGNING_KEYS is not JSON/],
    [{ JWT_SIGNING_KEYS: '{"keys":[]}' }, /JWT_SIGNING_KEYS must be a JWK Set with at least one key/],
    [{ JWT_SIGNING_KEYS: "[1]" }, /JWT_SIGNING_KEYS must be a JWK Set/],
    [{ JWT_SIGNING_KEYS: jwks("ES256", { kid: "" }) }, /JWT_SIGNING_KEYS key 1 needs a kid/],
    [{ JWT_SIGNING_KEYS: jwks("ES256", { d: undefined }) }, /JWT_SIGNING_KEYS key 1 needs its private part/],
    [{ JWT_SIGNING_KEYS: jwks("ES256", { alg: "RS256" }) }, /JWT_SIGNING_KEYS key 1 must have alg ES256 or EdDSA/],
    [{ JWT_SIGNING_KEYS: jwks("EdDSA", { alg: "ES256" }) }, /JWT_SIGNING_KEYS key 1 with alg ES256 must be kty EC/],
    [
      { JWT_SIGNING_KEYS: jwks("ES256", { d: "AAAA" }) },
      /JWT_SIGNING_KEYS key 1(.s public part \(x, y\) is not its private key's| is not a valid ES256 private key)/
    ],
    [{ JWT_SIGNING_KEYS: jwks("ES256", { x: "AAAA" }) }, /JWT_SIGNING_KEYS key 1 is not a valid ES256 private key/],
    [
      { JWT_SIGNING_KEYS: jwks("ES256", { x: JSON.parse(jwks("ES256")).keys[0].x }) },
      /JWT_SIGNING_KEYS key 1(.s public part \(x, y\) is not its private key's| is not a valid ES256 private key)/
    ],
    [
      { JWT_SIGNING_KEYS: jwks("ES256", { crv: "P-384" }) },
      /JWT_SIGNING_KEYS key 1 with alg ES256 must be kty EC, crv P-256/
    ]
  ]
  it.each(cases)("%j", (env, expected) => {
    const line = settingsError(env)
    expect(line).toMatch(expected)
    expect(line).toMatch(/^invalid configuration: /)
    expect(line).not.toContain("\n")
  })

  it("takes a JWK Set of ES256 and EdDSA keys, and an ADMIN_TOKEN of 32 characters", () => {
    const es = JSON.parse(jwks("ES256")).keys[0]
    const ed = JSON.parse(jwks("EdDSA")).keys[0]
    expect(settingsError({ JWT_SIGNING_KEYS: JSON.stringify({ keys: [es, ed] }), ADMIN_TOKEN: "x".repeat(32) })).toBe(
      undefined
    )
    expect(settingsError({ JWT_SIGNING_KEYS: JSON.stringify({ keys: [es, { ...ed, kid: es.kid }] }) })).toMatch(
      /key 2 repeats a kid/
    )
  })

  it("counts an empty or blank variable as unset, as compose files write them", () => {
    const empty = [
      "PORT",
      "HOST",
      "DATABASE_URL",
      "ADMIN_TOKEN",
      "METRICS_TOKEN",
      "METRICS_ENABLED",
      "JWT_SIGNING_KEYS",
      "LOG_LEVEL",
      "LOG_FORMAT",
      "BOOTSTRAP_DEFAULT_PROJECT",
      "BOOTSTRAP_API_KEY",
      "TRUSTED_PROXIES",
      "S3_BUCKET",
      "S3_ACCESS_KEY_ID",
      "OTEL_EXPORTER_OTLP_ENDPOINT",
      "JOBS_POLL_SECONDS"
    ]
    expect(settingsError(Object.fromEntries(empty.map((name) => [name, ""])))).toBeUndefined()
    expect(settingsError(Object.fromEntries(empty.map((name) => [name, "  "])))).toBeUndefined()
  })

  it("names every bad setting at once, and never echoes a secret's value", () => {
    const line = settingsError({
      PORT: "x",
      DATABASE_URL: "postgres:/user:hunter2@",
      BLOB_SIGNING_SECRET: "hunter2",
      ADMIN_TOKEN: "hunter2",
      JWT_SIGNING_KEYS: '{"keys":[{"kid":"a","kty":"EC","crv":"P-256","d":"hunter2"}]}'
    })
    expect(line).toMatch(/PORT .*DATABASE_URL .*BLOB_SIGNING_SECRET|PORT .*BLOB_SIGNING_SECRET .*DATABASE_URL/)
    expect(line).toMatch(/ADMIN_TOKEN/)
    expect(line).toMatch(/JWT_SIGNING_KEYS/)
    expect(line).not.toContain("hunter2")
  })
})

/** The JSON lines of a process's output. */
const lines = (output: string) =>
  output
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as { message: string; logLevel: string })

describe("a start that fails", () => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-startup-"))
  afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }))

  it("prints one JSON line naming the setting and exits 1", async () => {
    const [port, database, host] = await Promise.all([
      runGatewayToExit({ PORT: "abc" }),
      runGatewayToExit({ DATABASE_URL: "garbage" }),
      runGatewayToExit({ HOST: "10.255.255.254", DATA_DIR: dataDir, BOOTSTRAP_DEFAULT_PROJECT: "false" })
    ])
    for (const run of [port, database, host]) expect(run.code).toBe(1)
    // Nothing starts on a bad setting: the one line is all there is.
    expect(lines(port.output)).toEqual([
      expect.objectContaining({ logLevel: "FATAL", message: expect.stringMatching(/PORT must be a whole number/) })
    ])
    expect(lines(database.output)).toEqual([
      expect.objectContaining({
        logLevel: "FATAL",
        message: expect.stringMatching(/DATABASE_URL must be a PostgreSQL URL/)
      })
    ])
    const fatal = lines(host.output).filter((line) => line.logLevel === "FATAL")
    expect(fatal).toEqual([
      expect.objectContaining({
        message: expect.stringMatching(/cannot listen: no interface has this address.*set HOST/)
      })
    ])
    for (const run of [port, database, host]) expect(run.output).not.toMatch(/\n\s+at /)
  }, 120_000)

  it("refuses JWT_SIGNING_KEYS and ADMIN_TOKEN in the one line before the store opens; empty variables are unset", async () => {
    const unopened = path.join(dataDir, "never-opened")
    const [keys, admin] = await Promise.all([
      runGatewayToExit({ JWT_SIGNING_KEYS: "notjson", DATA_DIR: unopened }),
      runGatewayToExit({ ADMIN_TOKEN: "change-me", DATA_DIR: unopened })
    ])
    for (const [run, pattern] of [
      [keys, /^invalid configuration: JWT_SIGNING_KEYS is not JSON/],
      [admin, /^invalid configuration: ADMIN_TOKEN must be at least 32 characters/]
    ] as const) {
      expect(run.code).toBe(1)
      expect(lines(run.output)).toEqual([
        expect.objectContaining({ logLevel: "FATAL", message: expect.stringMatching(pattern) })
      ])
      expect(run.output).not.toMatch(/SigningKeysConfigError|\n\s+at /)
    }
    // Nothing was opened: the embedded store's folder was never made.
    expect(fs.existsSync(unopened)).toBe(false)
    // A compose file's empty variables: the defaults, and the gateway serves.
    const served = await spawnGateway({
      DATA_DIR: path.join(dataDir, "empty-variables"),
      METRICS_TOKEN: "",
      ADMIN_TOKEN: "",
      JWT_SIGNING_KEYS: "",
      LOG_LEVEL: "",
      DATABASE_URL: "",
      BOOTSTRAP_DEFAULT_PROJECT: "false"
    })
    try {
      expect((await fetch(`${served.url}/healthz`)).status).toBe(200)
      expect((await fetch(`${served.url}/metrics`)).status).toBe(200)
    } finally {
      await served.stop()
    }
  }, 120_000)

  it.skipIf(process.env.TEST_DATABASE_URL === undefined)(
    "names a database that does not exist, without retrying or echoing the URL",
    async () => {
      const url = new URL(process.env.TEST_DATABASE_URL ?? "")
      url.pathname = "/svc_no_such_database"
      url.password = "secret-password"
      const run = await runGatewayToExit({ DATABASE_URL: url.toString() })
      expect(run.code).toBe(1)
      const fatal = lines(run.output).filter((line) => line.logLevel === "FATAL")
      expect(fatal).toEqual([
        expect.objectContaining({
          message: expect.stringMatching(
            /the database of DATABASE_URL does not exist .*svc_no_such_database.*create it/
          )
        })
      ])
      expect(run.output).not.toContain("retrying")
      expect(run.output).not.toContain("secret-password")
    },
    60_000
  )

  it("treats a database that accepts and never answers as unreachable (retried, then one line)", async () => {
    const sockets = new Set<net.Socket>()
    const silent = net.createServer((socket) => {
      sockets.add(socket)
      socket.on("error", () => {})
    })
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve))
    const { port } = silent.address() as net.AddressInfo
    try {
      const run = await runGatewayToExit({
        DATABASE_URL: `postgres://svc@127.0.0.1:${port}/svc`,
        DATABASE_STARTUP_TIMEOUT_MS: "1000"
      })
      expect(run.code).toBe(1)
      // Before: "cannot start: TimeoutException", and no retry was possible.
      expect(lines(run.output).filter((line) => line.logLevel === "FATAL")).toEqual([
        expect.objectContaining({ message: expect.stringMatching(/PostgreSQL could not be reached .*timeout/) })
      ])
    } finally {
      for (const socket of sockets) socket.destroy()
      silent.close()
    }
  }, 60_000)

  it("gives up on an unreachable database after DATABASE_STARTUP_TIMEOUT_MS", async () => {
    const started = Date.now()
    const run = await runGatewayToExit({
      DATABASE_URL: "postgres://svc@127.0.0.1:9/svc",
      DATABASE_STARTUP_TIMEOUT_MS: "1500"
    })
    expect(run.code).toBe(1)
    expect(Date.now() - started).toBeLessThan(40_000)
    const all = lines(run.output)
    expect(all.filter((line) => line.logLevel === "WARN").length).toBeGreaterThan(1)
    expect(all.filter((line) => line.logLevel === "FATAL")).toEqual([
      expect.objectContaining({
        message: expect.stringMatching(/nothing answers at DATABASE_URL's address.*start PostgreSQL/)
      })
    ])
  }, 60_000)
})
