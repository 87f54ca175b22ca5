import * as fs from "node:fs"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import { afterAll, describe, expect, it } from "vitest"
import * as Database from "../../../src/platform/db/Database.js"
import { call, NOW } from "../../support/layers.js"
import { runCli, spawnGateway } from "../../support/process.js"

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-process-"))
const env = { DATA_DIR: dataDir, ADMIN_TOKEN: "process-admin-token-0123456789abcdef" }

afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }))

const userHeaders = (key: string) => ({ authorization: `Bearer ${key}`, "svc-user-id": "u1", "svc-workspace-id": "w1" })

describe("the gateway as a process on the embedded store", () => {
  let apiKey = ""
  let threadId = ""
  let firstKids: Array<string> = []

  it("first start creates the default project, prints its key once, and serves it", async () => {
    const gateway = await spawnGateway(env)
    try {
      const key = /SVC_API_KEY=(sk_[\w-]+)/.exec(gateway.output())?.[1]
      expect(/SVC_PROJECT_ID=proj_\S+/.test(gateway.output())).toBe(true)
      expect(key).toBeDefined()
      apiKey = key ?? ""
      const created = await call(gateway.url, "POST", "/v1/threads", {
        body: { last_message_at: NOW, title: "kept" },
        headers: userHeaders(apiKey)
      })
      expect(created.status).toBe(201)
      threadId = created.body.thread_id
      expect((await call(gateway.url, "GET", "/healthz")).body).toEqual({ status: "ok" })
      expect((await call(gateway.url, "GET", "/readyz")).body).toEqual({ status: "ready" })
      const openapi = await call(gateway.url, "GET", "/v1/openapi.json")
      expect(openapi.status).toBe(200)
      expect(Object.keys(openapi.body.paths)).toContain("/v1/threads")
      expect((await call(gateway.url, "GET", "/docs")).status).toBe(200)
      firstKids = (await call(gateway.url, "GET", "/.well-known/jwks.json")).body.keys.map(
        (key: { kid: string }) => key.kid
      )
      expect(firstKids).toHaveLength(1)
      // The log is structured: one JSON object a line.
      const logLine = gateway
        .output()
        .split("\n")
        .find((line) => line.includes("Listening on"))
      expect(JSON.parse(logLine ?? "").message).toContain("Listening on")
      // Each line once (a logger installed twice writes everything twice).
      const linesWith = (text: string) =>
        gateway
          .output()
          .split("\n")
          .filter((line) => line.includes(text))
      expect(linesWith("Listening on")).toHaveLength(1)
      // Every line is JSON, the one with the key included, and the key is shown once.
      for (const line of gateway.output().split("\n")) if (line.trim() !== "") JSON.parse(line)
      expect(linesWith(apiKey)).toHaveLength(1)
      expect(linesWith("storage: embedded")).toHaveLength(1)
    } finally {
      expect(await gateway.stop()).toBe(0)
    }
  })

  it("BOOTSTRAP_API_KEY: the first key is the one given, and it is never logged", async () => {
    const ownDir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-bootstrap-"))
    const given = `sk_${"k".repeat(20)}${Date.now().toString(36)}abcdefghijkl`
    const gateway = await spawnGateway({ DATA_DIR: ownDir, BOOTSTRAP_API_KEY: given })
    try {
      expect(gateway.output()).toMatch(/SVC_PROJECT_ID=proj_/)
      expect(gateway.output()).not.toContain(given)
      expect(gateway.output()).not.toContain("SVC_API_KEY")
      const created = await call(gateway.url, "POST", "/v1/threads", {
        body: { last_message_at: NOW },
        headers: userHeaders(given)
      })
      expect(created.status).toBe(201)
    } finally {
      await gateway.stop()
      fs.rmSync(ownDir, { recursive: true, force: true })
    }
  })

  it("refuses the CLI on the same data directory while the gateway runs", async () => {
    const gateway = await spawnGateway(env)
    try {
      const cli = await runCli(["project", "list"], env)
      expect(cli.code).toBe(4)
      expect(cli.stderr).toContain("in use")
    } finally {
      await gateway.stop()
    }
  })

  it("keeps data across a restart and does not print a key again", async () => {
    const gateway = await spawnGateway(env)
    try {
      expect(gateway.output()).not.toContain("SVC_API_KEY")
      const thread = await call(gateway.url, "GET", `/v1/threads/${threadId}`, { headers: userHeaders(apiKey) })
      expect(thread.status).toBe(200)
      expect(thread.body.title).toBe("kept")
      // The signing key is kept in the store too: the same kid after a restart.
      const jwks = await call(gateway.url, "GET", "/.well-known/jwks.json")
      expect(jwks.body.keys.map((key: { kid: string }) => key.kid)).toEqual(firstKids)
    } finally {
      await gateway.stop()
    }
  })

  it("finishes a request in flight on SIGTERM, then exits 0", async () => {
    const gateway = await spawnGateway(env)
    const { hostname, port } = new URL(gateway.url)
    const body = JSON.stringify({ last_message_at: NOW, title: "in flight" })
    const socket = net.connect(Number(port), hostname)
    await new Promise<void>((resolve) => socket.once("connect", () => resolve()))
    let response = ""
    socket.on("data", (chunk) => {
      response += chunk.toString()
    })
    const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()))
    const headers = Object.entries({ ...userHeaders(apiKey), "content-type": "application/json" })
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join("")
    socket.write(`POST /v1/threads HTTP/1.1\r\nhost: ${hostname}\r\n${headers}content-length: ${body.length}\r\n\r\n`)
    socket.write(body.slice(0, 10))
    await new Promise((resolve) => setTimeout(resolve, 200))
    const exit = gateway.stop()
    await new Promise((resolve) => setTimeout(resolve, 300))
    socket.write(body.slice(10))
    await closed
    expect(response).toMatch(/^HTTP\/1\.1 201/)
    expect(await exit).toBe(0)
  })

  it("the CLI creates a project and keys on the stopped store", async () => {
    const created = await runCli(["project", "create", "--name", "From CLI", "--json"], env)
    expect(created.code).toBe(0)
    const project = JSON.parse(created.stdout)
    expect(Object.keys(project).sort()).toEqual(["api_key", "project_id"])
    const key = await runCli(
      ["key", "create", "--project", project.project_id, "--expires-in-days", "30", "--json"],
      env
    )
    expect(key.code).toBe(0)
    const keyBody = JSON.parse(key.stdout)
    expect(Object.keys(keyBody).sort()).toEqual(["api_key", "expires_at", "key_id", "prefix"])
    const listed = JSON.parse((await runCli(["key", "list", "--project", project.project_id, "--json"], env)).stdout)
    expect(listed.api_keys).toHaveLength(2)
    const revoked = await runCli(["key", "revoke", "--project", project.project_id, "--key", keyBody.key_id], env)
    expect(revoked.code).toBe(0)
    // The other commands, their values and refusals run as processes on this store in test/protocols/cli/cli.test.ts.
    const bad = await runCli(["key", "create", "--project", "proj_nope"], env)
    expect(bad.code).toBe(3)
    expect(bad.stderr).toContain("project not found")
    const gateway = await spawnGateway(env)
    try {
      const usable = await call(gateway.url, "GET", "/v1/threads", { headers: userHeaders(project.api_key) })
      expect(usable.status).toBe(200)
      const refused = await call(gateway.url, "GET", "/v1/threads", { headers: userHeaders(keyBody.api_key) })
      expect(refused.status).toBe(401)
    } finally {
      await gateway.stop()
    }
  }, 300_000)

  it("a CLI command builds only the service it uses: listing projects makes no signing key", async () => {
    const fresh = fs.mkdtempSync(path.join(os.tmpdir(), "svc-cli-"))
    try {
      const listed = await runCli(["project", "list", "--json"], { DATA_DIR: fresh })
      expect(listed.code, listed.stderr).toBe(0)
      expect(JSON.parse(listed.stdout)).toEqual({ projects: [] })
      const rows = await Effect.runPromise(
        Effect.scoped(
          Effect.gen(function* () {
            const sql = yield* SqlClient.SqlClient
            return yield* sql<{ keys: number; usage: number }>`SELECT
              (SELECT count(*)::int FROM signing_keys) AS keys, (SELECT count(*)::int FROM usage_daily) AS usage`
          }).pipe(Effect.provide(Database.layerFor({ kind: "embedded", dataDir: fresh })))
        )
      )
      expect(rows).toEqual([{ keys: 0, usage: 0 }])
    } finally {
      fs.rmSync(fresh, { recursive: true, force: true })
    }
  }, 60_000)
})
