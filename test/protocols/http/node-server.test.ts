import { type IncomingMessage, request, type ServerResponse } from "node:http"
import { type AddressInfo, connect } from "node:net"
import { describe, expect, it } from "vitest"
import { gatewayNodeServer } from "../../../protocols/NodeServer.js"

const get = (port: number, path: string) =>
  new Promise<{ status: number; headers: Record<string, unknown>; body: string }>((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path, agent: false }, (res) => {
      let body = ""
      res.on("data", (chunk: Buffer) => {
        body += chunk.toString()
      })
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }))
    })
    req.on("error", reject)
    req.end()
  })

const SETTINGS = {
  shutdownTimeoutMs: 1_000,
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 60_000,
  keepAliveTimeoutMs: 5_000,
  idleTimeoutMs: 60_000
}

/** A server whose own handler answers after `delayMs` (or never, for -1). */
const listen = async (delayMs: number, timeoutMs: number) => {
  let handled = 0
  const server = gatewayNodeServer({ ...SETTINGS, shutdownTimeoutMs: timeoutMs })
  server.on("request", (_request: IncomingMessage, response: ServerResponse) => {
    handled++
    if (delayMs >= 0) setTimeout(() => response.end("done"), delayMs)
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return { server, port: (server.address() as AddressInfo).port, handled: () => handled }
}

describe("the gateway's Node server", () => {
  it("answers GET /healthz itself, without the application handler", async () => {
    const { handled, port, server } = await listen(0, 1000)
    const reply = await get(port, "/healthz")
    expect(reply.status).toBe(200)
    expect(JSON.parse(reply.body)).toEqual({ status: "ok" })
    expect(reply.headers["content-type"]).toBe("application/json")
    expect(handled()).toBe(0)
    expect((await get(port, "/other")).body).toBe("done")
    expect(handled()).toBe(1)
    await new Promise((resolve) => server.close(resolve))
  })

  it("on close lets a request in flight finish", async () => {
    const { port, server } = await listen(300, 5000)
    const inFlight = get(port, "/slow")
    await new Promise((resolve) => setTimeout(resolve, 50))
    const closed = new Promise((resolve) => server.close(resolve))
    const reply = await inFlight
    expect(reply.body).toBe("done")
    await closed
  })

  it("on close answers 503 with Retry-After to a request that comes on an open connection", async () => {
    const { handled, port, server } = await listen(300, 5000)
    const socket = connect(port, "127.0.0.1")
    await new Promise<void>((resolve) => socket.once("connect", () => resolve()))
    let received = ""
    socket.on("data", (chunk: Buffer) => {
      received += chunk.toString()
    })
    const ended = new Promise<void>((resolve) => socket.once("close", () => resolve()))
    // Two requests on one connection: the first is in flight when the server closes, the second comes after.
    socket.write("GET /slow HTTP/1.1\r\nhost: x\r\n\r\n")
    await new Promise((resolve) => setTimeout(resolve, 50))
    const closed = new Promise((resolve) => server.close(resolve))
    socket.write("GET /next HTTP/1.1\r\nhost: x\r\n\r\n")
    await ended
    await closed
    const [first, second] = received.split(/(?=HTTP\/1\.1 )/)
    expect(first).toMatch(/^HTTP\/1\.1 200/)
    expect(first).toContain("done")
    expect(second).toMatch(/^HTTP\/1\.1 503/)
    expect(second).toMatch(/retry-after: 1/i)
    expect(second).toMatch(/connection: close/i)
    expect(JSON.parse(second?.split("\r\n\r\n")[1] ?? "")).toMatchObject({ error: "unavailable" })
    expect(handled()).toBe(1)
  })

  it("cuts connections still open after the shutdown timeout", async () => {
    const { port, server } = await listen(-1, 300)
    const stuck = get(port, "/never").catch((error: Error) => error)
    await new Promise((resolve) => setTimeout(resolve, 50))
    const started = Date.now()
    await new Promise((resolve) => server.close(resolve))
    expect(Date.now() - started).toBeGreaterThanOrEqual(250)
    expect(Date.now() - started).toBeLessThan(3000)
    expect(await stuck).toBeInstanceOf(Error)
  })
})
