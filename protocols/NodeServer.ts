import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import type { Socket } from "node:net"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as Config from "effect/Config"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { AppConfig, integerIn } from "../src/platform/Config.js"
import { REQUEST_ID_HEADER, requestIdFrom } from "./RequestId.js"
import { bodyCapOf, declaresBody } from "./rest/Body.js"

const HEALTH_OK = JSON.stringify({ status: "ok" })
const HEALTH_DRAINING = JSON.stringify({ status: "shutting_down" })
const SHUTTING_DOWN = JSON.stringify({
  error: "unavailable",
  message: "the server is shutting down; retry on a new connection"
})
/** Retry-After of the 503 a request gets during the shutdown: another instance (or this one restarted) takes it. */
const SHUTDOWN_RETRY_AFTER_S = 1

/**
 * After a response to a request whose body was left unread, the connection
 * keeps reading (and discarding) at most this much, for at most this long,
 * before it is cut: enough for the client to read the response before the
 * close (closing with unread data in the socket makes TCP reset, and a
 * client can lose the response it has not read yet), never a whole body.
 */
export const UNREAD_BODY_DRAIN_BYTES = 64 * 1024
export const UNREAD_BODY_DRAIN_MS = 2_000

/**
 * After a 413, a body of at most twice its route's cap, and never more than
 * this, is read to its end and discarded (decisions.md "Wire"): an honest
 * client that sends its whole body before it reads, or whose reset would
 * reach it before the answer, then reads the 413 instead of a reset (and the
 * stock OTLP exporters do not send the batch again).
 */
export const OVERSIZE_DISCARD_MAX_BYTES = 64 * 1024 * 1024
/** The rate (bytes per second) a discarded body must keep up, on average, after UNREAD_BODY_DRAIN_MS of grace. */
export const OVERSIZE_DISCARD_MIN_RATE = 1024 * 1024

/** How much of a body over `cap` the server reads and discards after the 413. */
export const oversizeDiscardBytes = (cap: number): number => Math.min(2 * cap, OVERSIZE_DISCARD_MAX_BYTES)

/** How long the rest of a body within the discard bound may take to arrive after the 413. */
export const oversizeDiscardMs = (bound: number): number =>
  UNREAD_BODY_DRAIN_MS + Math.ceil((bound / OVERSIZE_DISCARD_MIN_RATE) * 1_000)

export interface ServerSettings {
  /** On close, how long requests in flight may take before connections are cut. */
  readonly shutdownTimeoutMs: number
  /** Time to receive a request's headers. */
  readonly headersTimeoutMs: number
  /** Time to receive a whole request, body included. */
  readonly requestTimeoutMs: number
  /** How long an idle keep-alive connection is kept for its next request. */
  readonly keepAliveTimeoutMs: number
  /** A connection with no traffic either way for this long is closed. */
  readonly idleTimeoutMs: number
}

const answerHealth = (response: ServerResponse, draining: boolean) => {
  const body = draining ? HEALTH_DRAINING : HEALTH_OK
  response.writeHead(draining ? 503 : 200, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(body),
    ...(draining ? { connection: "close" } : {})
  })
  response.end(body)
}

/** A request that arrives on an open connection while the server drains: 503, and the connection closes. */
const answerShuttingDown = (response: ServerResponse) => {
  response.writeHead(503, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(SHUTTING_DOWN),
    "retry-after": String(SHUTDOWN_RETRY_AFTER_S),
    connection: "close"
  })
  response.end(SHUTTING_DOWN)
}

/** A body read to its end after a 413: the socket may read up to `untilBytesRead` in all, for `ms`. */
interface Discard {
  readonly untilBytesRead: number
  readonly ms: number
}

/**
 * Whether the rest of `request`'s body is read to its end after its 413:
 * when its route's cap is known and the body (declared, or read so far when
 * chunked) is within the discard bound. `startBytes` is the socket's
 * `bytesRead` when the request's head had been read.
 */
