/**
 * The soak's own deployment on this machine (issue 28): a PostgreSQL
 * instance made with initdb in a temporary folder on a port of its own (so
 * that it can be restarted without touching the machine's server), PgBouncer
 * in transaction mode in front of it (scripts/pgbouncer.sh), three gateways
 * (`node dist/main.js`, the built gateway, built first when stale) reaching the database through
 * PgBouncer, and HAProxy balancing them with health checks on /readyz.
 * HAProxy and PgBouncer are Debian's, installed when missing. Everything is
 * stopped by `stop()`, and by the process's exit and signal handlers.
 */
import { execFileSync } from "node:child_process"
import { randomBytes } from "node:crypto"
import { chmodSync, chownSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import pg from "pg"
import { childEnv } from "../lib/gateway-process.js"
import { type Child, freePort, runToCompletion, spawnChild, waitForHttp } from "../lib/proc.js"
import { ROOT } from "../lib/settings.js"

const isRoot = process.getuid?.() === 0
const log = (line: string) => console.log(`[soak] ${line}`)

/** A command as the postgres user when this process is root (initdb and postgres refuse root). */
const asPostgres = (command: string, args: ReadonlyArray<string>): [string, Array<string>] =>
  isRoot ? ["runuser", ["-u", "postgres", "--", command, ...args]] : [command, [...args]]

const run = async (command: string, args: ReadonlyArray<string>, timeoutMs = 120_000): Promise<string> => {
  const result = await runToCompletion({
    name: command,
    command,
    args,
    cwd: ROOT,
    env: childEnv(),
    timeoutMs
  })
  if (result.code !== 0)
    throw new Error(`${command} ${args.join(" ")}: exit ${result.code}\n${result.stdout}${result.stderr}`)
  return result.stdout
}

const pgBin = (name: string): string => {
  for (const dir of ["/usr/local/bin", "/usr/local/pgsql/bin"]) {
    try {
      execFileSync("test", ["-x", join(dir, name)])
      return join(dir, name)
    } catch {
      // not there
    }
  }
  return name
}

/** Debian's package when its command is missing (as .ci/run installs Chromium). */
export const ensureDebianPackage = (command: string, pkg: string): void => {
  try {
    execFileSync("sh", ["-c", `command -v ${command} || test -x /usr/sbin/${command}`], { stdio: "ignore" })
    return
  } catch {
    log(`${command} is not installed; installing Debian's ${pkg}`)
  }
  const apt = (args: Array<string>) =>
    isRoot
      ? execFileSync("env", ["DEBIAN_FRONTEND=noninteractive", ...args], { stdio: "inherit" })
      : execFileSync("sudo", ["env", "DEBIAN_FRONTEND=noninteractive", ...args], { stdio: "inherit" })
  try {
    apt(["apt-get", "install", "-y", pkg])
  } catch {
    apt(["apt-get", "update"])
    apt(["apt-get", "install", "-y", pkg])
  }
}

export interface GatewayProcess {
  readonly name: string
  readonly port: number
  /** Unset until started. */
  child: Child | undefined
  readonly dataDir: string
  readonly logFile: string
  /** When the running process was started (Date.now()). */
  startedAt: number | undefined
}

export interface Cluster {
  readonly dir: string
  readonly balancerUrl: string
  /** The soak's database, straight (not through PgBouncer): for the checks and the jobs watch. */
  readonly directUrl: string
  readonly adminToken: string
  readonly gateways: ReadonlyArray<GatewayProcess>
  readonly killGateway: (index: number) => void
  readonly startGateway: (index: number) => Promise<void>
  readonly restartPostgres: (mode: "fast" | "immediate") => Promise<void>
  readonly stopPooler: () => Promise<void>
  readonly startPooler: () => Promise<void>
  readonly stop: () => Promise<void>
  /** Synchronous last resort (exit handler). */
  readonly stopNow: () => void
}

const haproxyConfig = (
  port: number,
  gateways: ReadonlyArray<{ name: string; port: number }>,
  pidFile: string
) => `# Written by bench/soak/cluster.ts; deploy/haproxy.cfg is the operators' version.
global
  maxconn 4096
  pidfile ${pidFile}

defaults
  mode http
  option httplog
  timeout connect 2s
  timeout client 75s
  # Longer than the gateway's own bounds (60 s statement timeout, 10 s outcome lookup).
  timeout server 75s
  timeout http-keep-alive 30s
  # Requests past a gateway's maxconn wait here, at most this long (then 503 with Retry-After).
  timeout queue 30s
  # A connection refused by a gateway (killed, restarting) is tried again on
  # another one: nothing reached a gateway, so nothing was written.
  retries 3
  option redispatch 1
  retry-on conn-failure
  # No gateway ready (the store down for all of them): nothing was sent, so a
  # 503 with Retry-After, as a gateway would answer.
  http-error status 503 content-type application/json string "{\\"error\\":\\"unavailable\\"}" hdr retry-after 5 hdr x-balancer haproxy
  # A gateway that went away while it had the request (killed): the outcome is unknown.
  http-error status 502 content-type application/json string "{\\"error\\":\\"bad_gateway\\"}" hdr x-balancer haproxy
  http-error status 504 content-type application/json string "{\\"error\\":\\"gateway_timeout\\"}" hdr x-balancer haproxy

frontend api
  bind 127.0.0.1:${port}
  default_backend gateways

backend gateways
  balance leastconn
  option httpchk GET /readyz
  http-check expect status 200
  # A gateway answering /readyz slowly under load is not down: 5 s to answer, 3 failures in a row.
  timeout check 5s
  # More requests at once than this only queue inside a gateway (its pool has 10 connections).
  default-server inter 1s fastinter 500ms downinter 1s fall 3 rise 2 maxconn 64
${gateways.map((g) => `  server ${g.name} 127.0.0.1:${g.port} check`).join("\n")}
`

export const startCluster = async (options: {
  readonly gatewayEnv: Readonly<Record<string, string>>
  /** Node's flags for the gateways (the soak's `--trace-gc`). */
  readonly nodeArgs?: ReadonlyArray<string>
  readonly gateways: number
}): Promise<Cluster> => {
  ensureDebianPackage("haproxy", "haproxy")
  ensureDebianPackage("pgbouncer", "pgbouncer")
  // Built once here, and the gateways run dist/main.js (what bin/gateway.mjs imports once dist/ is current): a
  // gateway restarted during the soak after a source was edited must not rebuild dist/ under the others.
  execFileSync(process.execPath, ["-e", 'import("./scripts/build.mjs").then((b) => b.ensureBuilt())'], {
    cwd: ROOT,
    stdio: "inherit"
  })
  const dir = mkdtempSync(join(tmpdir(), "svc-soak-"))
  chmodSync(dir, 0o755)
  const pgDir = join(dir, "pg")
  const poolerDir = join(dir, "pgbouncer")
  mkdirSync(pgDir)
  mkdirSync(poolerDir)
  if (isRoot) {
    const uid = Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" }).trim())
    const gid = Number(execFileSync("id", ["-g", "postgres"], { encoding: "utf8" }).trim())
    chownSync(pgDir, uid, gid)
  }
  const [pgPort, poolerPort, balancerPort] = [await freePort(), await freePort(), await freePort()]
  const adminToken = randomBytes(32).toString("hex")
  let pgStarted = false
  let poolerStarted = false
  let haproxy: Child | undefined
  const gateways: Array<GatewayProcess> = []

  const pgCtl = (args: ReadonlyArray<string>) => asPostgres(pgBin("pg_ctl"), ["-D", join(pgDir, "data"), ...args])
  const stopNow = () => {
    for (const g of gateways) {
      try {
        g.child?.process.kill("SIGKILL")
      } catch {
        // gone
      }
    }
    try {
      haproxy?.process.kill("SIGKILL")
    } catch {
      // gone
    }
    if (poolerStarted) {
      try {
        execFileSync(join(ROOT, "scripts/pgbouncer.sh"), ["stop", poolerDir], { stdio: "ignore" })
      } catch {
        // gone
      }
    }
    if (pgStarted) {
      try {
        const [cmd, args] = pgCtl(["stop", "-m", "immediate", "-w"])
        execFileSync(cmd, args, { stdio: "ignore" })
      } catch {
        // gone
      }
    }
  }
  const onExit = () => stopNow()
  process.on("exit", onExit)

  try {
    // PostgreSQL: its own cluster, trust auth on 127.0.0.1 only.
    {
      const [cmd, args] = asPostgres(pgBin("initdb"), [
        "-D",
        join(pgDir, "data"),
        "-U",
        "postgres",
        "--auth=trust",
        "-E",
        "UTF8",
        "--no-sync"
      ])
      await run(cmd, args)
      writeFileSync(
        join(pgDir, "data", "postgresql.auto.conf"),
        [
          `port = ${pgPort}`,
          "listen_addresses = '127.0.0.1'",
          `unix_socket_directories = '${pgDir}'`,
          "max_connections = 120",
          "shared_buffers = 128MB",
          ""
        ].join("\n"),
        { flag: "a" }
      )
      const [ctl, ctlArgs] = pgCtl(["start", "-w", "-t", "60", "-l", join(pgDir, "postgres.log")])
      await run(ctl, ctlArgs)
      pgStarted = true
      const client = new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:${pgPort}/postgres` })
      await client.connect()
      await client.query("CREATE DATABASE soak")
      await client.end()
      log(`PostgreSQL on 127.0.0.1:${pgPort} (${pgDir})`)
    }
    const startPooler = async () => {
      await run(join(ROOT, "scripts/pgbouncer.sh"), [
        "start",
        poolerDir,
        String(poolerPort),
        "127.0.0.1",
        String(pgPort)
      ])
      poolerStarted = true
    }
    const stopPooler = async () => {
      await run(join(ROOT, "scripts/pgbouncer.sh"), ["stop", poolerDir])
    }
    await startPooler()
    log(`PgBouncer (transaction mode) on 127.0.0.1:${poolerPort}`)

    const publicUrl = `http://127.0.0.1:${balancerPort}`
    const databaseUrl = `postgres://postgres@127.0.0.1:${poolerPort}/soak`
    for (let i = 0; i < options.gateways; i++) {
      const dataDir = join(dir, `gw${i + 1}`)
      mkdirSync(dataDir)
      gateways.push({
        name: `gw${i + 1}`,
        port: await freePort(),
        dataDir,
        logFile: join(dataDir, "gateway.log"),
        child: undefined,
        startedAt: undefined
      })
    }
    const startGateway = async (index: number) => {
      const g = gateways[index]
      if (g === undefined) throw new Error(`no gateway ${index}`)
      g.startedAt = Date.now()
      g.child = spawnChild({
        name: g.name,
        command: process.execPath,
        args: [...(options.nodeArgs ?? []), "dist/main.js"],
        cwd: ROOT,
        env: {
          ...childEnv(),
          PORT: String(g.port),
          HOST: "127.0.0.1",
          DATABASE_URL: databaseUrl,
          ADMIN_TOKEN: adminToken,
          BOOTSTRAP_DEFAULT_PROJECT: "false",
          DATA_DIR: g.dataDir,
          TRUSTED_PROXIES: "127.0.0.1",
          WEBHOOK_ALLOW_PRIVATE: "true",
          // One issuer for all: a token signed by one gateway is checked by the others.
          PUBLIC_URL: publicUrl,
          ...options.gatewayEnv
        },
        stdoutFile: g.logFile
      })
      await waitForHttp(`http://127.0.0.1:${g.port}/readyz`, 120_000, g.child)
    }
    // The first alone (it migrates the empty database and makes its keys), then the others.
    await startGateway(0)
    await Promise.all(gateways.slice(1).map((_, i) => startGateway(i + 1)))
    log(`gateways on ${gateways.map((g) => `${g.name} 127.0.0.1:${g.port}`).join(", ")}`)

    const cfg = join(dir, "haproxy.cfg")
    writeFileSync(cfg, haproxyConfig(balancerPort, gateways, join(dir, "haproxy.pid")))
    await run("haproxy", ["-c", "-q", "-f", cfg])
    haproxy = spawnChild({
      name: "haproxy",
      command: "haproxy",
      args: ["-db", "-f", cfg],
      cwd: dir,
      env: childEnv(),
      stdoutFile: join(dir, "haproxy.log")
    })
    const balancerUrl = `http://127.0.0.1:${balancerPort}`
    await waitForHttp(`${balancerUrl}/readyz`, 30_000, haproxy)
    log(`HAProxy on ${balancerUrl}`)

    return {
      dir,
      balancerUrl,
      directUrl: `postgres://postgres@127.0.0.1:${pgPort}/soak`,
      adminToken,
      gateways,
      killGateway: (index) => {
        gateways[index]?.child?.process.kill("SIGKILL")
      },
      startGateway,
      restartPostgres: async (mode) => {
        const [ctl, args] = pgCtl(["restart", "-m", mode, "-w", "-t", "60", "-l", join(pgDir, "postgres.log")])
        await run(ctl, args)
      },
      stopPooler,
      startPooler,
      stop: async () => {
        const started = Date.now()
        // The balancer first: its idle connections would otherwise hold each gateway's shutdown.
        await haproxy?.stop(5_000)
        await Promise.all(gateways.map((g) => g.child?.stop(10_000)))
        await stopPooler().catch(() => undefined)
        poolerStarted = false
        const [ctl, args] = pgCtl(["stop", "-m", "fast", "-w"])
        await run(ctl, args).catch(() => undefined)
        pgStarted = false
        process.off("exit", onExit)
        log(`stopped everything in ${((Date.now() - started) / 1000).toFixed(1)} s`)
      },
      stopNow
    }
  } catch (error) {
    stopNow()
    process.off("exit", onExit)
    throw error
  }
}

/** Resident memory of a process in MB (Linux), undefined once it is gone. */
export const rssMb = (pid: number): number | undefined => {
  try {
    const kb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1])
    return Number.isFinite(kb) ? Math.round(kb / 102.4) / 10 : undefined
  } catch {
    return undefined
  }
}

export const removeDir = (dir: string) => rmSync(dir, { recursive: true, force: true })
