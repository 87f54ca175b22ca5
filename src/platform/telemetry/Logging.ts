import * as Cause from "effect/Cause"
import * as Config from "effect/Config"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import { redactText } from "./Redact.js"

const describe = (error: unknown): string =>
  error instanceof Error ? `${error.name}: ${error.message}` : "unknown error"

/**
 * A logger that never throws: a line whose message or cause cannot be
 * rendered (a value nested too deep for the formatter's recursion, say) is
 * written as a short note instead, so a defect's log line cannot itself fail.
 */
export const guarded = <A>(logger: Logger.Logger<unknown, A>): Logger.Logger<unknown, A | undefined> =>
  Logger.make((options) => {
    try {
      return logger.log(options)
    } catch (error) {
      try {
        return logger.log({
          ...options,
          message: `a log line could not be rendered (${describe(error)})`,
          cause: Cause.isEmpty(options.cause)
            ? Cause.empty
            : Cause.die(new Error(describe(Cause.squash(options.cause))))
        })
      } catch {
        return undefined
      }
    }
  })

/**
 * Every line goes through redactText (Redact.ts) before it is written: a
 * signed URL or an Authorization value quoted in a message, a cause or an
 * annotation loses its secret whichever code logged it. The pretty format
 * (for a terminal) writes without a line string to redact; the access line
 * (protocols/AccessLog.ts) is redacted where it is made, whatever the format.
 *
 * One logger per format, made once: the layer may be provided more than once
 * (app/main.ts provides it to the gateway and to the launch), and the runtime
 * keeps its loggers in a set, so the same logger is kept once where two new
 * ones would each write every line.
 */
const LOGGERS = {
  json: guarded(Logger.withConsoleLog(Logger.map(Logger.jsonLogger, redactText))),
  logfmt: guarded(Logger.withConsoleLog(Logger.map(Logger.logfmtLogger, redactText))),
  pretty: guarded(Logger.prettyLogger())
} as const

/** LOG_LEVEL, info by default. */
export const LogLevelConfig = Config.logLevel("LOG_LEVEL").pipe(Config.withDefault(LogLevel.Info))

/** LOG_FORMAT json (default: one JSON object a line), logfmt or pretty. */
export const LogFormatConfig = Config.literal("json", "pretty", "logfmt")("LOG_FORMAT").pipe(Config.withDefault("json"))

/** LOG_FORMAT and LOG_LEVEL (above). */
export const LoggingLive = Layer.unwrapEffect(
  Effect.gen(function* () {
    const format = yield* LogFormatConfig
    const level = yield* LogLevelConfig
    return Layer.merge(Logger.replace(Logger.defaultLogger, LOGGERS[format]), Logger.minimumLogLevel(level))
  })
)
