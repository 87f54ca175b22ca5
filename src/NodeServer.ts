import type { IncomingMessage, Server, ServerResponse } from "node:http"

const HEALTH_OK = JSON.stringify({ status: "ok" })
const HEALTH_DRAINING = JSON.stringify({ status: "shutting_down" })

const answerHealth = (response: ServerResponse, draining: boolean) => {
  const body = draining ? HEALTH_DRAINING : HEALTH_OK
  response.writeHead(draining ? 503 : 200, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(body),
    ...(draining ? { connection: "close" } : {})
  })
  response.end(body)
}

/**
 * The Node HTTP server under the Effect one, with two duties of its own:
 *
 * - `GET /healthz` (liveness) is answered here, before the Effect runtime: a
 *   probe that orchestrators call constantly should cost what raw node:http
 *   costs, and it answers 503 `shutting_down` while the server drains, so load
 *   balancers stop sending traffic.
 * - Graceful close: when the server closes (SIGTERM makes the runtime release
 *   its layers) no new connections are taken, idle keep-alive connections
 *   close, responses in flight finish and carry `Connection: close`; after
 *   `timeoutMs` whatever remains is cut.
 */
export const gatewayNodeServer = (server: Server, timeoutMs: number): Server => {
  let closing = false
  const emit = server.emit
  server.emit = function (this: Server, event: string | symbol, ...args: Array<unknown>): boolean {
    if (event === "request") {
      const request = args[0] as IncomingMessage
      const response = args[1] as ServerResponse
      if (closing) response.setHeader("connection", "close")
      if (request.url === "/healthz" && request.method === "GET") {
        answerHealth(response, closing)
        return true
      }
    }
    return Reflect.apply(emit, this, [event, ...args])
  } as Server["emit"]
  const close = server.close.bind(server)
  server.close = (callback?: (error?: Error) => void) => {
    closing = true
    const timer = setTimeout(() => server.closeAllConnections(), timeoutMs)
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
