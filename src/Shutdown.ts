import type { Server } from "node:http"

/**
 * Graceful close for a Node HTTP server. When the server closes (SIGTERM makes
 * the runtime release its layers): no new connections, idle keep-alive
 * connections are closed, responses in flight finish and carry
 * `Connection: close`; after `timeoutMs` whatever remains is cut.
 */
export const gracefulServer = (server: Server, timeoutMs: number): Server => {
  let closing = false
  const close = server.close.bind(server)
  server.on("request", (_request, response) => {
    if (closing) response.setHeader("connection", "close")
  })
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
