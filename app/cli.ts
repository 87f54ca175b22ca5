/**
 * `svc` (bin/svc.mjs, `npm run svc`): the command line's composition root,
 * on the store named by DATABASE_URL / DATA_DIR. docs/cli.md describes its
 * output and exit statuses.
 */
import * as path from "node:path"
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import { runCli } from "../protocols/cli/Cli.js"
import { ExitCode, storeUnavailable } from "../protocols/cli/Failure.js"
import { environment } from "../src/platform/Config.js"
import * as Database from "../src/platform/db/Database.js"
import { PgliteImagePath } from "../src/platform/db/PgliteImage.js"
import { TopicWorkerPath } from "../src/topics/TopicCompute.js"
import { cliServices } from "./cliServices.js"

/** Whatever stops the store from opening (unreachable, locked, settings invalid) is reported as such: exit 4. */
const store = Database.layer.pipe(Layer.catchAllCause((cause) => Layer.fail(storeUnavailable(cause))))

runCli(cliServices(store))(process.argv).pipe(
  Effect.provide(NodeContext.layer),
  // The topics job's worker, built beside this module (scripts/build.mjs).
  Effect.provideService(TopicWorkerPath, path.join(import.meta.dirname, "..", "dist", "topics-worker.js")),
  // The embedded store's prepared image: a command on an empty DATA_DIR starts from it as the gateway does.
  Effect.provideService(PgliteImagePath, path.join(import.meta.dirname, "..", "dist", "pgdata.tar.gz")),
  Effect.withConfigProvider(environment()),
  Effect.provide(Logger.minimumLogLevel(LogLevel.Warning)),
  NodeRuntime.runMain({
    disableErrorReporting: true,
    teardown: (exit, onExit) =>
      onExit(
        Exit.isSuccess(exit) && typeof exit.value === "number"
          ? exit.value
          : Exit.isFailure(exit) && Cause.isInterruptedOnly(exit.cause)
            ? ExitCode.interrupted
            : ExitCode.failure
      )
  })
)
