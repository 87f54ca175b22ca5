/**
 * Composition root: the only place that picks implementations (the store from
 * DATABASE_URL / DATA_DIR, the Node HTTP server) and wires the protocol front
 * ends to the services. It imports protocols/ by necessity; nothing else in
 * src/ does.
 */

import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { HttpLive } from "../protocols/Http.js"
import { BootstrapLive } from "./Bootstrap.js"
import { ServicesLive } from "./Layers.js"
import { LoggingLive } from "./Logging.js"
import { NodeServerLive } from "./NodeServer.js"
import * as Database from "./storage/Database.js"

const MainLive = HttpLive.pipe(
  Layer.provide(NodeServerLive),
  Layer.provide(BootstrapLive),
  Layer.provideMerge(ServicesLive),
  Layer.provide(Database.layer),
  Layer.provide(LoggingLive)
)

NodeRuntime.runMain(Layer.launch(MainLive).pipe(Effect.provide(LoggingLive)), { disablePrettyLogger: true })
