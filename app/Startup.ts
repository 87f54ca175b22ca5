/**
 * Start-up in the composition root: every setting read and validated before
 * anything starts, and a failure to start said in one line.
 */
import * as HttpServerError from "@effect/platform/HttpServerError"
import * as Cause from "effect/Cause"
import * as Config from "effect/Config"
import * as ConfigError from "effect/ConfigError"
import { MetricsConfig } from "../protocols/Metrics.js"
import { ServerSettingsConfig } from "../protocols/NodeServer.js"
import { SigningKeysConfig } from "../src/auth/SigningKeysConfig.js"
import { AppConfig, S3CredentialsConfig } from "../src/platform/Config.js"
import { describeConfigError } from "../src/platform/ConfigErrors.js"
import { DataDirLocked } from "../src/platform/db/DataDirLock.js"
import { errorCode } from "../src/platform/ErrorCode.js"
import { StartupError } from "../src/platform/StartupError.js"
import { LogFormatConfig, LogLevelConfig } from "../src/platform/telemetry/Logging.js"
import { TracingConfig } from "../src/platform/telemetry/Tracing.js"

/** Every setting the gateway reads (README: Configuration); reading it reports every bad one at once. */
export const AllSettings = Config.all([
  Config.all(AppConfig),
  S3CredentialsConfig,
  SigningKeysConfig,
  ServerSettingsConfig,
  LogLevelConfig,
  LogFormatConfig,
  MetricsConfig,
  TracingConfig
])

const listenFailure = (error: HttpServerError.ServeError): string => {
  const cause: unknown = error.cause
  const code = errorCode(cause)
  const reason = cause instanceof Error ? cause.message : "unknown error"
  switch (code) {
    case "EADDRINUSE":
      return `cannot listen: the port is in use (${reason}): stop what uses it, or set PORT`
    case "EADDRNOTAVAIL":
      return `cannot listen: no interface has this address (${reason}): set HOST to an address of this machine, or 0.0.0.0`
    case "EACCES":
      return `cannot listen: permission denied (${reason}): use a PORT above 1023, or grant the capability`
    case "ENOTFOUND":
    case "EAI_AGAIN":
      return `cannot listen: HOST cannot be resolved (${reason}): set HOST to an address or a resolvable name`
    default:
      return `cannot listen on HOST:PORT: ${reason}`
  }
}

/** The one line a failed start prints. */
export const describeStartupFailure = (cause: Cause.Cause<unknown>): string => {
  const error = Cause.squash(cause)
  if (ConfigError.isConfigError(error)) return describeConfigError(error)
  if (error instanceof StartupError || error instanceof DataDirLocked) return error.message
  if (error instanceof HttpServerError.ServeError) return listenFailure(error)
  return `cannot start: ${error instanceof Error ? `${error.name}: ${error.message}` : Cause.pretty(cause).split("\n")[0]}`
}
