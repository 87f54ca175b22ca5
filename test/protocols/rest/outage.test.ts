/**
 * PostgreSQL going away under a running gateway, and not there yet when it
 * starts: requests answer 503 `unavailable` with Retry-After (never 500) and
 * the gateway recovers by itself; a start waits for the database. The
 * database sits behind a TCP proxy the test takes down and brings back.
 */
import * as net from "node:net"
import * as Redacted from "effect/Redacted"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  asUser,
  call,
  createProject,
  freshPostgresDatabase,
  type Gateway,
  NOW,
  startGateway
} from "../../support/layers.js"
import { spawnGateway } from "../../support/process.js"
import { freePort, startTcpProxy, type TcpProxy } from "../../support/tcp-proxy.js"

const baseUrl = process.env.TEST_DATABASE_URL

const until = async <T>(attempt: () => Promise<T | undefined>, timeoutMs: number): Promise<T> => {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await attempt()
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new Error("timed out")
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
}

describe.skipIf(baseUrl === undefined)("PostgreSQL unreachable", () => {
  let db: Awaited<ReturnType<typeof freshPostgresDatabase>>
  let proxy: TcpProxy
  let gateway: Gateway
  const proxiedUrl = () => {
    const url = new URL(db.url)
    url.hostname = "127.0.0.1"
    url.port = String(proxy.port)
    return url.toString()
  }

  beforeAll(async () => {
    db = await freshPostgresDatabase(baseUrl ?? "")
    const target = new URL(db.url)
    proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) })
    gateway = await startGateway({ kind: "postgres", url: Redacted.make(proxiedUrl()) })
  })
  afterAll(async () => {
    await gateway?.close()
    await proxy?.up().catch(() => {})
    await db?.drop()
  })

  it("answers 503 with Retry-After while the store is down, and recovers by itself", async () => {
    const { api_key } = await createProject(gateway)
    const user = asUser(gateway, api_key, "u1", "w1")
    const created = await user("POST", "/threads", { body: { last_message_at: NOW, title: "before" } })
    expect(created.status).toBe(201)

    await proxy.down()
    for (const reply of [
      await user("GET", `/threads/${created.body.thread_id}`),
      await user("POST", "/threads", { body: { last_message_at: NOW } }),
      await user("GET", "/threads")
    ]) {
      expect(reply.status).toBe(503)
      expect(reply.headers.get("retry-after")).toMatch(/^\d+$/)
      expect(reply.body).toEqual({ error: "unavailable", message: expect.any(String) })
    }
    // MCP answers the same: 503 with Retry-After for a single tools/call and for a batch (every tool reads,
    // so the whole request may be sent again), not a JSON-RPC "internal error" the client would not retry.
    const mcp = (body: unknown) =>
      call(gateway.baseUrl, "POST", "/v1/mcp", {
        raw: JSON.stringify(body),
        headers: {
          authorization: `Bearer ${api_key}`,
          accept: "application/json, text/event-stream",
          "content-type": "application/json"
        }
      })
    const listThreads = (id: number) => ({
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: { name: "list_threads", arguments: {} }
    })
    for (const body of [listThreads(1), [listThreads(2), listThreads(3)]]) {
      const reply = await mcp(body)
      expect(reply.status, reply.text).toBe(503)
      expect(reply.headers.get("retry-after")).toMatch(/^\d+$/)
    }
    expect((await call(gateway.baseUrl, "GET", "/readyz")).status).toBe(503)
    expect((await call(gateway.baseUrl, "GET", "/healthz")).status).toBe(200)

    await proxy.up()
    const back = await until(async () => {
      const reply = await user("GET", `/threads/${created.body.thread_id}`)
      return reply.status === 503 ? undefined : reply
    }, 15_000)
    expect(back.status).toBe(200)
    expect(back.body.title).toBe("before")
    const listed = await mcp(listThreads(4))
    expect(listed.status, listed.text).toBe(200)
    expect(listed.text).not.toContain("internal error")
    expect((await call(gateway.baseUrl, "GET", "/readyz")).status).toBe(200)
  })

  it("a gateway started before its database waits for it, then serves", async () => {
    const port = await freePort()
    const target = new URL(db.url)
    const url = new URL(db.url)
    url.hostname = "127.0.0.1"
    url.port = String(port)
    // Until the gateway has tried once, its connections are cut on arrival.
    let attempts = 0
    const refusing = net.createServer((socket) => {
      attempts++
      socket.destroy()
    })
    await new Promise<void>((resolve) => refusing.listen(port, "127.0.0.1", resolve))
    const starting = spawnGateway({ DATABASE_URL: url.toString(), DATABASE_STARTUP_TIMEOUT_MS: "30000" })
    await until(async () => (attempts > 0 ? true : undefined), 30_000)
    await new Promise<void>((resolve) => refusing.close(() => resolve()))
    const late = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) }, port)
    try {
      const running = await starting
      try {
        expect(running.output()).toContain("is not reachable yet; retrying in")
        expect((await call(running.url, "GET", "/readyz")).status).toBe(200)
      } finally {
        expect(await running.stop()).toBe(0)
      }
      expect(running.output()).toMatch(/"message":"stopped on SIGTERM"/)
    } finally {
      await late.down()
    }
  }, 60_000)
})
