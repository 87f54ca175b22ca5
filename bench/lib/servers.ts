/**
 * The servers under test, each a child process of its own: the gateway
 * (`node --import tsx app/main.ts`) and the baselines (bench/servers/*.ts).
 */
import { randomBytes } from "node:crypto"
import { readdirSync, renameSync, rmSync } from "node:fs"
import { join } from "node:path"
import { type Child, freePort, spawnChild, waitForHttp } from "./proc.js"
import { PROFILE_DIR, ROOT, runId, settings, workDir } from "./settings.js"

export interface Server {
  readonly child: Child
  readonly baseUrl: string
  /** Where bench/lib/probe.ts, preloaded into the server, writes its event-loop figures. */
  readonly probeFile: string
}

export interface GatewayServer extends Server {
  readonly logFile: string
  /** After the gateway has exited: its main-thread CPU profile (BENCH_PROFILE), renamed for the workload. */
  readonly collectProfile: () => string | undefined
}

const PROBE = ["--import", "./bench/lib/probe.ts"]

/** The admin API's token for every gateway of this run (the seed creates the projects with it). */
export const adminToken = `bench-admin-${randomBytes(16).toString("hex")}`

const baseEnv = (): Record<string, string> => {
  const env: Record<string, string> = {}
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !key.startsWith("LOG_") && !key.startsWith("npm_")) env[key] = value
  }
  return env
}

/** The gateway as `node [--cpu-prof ...] --import tsx app/main.ts`. */
export const startGateway = async (
  databaseUrl: string,
  options: { readonly label: string; readonly logLevel: "Warn" | "default"; readonly profile: boolean }
): Promise<GatewayServer> => {
  const port = await freePort()
  const logFile = join(workDir, `gateway-${options.label}.log`)
  const probeFile = join(workDir, `probe-gateway-${options.label}.txt`)
  const env = {
    ...baseEnv(),
    PORT: String(port),
    HOST: "127.0.0.1",
    DATABASE_URL: databaseUrl,
    DATABASE_POOL_MAX: String(settings.poolMax),
    ADMIN_TOKEN: adminToken,
    BOOTSTRAP_DEFAULT_PROJECT: "false",
    SHUTDOWN_TIMEOUT_MS: "2000",
    BENCH_PROBE_FILE: probeFile,
    // "Warn" is the label Effect's Config.logLevel accepts (it rejects "Warning").
    ...(options.logLevel === "Warn" ? { LOG_LEVEL: "Warn" } : {})
  }
  const args = [
    ...(options.profile ? ["--cpu-prof", "--cpu-prof-dir", PROFILE_DIR] : []),
    "--import",
    "tsx",
    ...PROBE,
    "app/main.ts"
  ]
  const child = spawnChild({
    name: `gateway(${options.label})`,
    command: process.execPath,
    args,
    cwd: ROOT,
    env,
    stdoutFile: logFile
  })
  const baseUrl = `http://127.0.0.1:${port}`
  await waitForHttp(`${baseUrl}/healthz`, 60_000, child)
  /**
   * After the gateway has exited: --cpu-prof writes one profile per thread,
   * CPU.<date>.<time>.<pid>.<thread>.<seq>.cpuprofile. Thread 0 is the
   * gateway; the others are tsx's module-loader thread (startup only), dropped.
   */
  const collectProfile = (): string | undefined => {
    if (!options.profile) return undefined
    let main: string | undefined
    for (const file of readdirSync(PROFILE_DIR)) {
      const match = /^CPU\.\d+\.\d+\.(\d+)\.(\d+)\.\d+\.cpuprofile$/.exec(file)
      if (match?.[1] !== String(child.pid)) continue
      if (match[2] === "0") main = join(PROFILE_DIR, file)
      else rmSync(join(PROFILE_DIR, file))
    }
    if (main === undefined) return undefined
    const named = join(PROFILE_DIR, `${runId}-${options.label}.cpuprofile`)
    renameSync(main, named)
    return named
  }
  return { child, baseUrl, probeFile, logFile, collectProfile }
}

/**
 * A baseline server (bench/servers/*.ts) in its own process; it prints
 * `LISTENING <port>`. node-pg reads the statements captured from the
 * repositories from `statementsFile`.
 */
export const startBaseline = async (
  script: "raw-http" | "node-pg",
  databaseUrl: string,
  statementsFile: string
): Promise<Server> => {
  const probeFile = join(workDir, `probe-${script}-${Date.now()}.txt`)
  const child = spawnChild({
    name: script,
    command: process.execPath,
    args: ["--import", "tsx", ...PROBE, `bench/servers/${script}.ts`],
    cwd: ROOT,
    env: {
      ...baseEnv(),
      PORT: "0",
      HOST: "127.0.0.1",
      DATABASE_URL: databaseUrl,
      DATABASE_POOL_MAX: String(settings.poolMax),
      API_KEY_CACHE_MS: "5000",
      BENCH_PROBE_FILE: probeFile,
      BENCH_STATEMENTS: statementsFile
    }
  })
  const match = await child.waitForLine(/LISTENING (\d+)/, 30_000)
  const baseUrl = `http://127.0.0.1:${match[1]}`
  await waitForHttp(`${baseUrl}/healthz`, 10_000, child)
  return { child, baseUrl, probeFile }
}
