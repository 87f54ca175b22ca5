/**
 * `npm start`: the composition root. Nothing imports this module; it picks
 * the store from the configuration and runs the gateway until a signal.
 */
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { LoggingLive } from "../src/Logging.js"
import { GatewayLive } from "./Gateway.js"

NodeRuntime.runMain(Layer.launch(GatewayLive.pipe(Layer.provide(LoggingLive))).pipe(Effect.provide(LoggingLive)), {
  disablePrettyLogger: true
})
