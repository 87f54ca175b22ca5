import * as Config from "effect/Config"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"

/** LOG_FORMAT json (default: one JSON object a line), logfmt or pretty; LOG_LEVEL info by default. */
export const LoggingLive = Layer.unwrapEffect(
  Effect.gen(function* () {
    const format = yield* Config.literal("json", "pretty", "logfmt")("LOG_FORMAT").pipe(Config.withDefault("json"))
    const level = yield* Config.logLevel("LOG_LEVEL").pipe(Config.withDefault(LogLevel.Info))
    const logger = format === "pretty" ? Logger.pretty : format === "logfmt" ? Logger.logFmt : Logger.json
    return Layer.merge(logger, Logger.minimumLogLevel(level))
  })
)
