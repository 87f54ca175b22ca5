/**
 * Overload on POST /v1/traces is 503 with Retry-After, never a 500, which
 * the stock exporters retry: PostgreSQL really unreachable (behind a TCP
 * proxy the test takes down), and more exports waiting than a gateway stores
 * at once (held up by a lock another session takes on their trace's row).
 */
import * as Redacted from "effect/Redacted"
import pg from "pg"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { createProject, freshPostgresDatabase, type Gateway, startGateway } from "../../support/layers.js"
import { proxyDatabase, type TcpProxy } from "../../support/tcp-proxy.js"
import { exportOf, jsonSpan, postJson, traceIdOf } from "./otlp.js"

const baseUrl = process.env.TEST_DATABASE_URL

describe.skipIf(baseUrl === undefined)("trace exports under overload (PostgreSQL)", () => {
  let db: Awaited<ReturnType<typeof freshPostgresDatabase>>
  let proxy: TcpProxy
  let gateway: Gateway
  let apiKey: string

  beforeAll(async () => {
    db = await freshPostgresDatabase(baseUrl ?? "")
    const proxied = await proxyDatabase(db.url)
    proxy = proxied.proxy
    gateway = await startGateway({ kind: "postgres", url: Redacted.make(proxied.url) })
    apiKey = (await createProject(gateway, "overload")).api_key
  })
  afterAll(async () => {
    await gateway?.close()
    await proxy?.up().catch(() => {})
    await db?.drop()
  })

  it("answers 503 with Retry-After while the store is unreachable, and stores the retried export after", async () => {
    const body = exportOf([jsonSpan({ trace: 1, span: 1 })])
    // The key is verified (and cached) first, so the store's absence is met by the export itself.
    expect((await postJson(gateway.baseUrl, apiKey, exportOf([jsonSpan({ trace: 2, span: 1 })]))).status).toBe(200)
    await proxy.down()
    const refused = await postJson(gateway.baseUrl, apiKey, body)
    expect(refused.status).toBe(503)
    expect(refused.headers.get("retry-after")).toMatch(/^[1-9]\d*$/)
    await proxy.up()
    const deadline = Date.now() + 15_000
    let retried = await postJson(gateway.baseUrl, apiKey, body)
    while (retried.status === 503 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 250))
      retried = await postJson(gateway.baseUrl, apiKey, body)
    }
    expect([retried.status, retried.text]).toEqual([200, "{}"])
  })

  it("answers 503 with Retry-After: 1 to an export that waits past its turn, and stores those it let in", async () => {
    // A gateway of its own, straight on the database (not through the proxy the test above cut).
    const gateway = await startGateway({ kind: "postgres", url: Redacted.make(db.url) })
    const apiKey = (await createProject(gateway, "busy")).api_key
    const trace = 10
    expect((await postJson(gateway.baseUrl, apiKey, exportOf([jsonSpan({ trace, span: 1 })]))).status).toBe(200)
    const blocker = new pg.Client({ connectionString: db.url })
    await blocker.connect()
    try {
      await blocker.query("BEGIN")
      await blocker.query("SELECT 1 FROM traces WHERE trace_id = $1 FOR UPDATE", [traceIdOf(trace)])
      // More exports of the locked trace than the gateway stores at once: those let in wait on the lock.
      const held = Array.from({ length: 8 }, (_, i) =>
        postJson(gateway.baseUrl, apiKey, exportOf([jsonSpan({ trace, span: 100 + i })]))
      )
      await new Promise((resolve) => setTimeout(resolve, 300))
      const started = Date.now()
      const late = await postJson(gateway.baseUrl, apiKey, exportOf([jsonSpan({ trace: 11, span: 1 })]))
      const waited = Date.now() - started
      expect(late.status, late.text).toBe(503)
      expect(late.headers.get("retry-after")).toBe("1")
      expect(late.body).toMatchObject({ error: "unavailable", code: 14 })
      // A short wait for a turn, not the pool's 10 s connection timeout.
      expect(waited).toBeGreaterThanOrEqual(1_500)
      expect(waited).toBeLessThan(5_000)
      await blocker.query("COMMIT")
      const replies = await Promise.all(held)
      const stored = replies.filter((reply) => reply.status === 200)
      const busy = replies.filter((reply) => reply.status === 503)
      expect(stored.length + busy.length).toBe(replies.length)
      expect(stored.length).toBeGreaterThan(0)
      expect(busy.length).toBeGreaterThan(0)
      for (const reply of busy) expect(reply.headers.get("retry-after")).toBe("1")
      const kept = await gateway.sql<{ count: number }>(
        "SELECT count(*)::int AS count FROM spans WHERE trace_id = $1",
        [traceIdOf(trace)]
      )
      expect(kept[0]?.count).toBe(1 + stored.length)
      const retried = await postJson(gateway.baseUrl, apiKey, exportOf([jsonSpan({ trace: 11, span: 1 })]))
      expect(retried.status).toBe(200)
    } finally {
      await blocker.end()
      await gateway.close()
    }
  })
})
