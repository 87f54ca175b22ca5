/**
 * `npx tsx bench/access-log.ts > /dev/null`: what the access-log middleware
 * (protocols/AccessLog.ts: request id, route template, metrics, one JSON line)
 * costs a request, against the platform's request logger it replaced (one
 * JSON line), against the middleware without its line (what it costs above
 * LOG_LEVEL=info), and against no logger at all. Each runs around the same trivial
 * handler through the Node server's request handler, driven in-process
 * (requests and responses without sockets), so only CPU is measured; batches
 * of the three alternate, and the fastest batch of each is kept (the least
 * disturbed by other processes). µs per request go to stderr; stdout takes
 * the log lines.
 */
import { IncomingMessage, ServerResponse } from "node:http"
import { Socket } from "node:net"
import * as HttpMiddleware from "@effect/platform/HttpMiddleware"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { accessLog } from "../protocols/AccessLog.js"
import { makeMetrics } from "../protocols/Metrics.js"
import { makeRouteTable } from "../protocols/rest/RouteTable.js"
import { type InfoLine, InfoLineRef, LoggingLive } from "../src/platform/telemetry/Logging.js"
import { bufferedSink, LogSinkRef } from "../src/platform/telemetry/LogSink.js"

const BATCH = Number(process.env.BATCH ?? 2_000)
const ROUNDS = Number(process.env.ROUNDS ?? 15)
const URL = "/v1/threads/thr_01JD3E8XKQ?limit=5&signature=abc"

/** LoggingLive over the gateway's buffered stdout (app/main.ts), as against the console's one write a line. */
const buffered = LoggingLive.pipe(Layer.provide(Layer.succeed(LogSinkRef, bufferedSink())))

const app = Effect.succeed(HttpServerResponse.text("{}"))

/**
 * The gateway's middleware; `logLines: false` is what it does above LOG_LEVEL=info. `line`: the access
 * line straight to the sink (what the gateway does with LOG_FORMAT json or logfmt), else through Effect.log.
 */
const ours = (logLines: boolean, line: InfoLine | null = null) =>
  accessLog({
    routes: makeRouteTable(1_000_000),
    otherRoutes: new Set(),
    logLines,
    line,
    metrics: makeMetrics({
      usageBacklog: () => ({ pending: 0, lagMs: 0, lastFlushedAt: undefined }),
      pool: Option.none(),
      logLinesDropped: () => 0,
      traceBatches: () => ({ batches: 0, inputs: 0 })
    })
  })

type Handler = (request: IncomingMessage, response: ServerResponse) => void

/** `count` requests one after the other; resolves when the last response has ended. */
const drive = (handler: Handler, count: number) =>
  new Promise<void>((resolve) => {
    let left = count
    const next = () => {
      if (left-- === 0) return resolve()
      const request = new IncomingMessage(new Socket())
      request.method = "GET"
      request.url = URL
      request.headers = { host: "gateway", "user-agent": "bench" }
      const response = new ServerResponse(request)
      // No socket: the response ends here, its callback (the server waits for it) called at once.
      response.end = ((...args: Array<unknown>) => {
        for (const arg of args) if (typeof arg === "function") arg()
        setImmediate(next)
        return response
      }) as ServerResponse["end"]
      handler(request, response)
    }
    next()
  })

const main = Effect.gen(function* () {
  const handlers: Record<string, Handler> = {
    "no logger": yield* NodeHttpServer.makeHandler(app),
    "platform logger": yield* NodeHttpServer.makeHandler(app, HttpMiddleware.logger),
    "access log without its line (request id, route, metrics)": yield* NodeHttpServer.makeHandler(app, ours(false)),
    "access log through Effect.log": yield* NodeHttpServer.makeHandler(app, ours(true)),
    "access log, its line straight to the sink": yield* NodeHttpServer.makeHandler(app, ours(true, yield* InfoLineRef)),
    "access log, through Effect.log, to a buffered stdout": yield* NodeHttpServer.makeHandler(app, ours(true)).pipe(
      Effect.provide(buffered)
    ),
    "access log, straight to a buffered stdout": yield* NodeHttpServer.makeHandler(
      app,
      ours(true, yield* InfoLineRef.pipe(Effect.provide(buffered)))
    ).pipe(Effect.provide(buffered))
  }
  const best: Record<string, number> = {}
  for (let round = 0; round <= ROUNDS; round++) {
    for (const [name, handler] of Object.entries(handlers)) {
      const started = process.cpuUsage()
      yield* Effect.promise(() => drive(handler, BATCH))
      const used = process.cpuUsage(started)
      const perRequest = (used.user + used.system) / BATCH
      // Round 0 warms the JIT up.
      if (round > 0) best[name] = Math.min(best[name] ?? Number.POSITIVE_INFINITY, perRequest)
    }
  }
  for (const [name, us] of Object.entries(best)) process.stderr.write(`${name}: ${us.toFixed(1)} µs CPU/request\n`)
}).pipe(Effect.scoped, Effect.provide(Layer.merge(LoggingLive, Layer.setTracerEnabled(false))))

Effect.runPromise(main).then(
  () => process.exit(0),
  (error) => {
    process.stderr.write(`${String(error)}\n`)
    process.exit(1)
  }
)
