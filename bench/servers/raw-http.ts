/**
 * Health baseline: bare node:http answering GET /healthz with the gateway's
 * body and headers. Prints `LISTENING <port>` once bound (PORT=0 picks one).
 */
import { createServer } from "node:http"

const BODY = '{"status":"ok"}'
const LENGTH = String(Buffer.byteLength(BODY))

const server = createServer((request, response) => {
  if (request.method === "GET" && request.url === "/healthz") {
    response.writeHead(200, { "content-type": "application/json", "content-length": LENGTH })
    response.end(BODY)
    return
  }
  response.writeHead(404, { "content-type": "application/json" })
  response.end('{"error":"not_found","message":"no such route"}')
})

server.listen(Number(process.env.PORT ?? 0), process.env.HOST ?? "127.0.0.1", () => {
  const address = server.address()
  const port = typeof address === "object" && address !== null ? address.port : 0
  process.stdout.write(`LISTENING ${port}\n`)
})

const stop = () => {
  server.close(() => process.exit(0))
  server.closeAllConnections()
}
process.on("SIGTERM", stop)
process.on("SIGINT", stop)