const discardAfter413 = (request: IncomingMessage, startBytes: number): Discard | undefined => {
  const cap = bodyCapOf(request)
  if (cap === undefined) return undefined
  const bound = oversizeDiscardBytes(cap)
  const declared = request.headers["content-length"]
  if (declared !== undefined && !(Number(declared) <= bound)) return undefined
  if (request.socket.bytesRead - startBytes > bound) return undefined
  // The allowance covers the part of the body read along with the head, and a chunked body's framing.
  return { untilBytesRead: startBytes + bound + UNREAD_BODY_DRAIN_BYTES, ms: oversizeDiscardMs(bound) }
}

/**
 * A response is going out while its request's body is still arriving (a 401
 * or 404 before the handler asked for the body, a 413 part way through, a GET
 * with a body): the connection closes after it. Node would otherwise read the
 * rest of the body, up to any size, to keep the connection for the next
 * request. The body is read on (and discarded) only while the response goes
 * out and a little after: at most UNREAD_BODY_DRAIN_BYTES, for at most
 * UNREAD_BODY_DRAIN_MS, or until the client closes its side.
 *
 * With `discard` (a 413 for a body within the discard bound) the body is
 * read to its end instead, as long as the socket stays within its bytes and
 * time; only then does the server close its side (FIN), so the client is
 * done sending when it sees the close. Past either bound it is cut.
 */
const closeAfterResponse = (request: IncomingMessage, response: ServerResponse, discard: Discard | undefined) => {
  const socket = request.socket
  let drained = 0
  let over = false
  let closeWanted = false
  const cut = () => {
    clearTimeout(deadline)
    socket.destroy()
  }
  const deadline = setTimeout(cut, discard?.ms ?? UNREAD_BODY_DRAIN_MS)
  deadline.unref()
  socket.once("close", () => clearTimeout(deadline))
  socket.once("end", cut)
  // Reading through the request (rather than letting Node discard it) counts each chunk as it comes.
  request.on("data", (chunk: Buffer) => {
    drained += chunk.length
    const within =
      discard === undefined ? drained <= UNREAD_BODY_DRAIN_BYTES : socket.bytesRead <= discard.untilBytesRead
    if (over || within) return
    over = true
    if (response.writableFinished) cut()
    else response.once("finish", cut)
  })
  const destroySoon = socket.destroySoon
  if (discard !== undefined) {
    // The whole body is in: close as Node would have (FIN once the response is written, then destroy).
    request.once("end", () => {
      if (closeWanted) Reflect.apply(destroySoon, socket, [])
    })
  }
  request.resume()
  // Node closes a `Connection: close` response with destroySoon (end, then destroy once written): keep the
  // read side a little longer, so the client can take the response before the close (closing on unread
  // data makes TCP reset, and a client can lose what it has not read yet).
  socket.destroySoon = function (this: Socket) {
    if (discard !== undefined) {
      // The FIN waits for the end of the body: a client still sending may take a close as a failure.
      if (request.complete) Reflect.apply(destroySoon, this, [])
      else closeWanted = true
      return
    }
    this.end()
    if (over) cut()
  }
}

const closeWhenBodyUnread = (request: IncomingMessage, response: ServerResponse) => {
  const startBytes = request.socket.bytesRead
  const writeHead = response.writeHead
  response.writeHead = function (this: ServerResponse, ...args: Array<unknown>) {
    if (!request.complete) {
      this.setHeader("connection", "close")
      const status = typeof args[0] === "number" ? args[0] : this.statusCode
      closeAfterResponse(request, this, status === 413 ? discardAfter413(request, startBytes) : undefined)
    }
    return Reflect.apply(writeHead, this, args)
  } as ServerResponse["writeHead"]
}

