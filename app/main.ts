/**
 * `npm start` (bin/gateway.mjs runs the compiled dist/main.js): the
 * composition root. Nothing imports this module. It reads and validates every
 * setting, picks the store from them and runs the gateway until SIGTERM or
 * SIGINT; a start that fails prints one line and exits 1, a signal drains the
 * server (protocols/NodeServer.ts), flushes the services' queued work (their
 * layers' finalizers), logs one line and exits 0.
 */
import * as path from "node:path"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import { DashboardDir } from "../protocols/dashboard/Assets.js"
import { environment } from "../src/platform/Config.js"
import { PgliteImagePath } from "../src/platform/db/PgliteImage.js"
import { LoggingLive, loggersFor } from "../src/platform/telemetry/Logging.js"
import { bufferedSink, LogSinkRef } from "../src/platform/telemetry/LogSink.js"
import { TopicWorkerPath } from "../src/topics/TopicCompute.js"
import { GatewayLive } from "./Gateway.js"
import { AllSettings, describeStartupFailure } from "./Startup.js"

/** The signal that started the shutdown, and when (NodeRuntime interrupts the program on it). */
const signalled: { name?: NodeJS.Signals; at?: number } = {}
for (const name of ["SIGTERM", "SIGINT"] as const) {
  process.once(name, () => {
    signalled.name ??= name
    signalled.at ??= Date.now()
  })
}

const stopped = Effect.suspend(() =>
  signalled.at === undefined
    ? Effect.void
    : Effect.logInfo(`stopped on ${signalled.name}`).pipe(
        Effect.annotateLogs({ signal: signalled.name, shutdown_ms: Date.now() - signalled.at })
      )
)

/**
 * Log lines go to stdout through a buffer (src/platform/telemetry/LogSink.ts):
 * a few large asynchronous writes instead of a synchronous one a line, the
 * rest written when the process exits and after each line at Error or above.
 */
const sink = bufferedSink()
const sinkLayer = Layer.succeed(LogSinkRef, sink)
/** LOG_FORMAT or LOG_LEVEL itself is wrong: JSON lines, so that AllSettings can say which. */
const fallbackLogging = Logger.replace(Logger.defaultLogger, loggersFor(sink).json)
const Logging = LoggingLive.pipe(
  Layer.orElse(() => fallbackLogging),
  Layer.provide(sinkLayer)
)

/**
 * The built dashboard: dist/dashboard beside dist/main.js, which is this
 * module once built (and app/main.ts under `npm run dev`, one level down too).
 */
const dashboard = Layer.succeed(DashboardDir, path.join(import.meta.dirname, "..", "dist", "dashboard"))
/** The topics job's worker, built beside it (scripts/build.mjs). */
const topicWorker = Layer.succeed(TopicWorkerPath, path.join(import.meta.dirname, "..", "dist", "topics-worker.js"))
/** The embedded store's prepared image, built beside it (a first start on an empty DATA_DIR unpacks it). */
const pgliteImage = Layer.succeed(PgliteImagePath, path.join(import.meta.dirname, "..", "dist", "pgdata.tar.gz"))

const program = Effect.gen(function* () {
  yield* AllSettings
  yield* Effect.addFinalizer(() => stopped)
  yield* Layer.launch(GatewayLive.pipe(Layer.provide([Logging, sinkLayer, dashboard, topicWorker, pgliteImage])))
}).pipe(
  Effect.scoped,
  Effect.tapErrorCause((cause) =>
    Cause.isInterruptedOnly(cause) ? Effect.void : Effect.logFatal(describeStartupFailure(cause))
  )
)

NodeRuntime.runMain(program.pipe(Effect.provide(Logging), Effect.withConfigProvider(environment())), {
  disablePrettyLogger: true,
  disableErrorReporting: true
})
