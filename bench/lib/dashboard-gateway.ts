/**
 * The gateway as users start it (`npm start`: `node bin/gateway.mjs`, which
 * builds dist/ and the page first when they are stale), with the default
 * settings: logging at Info in JSON (to a file here), the default project
 * bootstrapped. Only what a run needs is set: a free port of 127.0.0.1, an
 * ADMIN_TOKEN to sign in with, a data directory of its own (the embedded
 * store), or with BENCH_DATABASE_URL (a PostgreSQL server URL) a fresh
 * database made there and dropped at stop. The bench's project is made
 * through the admin API.
 */
import { randomBytes } from "node:crypto"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { createDatabase } from "./db.js"
import { freePort, spawnChild, waitForHttp } from "./proc.js"
import { ROOT } from "./settings.js"

export interface DashboardGateway {
  readonly baseUrl: string
  readonly adminToken: string
  readonly projectId: string
  readonly apiKey: string
  readonly store: "embedded" | "postgres"
  readonly stop: () => Promise<void>
}

/** Time for a start that rebuilds dist/ and the page first. */
const START_TIMEOUT_MS = 300_000

export const startDashboardGateway = async (): Promise<DashboardGateway> => {
  const serverUrl = process.env.BENCH_DATABASE_URL
  const db = serverUrl === undefined || serverUrl === "" ? undefined : await createDatabase(serverUrl)
  const dataDir = mkdtempSync(join(tmpdir(), "svc-bench-dashboard-"))
  const port = await freePort()
  const adminToken = randomBytes(32).toString("hex")
  const child = spawnChild({
    name: "gateway(bin/gateway.mjs)",
    command: process.execPath,
    args: [join(ROOT, "bin", "gateway.mjs")],
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? "",
      PORT: String(port),
      HOST: "127.0.0.1",
      ADMIN_TOKEN: adminToken,
      DATA_DIR: dataDir,
      ...(db === undefined ? {} : { DATABASE_URL: db.url })
    },
    stdoutFile: join(dataDir, "gateway.log")
  })
  const stop = async () => {
    await child.stop(10_000)
    rmSync(dataDir, { recursive: true, force: true })
    await db?.drop()
  }
  try {
    const baseUrl = `http://127.0.0.1:${port}`
    await waitForHttp(`${baseUrl}/readyz`, START_TIMEOUT_MS, child)
    const created = await fetch(`${baseUrl}/v1/admin/projects`, {
      method: "POST",
      headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "bench-dashboard" })
    })
    const text = await created.text()
    if (created.status !== 201) throw new Error(`creating the bench project: ${created.status} ${text}`)
    const { project_id: projectId, api_key: apiKey } = JSON.parse(text) as { project_id: string; api_key: string }
    return { baseUrl, adminToken, projectId, apiKey, store: db === undefined ? "embedded" : "postgres", stop }
  } catch (error) {
    await stop()
    throw error
  }
}
