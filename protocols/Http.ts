/**
 * The one HTTP server: the REST API (HttpApi), health, the JWKS, the OpenAPI
 * document and its docs page, behind the gateway middleware.
 */
import * as HttpApiScalar from "@effect/platform/HttpApiScalar"
import * as HttpLayerRouter from "@effect/platform/HttpLayerRouter"
import * as HttpMiddleware from "@effect/platform/HttpMiddleware"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as LogLevel from "effect/LogLevel"
import { Api } from "../schema/Api.js"
import { AppConfig } from "../src/Config.js"
import { LogLevelConfig } from "../src/Logging.js"
import { BlobRoutes } from "./Blobs.js"
import { HealthRoutes } from "./Health.js"
import { JwksRoutes } from "./Jwks.js"
import { AdminLive } from "./rest/Admin.js"
import { AdminAuthLive, AuthenticatedLive, ProjectApiKeyLive } from "./rest/Auth.js"
import { AuthTokensLive } from "./rest/AuthTokens.js"
import { EventsLive } from "./rest/Events.js"
import { FilesLive } from "./rest/Files.js"
import { gatewayMiddleware } from "./rest/Gateway.js"
import { MessagesLive } from "./rest/Messages.js"
import { ProjectReadLive } from "./rest/ProjectRead.js"
import { RunsLive } from "./rest/Runs.js"
import { ScoresLive } from "./rest/Scores.js"
import { ClaimLive, SessionsLive } from "./rest/Sessions.js"
import { ThreadsLive } from "./rest/Threads.js"
import { TitlesLive } from "./rest/Titles.js"

export const OPENAPI_PATH = "/v1/openapi.json"

const ApiRoutes = HttpLayerRouter.addHttpApi(Api, { openapiPath: OPENAPI_PATH }).pipe(
  Layer.provide([
    ThreadsLive,
    MessagesLive,
    AdminLive,
    AuthTokensLive,
    SessionsLive,
    ClaimLive,
    RunsLive,
    ScoresLive,
    EventsLive,
    ProjectReadLive
  ]),
  Layer.provide(TitlesLive),
  Layer.provide(FilesLive),
  Layer.provide([AuthenticatedLive, AdminAuthLive, ProjectApiKeyLive])
)

const Docs = HttpApiScalar.layerHttpLayerRouter({ api: Api, path: "/docs" })

export const RoutesLive = Layer.unwrapEffect(
  Effect.map(AppConfig.maxBodyBytes, (maxBodyBytes) =>
    Layer.mergeAll(ApiRoutes, HealthRoutes, JwksRoutes, Docs, gatewayMiddleware(maxBodyBytes), BlobRoutes)
  )
)

/**
 * No span per HTTP request: nothing exports them yet, and making one costs
 * every request (measured in bench/). The request log line (one per request,
 * at info) is written by the platform's logger middleware, which costs a
 * request about as much when its line is filtered out: below info it is not
 * installed at all.
 */
export const HttpLive = Layer.unwrapEffect(
  Effect.map(LogLevelConfig, (level) =>
    HttpMiddleware.withTracerDisabledWhen(
      HttpLayerRouter.serve(RoutesLive, { disableLogger: LogLevel.greaterThan(level, LogLevel.Info) }),
      () => true
    )
  )
)
