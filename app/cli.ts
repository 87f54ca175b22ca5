/**
 * `svc` (bin/svc.mjs, `npm run svc`): the command line's composition root,
 * on the store named by DATABASE_URL / DATA_DIR.
 */
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as Effect from "effect/Effect"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import { runCli } from "../protocols/cli/Commands.js"
import * as Database from "../src/storage/Database.js"

runCli(Database.layer)(process.argv).pipe(
  Effect.provide(NodeContext.layer),
  Effect.provide(Logger.minimumLogLevel(LogLevel.Warning)),
  NodeRuntime.runMain({ disableErrorReporting: true })
)
