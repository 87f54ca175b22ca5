import * as Cause from "effect/Cause"
import * as Config from "effect/Config"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as FiberId from "effect/FiberId"
import * as FiberRefs from "effect/FiberRefs"
import * as HashMap from "effect/HashMap"
import * as Layer from "effect/Layer"
import * as List from "effect/List"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import { type LogSink, LogSinkRef } from "./LogSink.js"
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

/** A line format written to a sink: redacted, and the sink flushed after a line at Error or above. */
const toSink = (format: Logger.Logger<unknown, string>, sink: LogSink): Logger.Logger<unknown, void> =>
  Logger.make((options) => {
    sink.write(redactText(format.log(options)))
    if (LogLevel.greaterThanEqual(options.logLevel, LogLevel.Error)) sink.flush()
  })

interface Loggers {
  readonly json: Logger.Logger<unknown, unknown>
  readonly logfmt: Logger.Logger<unknown, unknown>
  readonly pretty: Logger.Logger<unknown, unknown>
}

/**
 * Every line goes through redactText (Redact.ts) before it is written: a
 * signed URL or an Authorization value quoted in a message, a cause or an
 * annotation loses its secret whichever code logged it. The pretty format
 * (for a terminal) writes to the console itself, without a line string to
 * redact; the access line (protocols/AccessLog.ts) is redacted where it is
 * made, whatever the format.
 *
 * One set of loggers per sink (LogSink.ts), made once: the layer may be
 * provided more than once (app/main.ts provides it to the gateway and to the
 * launch), and the runtime keeps its loggers in a set, so the same logger is
 * kept once where two new ones would each write every line.
 */
const made = new WeakMap<LogSink, Loggers>()
export const loggersFor = (sink: LogSink): Loggers => {
  const known = made.get(sink)
  if (known !== undefined) return known
  const loggers: Loggers = {
    json: guarded(toSink(Logger.jsonLogger, sink)),
    logfmt: guarded(toSink(Logger.logfmtLogger, sink)),
    pretty: guarded(Logger.prettyLogger())
  }
  made.set(sink, loggers)
  return loggers
}

/**
 * An Info line written straight to the sink, in the configured format,
 * without Effect's logging machinery (the log call, its fiber references,
 * the structured message and its circular-safe stringify): the access line's
 * path, once per request (protocols/AccessLog.ts). The caller checks that
 * Info is enabled. Annotation values are strings and numbers.
 *
 * The json line is the one `Logger.jsonLogger` writes for the same message
 * (same fields in the same order; test/unit/platform/direct-line.test.ts
 * holds the two side by side); logfmt goes through Effect's own formatter.
 */
export type InfoLine = (
  message: string,
  fiberId: FiberId.FiberId,
  annotations: ReadonlyArray<readonly [string, string | number]>
) => void

const INFO = LogLevel.Info

export const infoLineFor = (format: "json" | "logfmt", sink: LogSink): InfoLine =>
  format === "json"
    ? (message, fiberId, annotations) => {
        const fields: Record<string, string | number> = {}
        for (const [key, value] of annotations) fields[key] = value
        sink.write(
          redactText(
            JSON.stringify({
              message,
              logLevel: INFO.label,
              timestamp: new Date().toISOString(),
              annotations: fields,
              spans: {},
              fiberId: FiberId.threadName(fiberId)
            })
          )
        )
      }
    : (message, fiberId, annotations) =>
        sink.write(
          redactText(
            Logger.logfmtLogger.log({
              fiberId,
              logLevel: INFO,
              message,
              cause: Cause.empty,
              context: FiberRefs.empty(),
              spans: List.empty(),
              annotations: HashMap.fromIterable(annotations),
              date: new Date()
            })
          )
        )

/** LoggingLive's InfoLine (null where LoggingLive is not provided, or the format is pretty: log as usual). */
export class InfoLineRef extends Context.Reference<InfoLineRef>()("svc/InfoLine", {
  defaultValue: (): InfoLine | null => null
}) {}

/** LOG_LEVEL, info by default. */
export const LogLevelConfig = Config.logLevel("LOG_LEVEL").pipe(Config.withDefault(LogLevel.Info))

/** LOG_FORMAT json (default: one JSON object a line), logfmt or pretty. */
export const LogFormatConfig = Config.literal("json", "pretty", "logfmt")("LOG_FORMAT").pipe(Config.withDefault("json"))

/** LOG_FORMAT and LOG_LEVEL (above), written to the LogSinkRef's sink (the console unless one is provided). */
export const LoggingLive = Layer.unwrapEffect(
  Effect.gen(function* () {
    const format = yield* LogFormatConfig
    const level = yield* LogLevelConfig
    const sink = yield* LogSinkRef
    return Layer.mergeAll(
      Logger.replace(Logger.defaultLogger, loggersFor(sink)[format]),
      Logger.minimumLogLevel(level),
      Layer.succeed(InfoLineRef, format === "pretty" ? null : infoLineFor(format, sink))
    )
  })
)
