/**
 * `svc` (bin/svc.mjs, `npm run svc`): the command line's composition root,
 * on the store named by DATABASE_URL / DATA_DIR.
 */
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import { runCli } from "../protocols/cli/Commands.js"
import { Issuers } from "../src/auth/Issuers.js"
import { Origins } from "../src/Origins.js"
import { ProjectAdmin } from "../src/ProjectAdmin.js"
import * as Database from "../src/storage/Database.js"

const on = <A, E, R>(service: Layer.Layer<A, E, R>) => service.pipe(Layer.provide(Database.layer))

runCli({ projects: on(ProjectAdmin.Default), origins: on(Origins.Default), issuers: on(Issuers.Default) })(
  process.argv
).pipe(
  Effect.provide(NodeContext.layer),
  Effect.provide(Logger.minimumLogLevel(LogLevel.Warning)),
  NodeRuntime.runMain({ disableErrorReporting: true })
)
