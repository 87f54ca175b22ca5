/**
 * The gateway as a process of its own, for the benches that measure the
 * process itself (its memory, its sockets, its connections): `node --import
 * tsx app/main.ts` on a free port of 127.0.0.1, with the default settings
 * (logging included) unless `env` says otherwise, on PostgreSQL (a fresh
 * database on `serverUrl`, dropped at stop) or the embedded store in a
 * temporary directory (removed at stop), with a project made through the
 * admin API. Also its memory, as Linux's /proc tells it.
 */
import { randomBytes } from "node:crypto"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { createDatabase } from "./db.js"
import { type Child, freePort, spawnChild, waitForHttp } from "./proc.js"
import { ROOT } from "./settings.js"

export interface ProcessGateway {
  readonly child: Child
  readonly port: number
  readonly baseUrl: string
  readonly adminToken: string
  /** The API key of the project made at start. */
  readonly apiKey: string
  /** SIGTERM (then SIGKILL), and the database or directory dropped. */
  readonly stop: () => Promise<void>
}

/** The environment a child gets: this one's, less npm's own variables and those unset. */
export const childEnv = (): Record<string, string> =>
  Object.fromEntries(
    Object.entries(process.env).filter(
      (entry): entry is [string, string] => entry[1] !== undefined && !entry[0].startsWith("npm_")
    )
  )

export const startProcessGateway = async (options: {
  readonly label: string
  /** A PostgreSQL server URL; unset: the embedded store. */
  readonly serverUrl?: string | undefined
  readonly env?: Readonly<Record<string, string>>
}): Promise<ProcessGateway> => {
  const db = options.serverUrl === undefined ? undefined : await createDatabase(options.serverUrl)
  const dataDir = mkdtempSync(join(tmpdir(), `svc-bench-${options.label}-`))
  const port = await freePort()
  const adminToken = randomBytes(32).toString("hex")
  const child = spawnChild({
    name: `gateway(${options.label})`,
    command: process.execPath,
    args: ["--import", "tsx", "app/main.ts"],
    cwd: ROOT,
    env: {
      ...childEnv(),
      PORT: String(port),
      HOST: "127.0.0.1",
      ADMIN_TOKEN: adminToken,
      BOOTSTRAP_DEFAULT_PROJECT: "false",
      DATA_DIR: dataDir,
      ...(db === undefined ? {} : { DATABASE_URL: db.url }),
      ...options.env
    },
    stdoutFile: join(dataDir, "gateway.log")
  })
  const stop = async () => {
    await child.stop(5_000)
    rmSync(dataDir, { recursive: true, force: true })
    await db?.drop()
  }
  try {
    const baseUrl = `http://127.0.0.1:${port}`
    await waitForHttp(`${baseUrl}/healthz`, 120_000, child)
    const created = await fetch(`${baseUrl}/v1/admin/projects`, {
      method: "POST",
      headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json" },
      body: JSON.stringify({ name: options.label })
    })
    if (created.status !== 201) throw new Error(`creating the bench project: ${created.status} ${await created.text()}`)
    const { api_key: apiKey } = (await created.json()) as { api_key: string }
    return { child, port, baseUrl, adminToken, apiKey, stop }
  } catch (error) {
    await stop()
    throw error
  }
}

/** A figure of /proc/<pid>/status, in MB: VmRSS (resident now) or VmHWM (the peak since the last reset). */
export const memoryMb = (pid: number, field: "VmRSS" | "VmHWM"): number => {
  const kb = Number(new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0)
  return Math.round(kb / 1024)
}

/** Resets the process's VmHWM to its resident set now, so that the next VmHWM is the peak from here. */
export const resetPeak = (pid: number): void => writeFileSync(`/proc/${pid}/clear_refs`, "5")
