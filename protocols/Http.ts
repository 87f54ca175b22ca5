/**
 * The one HTTP server: the REST API (HttpApi), OTLP trace exports, MCP, the
 * dashboard, health, the JWKS, the OpenAPI document and its docs page, behind
 * the gateway middleware.
 */
import * as HttpLayerRouter from "@effect/platform/HttpLayerRouter"
import * as HttpMiddleware from "@effect/platform/HttpMiddleware"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as LogLevel from "effect/LogLevel"
import { Api } from "../schema/Api.js"
import { AppConfig } from "../src/platform/Config.js"
import { DatabasePool } from "../src/platform/db/DatabasePool.js"
import { InfoLineRef, LogLevelConfig } from "../src/platform/telemetry/Logging.js"
import { LogSinkRef } from "../src/platform/telemetry/LogSink.js"
import { Traces } from "../src/traces/Traces.js"
import { Usage } from "../src/usage/Usage.js"
import { accessLog } from "./AccessLog.js"
import { BlobRoutes } from "./Blobs.js"
import { DOCS_PATH, DocsRoutes, OPENAPI_PATH } from "./Docs.js"
import { DashboardRoutes } from "./dashboard/Assets.js"
import { DashboardOperateLive } from "./dashboard/Operate.js"
import { DashboardLive, DashboardSignInLive } from "./dashboard/Routes.js"
import { DashboardSessionLive } from "./dashboard/Session.js"
import { HealthRoutes } from "./Health.js"
import { JwksRoutes } from "./Jwks.js"
import { METRICS_PATH, MetricsConfig, makeMetrics, metricsRoute } from "./Metrics.js"
import { McpRoutes } from "./mcp/Routes.js"
import { TraceRoutes } from "./otlp/Routes.js"
import { AdminLive } from "./rest/Admin.js"
import { AlertsLive } from "./rest/Alerts.js"
import { AdminAuthLive, AuthenticatedLive, ProjectApiKeyLive } from "./rest/Auth.js"
import { AuthTokensLive } from "./rest/AuthTokens.js"
import { ErasureLive } from "./rest/Erasure.js"
import { EvaluatorsLive } from "./rest/Evaluators.js"
import { EventsLive } from "./rest/Events.js"
import { FilesLive } from "./rest/Files.js"
import { gatewayMiddleware } from "./rest/Gateway.js"
import { MessagesLive } from "./rest/Messages.js"
import { ProjectReadLive } from "./rest/ProjectRead.js"
import { MAX_PARAM_LENGTH, makeRouteTable, type RouteTable } from "./rest/RouteTable.js"
import { RunsLive } from "./rest/Runs.js"
import { ScoresLive } from "./rest/Scores.js"
import { ClaimLive, SessionsLive } from "./rest/Sessions.js"
import { SettingsLive } from "./rest/Settings.js"
import { ThreadsLive } from "./rest/Threads.js"
import { TitlesLive } from "./rest/Titles.js"
import { WebhooksLive } from "./rest/Webhooks.js"

const ApiRoutes = HttpLayerRouter.addHttpApi(Api).pipe(
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
    ProjectReadLive,
    SettingsLive,
    ErasureLive,
    EvaluatorsLive,
    WebhooksLive,
    AlertsLive,
    DashboardSignInLive,
    DashboardLive,
    DashboardOperateLive
  ]),
  Layer.provide(TitlesLive),
  Layer.provide(FilesLive),
  Layer.provide([AuthenticatedLive, AdminAuthLive, ProjectApiKeyLive, DashboardSessionLive])
)

/** Every route of the server, behind the gateway middleware over `table`. */
const routesOver = (table: RouteTable) =>
  Layer.mergeAll(
    ApiRoutes,
    HealthRoutes,
    JwksRoutes,
    DocsRoutes,
    gatewayMiddleware(table),
    BlobRoutes,
    TraceRoutes,
    McpRoutes,
    DashboardRoutes
  )

/** Routes of the server that are not API endpoints: their paths are their metric labels. */
const OTHER_ROUTES = new Set(["/readyz", "/.well-known/jwks.json", DOCS_PATH, OPENAPI_PATH, METRICS_PATH])

/**
 * The server, with one access-log middleware around it (AccessLog.ts:
 * request id, access line, metrics, the request's span when traces are
 * exported). The platform's request logger and request span are off: both
 * record the URL unredacted. The access line is written at info; above info
 * it is not made at all.
 */
export const HttpLive = Layer.unwrapEffect(
  Effect.gen(function* () {
    const level = yield* LogLevelConfig
    const metricsConfig = yield* MetricsConfig
    const maxBodyBytes = yield* AppConfig.maxBodyBytes
    const usage = yield* Usage
    const pool = yield* DatabasePool
    const sink = yield* LogSinkRef
    const traces = yield* Traces
    const metrics = metricsConfig.enabled
      ? makeMetrics({
          usageBacklog: usage.backlog,
          pool: pool.stats,
          logLinesDropped: sink.dropped,
          traceBatches: traces.batches
        })
      : undefined
    // One route table: the gateway middleware's rules and the access log's route labels.
    const table = makeRouteTable(maxBodyBytes)
    const routes =
      metrics === undefined
        ? routesOver(table)
        : Layer.merge(routesOver(table), metricsRoute(metrics, metricsConfig.token))
    const middleware = accessLog({
      routes: table,
      otherRoutes: OTHER_ROUTES,
      logLines: !LogLevel.greaterThan(level, LogLevel.Info),
      line: yield* InfoLineRef,
      metrics
    })
    return HttpMiddleware.withTracerDisabledWhen(
      HttpLayerRouter.serve(routes, {
        disableLogger: true,
        middleware,
        routerConfig: { maxParamLength: MAX_PARAM_LENGTH }
      }),
      () => true
    )
  })
)