/**
 * The Node HTTP server under the Effect one, with duties of its own:
 *
 * - `GET /healthz` (liveness) is answered here, before the Effect runtime: a
 *   probe that orchestrators call constantly should cost what raw node:http
 *   costs, and it answers 503 `shutting_down` while the server drains, so load
 *   balancers stop sending traffic.
 * - Timeouts a public server needs: headers, whole request, keep-alive and
 *   idle (a body trickling one byte at a time held a connection for Node's
 *   default 300 s).
 * - A body left unread is not read to its end (closeWhenBodyUnread), except
 *   after a 413, within a bound proportional to the route's cap.
 * - Graceful close: when the server closes (SIGTERM makes the runtime release
 *   its layers) no new connections are taken, idle keep-alive connections
 *   close, responses in flight finish and carry `Connection: close`; a new
 *   request on a connection still open answers 503 `unavailable` with
 *   `Retry-After` (its client retries elsewhere, rather than wait on a
 *   server that is going away); after `shutdownTimeoutMs` whatever remains
 *   is cut.
 */
export const gatewayNodeServer = (settings: ServerSettings): Server => {
  const server = createServer({
    headersTimeout: settings.headersTimeoutMs,
    requestTimeout: settings.requestTimeoutMs,
    keepAliveTimeout: settings.keepAliveTimeoutMs,
    // How often Node checks the headers and request timeouts (default 30 s).
    connectionsCheckingInterval: Math.max(100, Math.min(1_000, Math.floor(settings.headersTimeoutMs / 2)))
  })
  server.timeout = settings.idleTimeoutMs
  let closing = false
  const emit = server.emit
  server.emit = function (this: Server, event: string | symbol, ...args: Array<unknown>): boolean {
    if (event === "request") {
      const request = args[0] as IncomingMessage
      const response = args[1] as ServerResponse
      if (request.url === "/healthz" && request.method === "GET") {
        response.setHeader(REQUEST_ID_HEADER, requestIdFrom(request.headers[REQUEST_ID_HEADER]?.toString()))
        answerHealth(response, closing)
        return true
      }
      if (closing) {
        if (declaresBody(request.headers)) closeWhenBodyUnread(request, response)
        answerShuttingDown(response)
        return true
      }
      if (declaresBody(request.headers)) closeWhenBodyUnread(request, response)
    }
    return Reflect.apply(emit, this, [event, ...args])
  } as Server["emit"]
  const close = server.close.bind(server)
  server.close = (callback?: (error?: Error) => void) => {
    closing = true
    const timer = setTimeout(() => server.closeAllConnections(), settings.shutdownTimeoutMs)
    timer.unref()
    close((error) => {
      clearTimeout(timer)
      callback?.(error)
    })
    server.closeIdleConnections()
    return server
  }
  return server
}

const positiveMs = (name: string, fallback: number) => integerIn(name, 1, 3_600_000, fallback, " of milliseconds")

/** The server settings (README: configuration). */
export const ServerSettingsConfig: Config.Config<ServerSettings> = Config.all({
  shutdownTimeoutMs: AppConfig.shutdownTimeoutMs,
  headersTimeoutMs: positiveMs("HTTP_HEADERS_TIMEOUT_MS", 10_000),
  requestTimeoutMs: positiveMs("HTTP_REQUEST_TIMEOUT_MS", 120_000),
  keepAliveTimeoutMs: positiveMs("HTTP_KEEP_ALIVE_TIMEOUT_MS", 5_000),
  idleTimeoutMs: positiveMs("HTTP_IDLE_TIMEOUT_MS", 60_000)
}).pipe(
  Config.validate({
    message: "HTTP_HEADERS_TIMEOUT_MS must not be larger than HTTP_REQUEST_TIMEOUT_MS",
    validation: (settings) => settings.headersTimeoutMs <= settings.requestTimeoutMs
  })
)

/** The HTTP server on PORT and HOST with the settings above: the one server of `npm start` and the tests. */
export const NodeServerLive = Layer.unwrapEffect(
  Effect.gen(function* () {
    const port = yield* AppConfig.port
    const host = yield* AppConfig.host
    const settings = yield* ServerSettingsConfig
    return NodeHttpServer.layer(() => gatewayNodeServer(settings), { port, host })
  })
)
