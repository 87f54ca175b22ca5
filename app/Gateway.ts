/**
 * The gateway as one layer: the HTTP server and its routes over every
 * service, on a given database. `npm start` (app/main.ts), the tests and the
 * benchmark all run this one wiring; only the database layer (and the
 * configuration) differ.
 */
import type * as SqlClient from "@effect/sql/SqlClient"
import * as Layer from "effect/Layer"
import { HttpLive } from "../protocols/Http.js"
import { NodeServerLive } from "../protocols/NodeServer.js"
import * as Database from "../src/platform/db/Database.js"
import { TracingLive } from "../src/platform/telemetry/Tracing.js"
import { BootstrapLive } from "../src/projects/Bootstrap.js"
import { jobsLayer } from "./Jobs.js"
import { ServicesLive } from "./Services.js"

/** The gateway over `database`; its server and SqlClient stay visible (tests read the address, seed rows). */
export const gatewayLayer = <E>(database: Layer.Layer<SqlClient.SqlClient, E>) =>
  HttpLive.pipe(
    Layer.provideMerge(NodeServerLive),
    Layer.provide(BootstrapLive),
    Layer.provideMerge(jobsLayer({ timer: true })),
    Layer.provideMerge(ServicesLive),
    Layer.provideMerge(database),
    Layer.provide(TracingLive)
  )

/** The store named by DATABASE_URL / DATA_DIR (PostgreSQL waited for at start). */
export const GatewayLive = gatewayLayer(Database.layerWaitingAtStart)
