/**
 * Child processes of the bench: every server under test runs in a process of
 * its own, is tracked here, and is killed when the bench ends, fails or is
 * interrupted. Also CPU accounting from /proc (Linux).
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process"
import { closeSync, openSync, readdirSync, readFileSync } from "node:fs"
import { createServer } from "node:net"

const live = new Set<ChildProcess>()

/** Synchronous last resort (process "exit" handler): SIGKILL every child still running. */
export const killAllNow = (): void => {
  for (const child of live) {
    if (child.exitCode === null && child.signalCode === null) {
      try {
        child.kill("SIGKILL")
      } catch {
        // already gone
      }
    }
  }
  live.clear()
}

export interface Child {
  readonly name: string
  readonly pid: number
  readonly process: ChildProcess
  /** The last few KB of stderr, for error reports. */
  readonly stderrTail: () => string
  /** Resolves with the first stdout line matching `pattern` (only when stdout is piped). */
  readonly waitForLine: (pattern: RegExp, timeoutMs: number) => Promise<RegExpMatchArray>
  /** SIGTERM, then SIGKILL after `graceMs`; resolves once the process has exited. */
  readonly stop: (graceMs?: number) => Promise<void>
  readonly exited: Promise<number | null>
}

export interface SpawnOptions {
  readonly name: string
  readonly command: string
  readonly args: ReadonlyArray<string>
  readonly cwd: string
  readonly env: Record<string, string>
  /** Send stdout to this file instead of a pipe (big logs must not flow through the load generator). */
  readonly stdoutFile?: string | undefined
}

export const spawnChild = (options: SpawnOptions): Child => {
  const stdoutFd = options.stdoutFile === undefined ? undefined : openSync(options.stdoutFile, "a")
  const child = spawn(options.command, [...options.args], {
    cwd: options.cwd,
    env: options.env,
    stdio: ["ignore", stdoutFd ?? "pipe", "pipe"]
  })
  if (stdoutFd !== undefined) closeSync(stdoutFd)
  if (child.pid === undefined) throw new Error(`${options.name}: spawn failed`)
  live.add(child)
  let stderr = ""
  child.stderr?.setEncoding("utf8")
  child.stderr?.on("data", (chunk: string) => {
    stderr = (stderr + chunk).slice(-4096)
  })
  let stdoutBuffer = ""
  const waiters: Array<{ pattern: RegExp; resolve: (m: RegExpMatchArray) => void }> = []
  child.stdout?.setEncoding("utf8")
  child.stdout?.on("data", (chunk: string) => {
    stdoutBuffer = (stdoutBuffer + chunk).slice(-16384)
    for (const waiter of [...waiters]) {
      const match = stdoutBuffer.match(waiter.pattern)
      if (match) {
        waiters.splice(waiters.indexOf(waiter), 1)
        waiter.resolve(match)
      }
    }
  })
  const exited = new Promise<number | null>((resolve) => {
    child.on("exit", (code) => {
      live.delete(child)
      resolve(code)
    })
  })
  const waitForLine = (pattern: RegExp, timeoutMs: number) =>
    new Promise<RegExpMatchArray>((resolve, reject) => {
      const already = stdoutBuffer.match(pattern)
      if (already) return resolve(already)
      const timer = setTimeout(() => {
        reject(new Error(`${options.name}: no ${pattern} on stdout within ${timeoutMs} ms; stderr: ${stderr}`))
      }, timeoutMs)
      waiters.push({
        pattern,
        resolve: (m) => {
          clearTimeout(timer)
          resolve(m)
        }
      })
      void exited.then((code) => {
        clearTimeout(timer)
        reject(new Error(`${options.name} exited (${code}) before ${pattern}; stderr: ${stderr}`))
      })
    })
  const stop = async (graceMs = 5000) => {
    if (child.exitCode !== null || child.signalCode !== null) return
    child.kill("SIGTERM")
    const timer = setTimeout(() => child.kill("SIGKILL"), graceMs)
    await exited
    clearTimeout(timer)
  }
  return { name: options.name, pid: child.pid, process: child, stderrTail: () => stderr, waitForLine, stop, exited }
}

/** Runs a command to completion with a hard time limit; resolves with its output. */
export const runToCompletion = (
  options: SpawnOptions & { readonly timeoutMs: number }
): Promise<{ readonly code: number | null; readonly stdout: string; readonly stderr: string }> =>
  new Promise((resolve, reject) => {
    const child = spawn(options.command, [...options.args], {
      cwd: options.cwd,
      env: options.env,
      stdio: ["ignore", "pipe", "pipe"]
    })
    live.add(child)
    let stdout = ""
    let stderr = ""
    child.stdout.setEncoding("utf8").on("data", (c: string) => {
      stdout += c
    })
    child.stderr.setEncoding("utf8").on("data", (c: string) => {
      stderr += c
    })
    const timer = setTimeout(() => {
      child.kill("SIGKILL")
      reject(new Error(`${options.name}: still running after ${options.timeoutMs} ms, killed`))
    }, options.timeoutMs)
    child.on("error", (error) => {
      clearTimeout(timer)
      live.delete(child)
      reject(error)
    })
    child.on("exit", (code) => {
      clearTimeout(timer)
      live.delete(child)
      resolve({ code, stdout, stderr })
    })
  })

/** A TCP port free right now on 127.0.0.1. */
export const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = createServer()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      server.close(() => resolve(port))
    })
  })

/** Polls `url` until it answers 200 or the time is up. */
export const waitForHttp = async (url: string, timeoutMs: number, child?: Child): Promise<void> => {
  const deadline = Date.now() + timeoutMs
  let exited = false
  void child?.exited.then(() => {
    exited = true
  })
  while (Date.now() < deadline) {
    if (exited) throw new Error(`${child?.name} exited during startup; stderr: ${child?.stderrTail()}`)
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(1000) })
      await response.arrayBuffer()
      if (response.ok) return
    } catch {
      // not yet listening
    }
    await new Promise((r) => setTimeout(r, 100))
  }
  throw new Error(`${url} did not answer within ${timeoutMs} ms; stderr: ${child?.stderrTail() ?? ""}`)
}

let clockTicks: number | undefined
const ticksPerSecond = (): number => {
  if (clockTicks === undefined) {
    try {
      clockTicks = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100
    } catch {
      clockTicks = 100
    }
  }
  return clockTicks
}

interface ProcStat {
  readonly comm: string
  readonly cpuSeconds: number
}

const readStat = (pid: number | string): ProcStat | undefined => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
    const open = stat.indexOf("(")
    const close = stat.lastIndexOf(")")
    // Fields after the command: state is field 3, utime 14, stime 15.
    const rest = stat.slice(close + 2).split(" ")
    const utime = Number(rest[11])
    const stime = Number(rest[12])
    return { comm: stat.slice(open + 1, close), cpuSeconds: (utime + stime) / ticksPerSecond() }
  } catch {
    return undefined
  }
}

/** CPU seconds (user + system) used so far by one process; undefined off Linux or once it is gone. */
export const processCpuSeconds = (pid: number): number | undefined => readStat(pid)?.cpuSeconds

/**
 * CPU seconds used so far by every process named `postgres` (the server and
 * all its backends, whichever database). Backends that exit between two
 * readings take their time with them, so only use it across a window in which
 * the connections stay open.
 */
export const postgresCpuSeconds = (): number | undefined => {
  let entries: Array<string>
  try {
    entries = readdirSync("/proc")
  } catch {
    return undefined
  }
  let total = 0
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue
    const stat = readStat(entry)
    if (stat?.comm === "postgres") total += stat.cpuSeconds
  }
  return total
}

/** What bench/lib/probe.ts last wrote: cumulative event-loop idle and active milliseconds. */
export interface ProbeReading {
  readonly idleMs: number
  readonly activeMs: number
}

export const readProbe = (file: string): ProbeReading | undefined => {
  try {
    const [idle, active] = readFileSync(file, "utf8").trim().split(" ").map(Number)
    return idle === undefined || active === undefined || Number.isNaN(idle) || Number.isNaN(active)
      ? undefined
      : { idleMs: idle, activeMs: active }
  } catch {
    return undefined
  }
}

/** Busy and total CPU seconds of the whole machine (all cores) so far, from /proc/stat. */
export const machineCpuSeconds = (): { readonly busy: number; readonly total: number } | undefined => {
  try {
    const line = readFileSync("/proc/stat", "utf8").split("\n")[0] ?? ""
    // cpu user nice system idle iowait irq softirq steal ...
    const fields = line.trim().split(/\s+/).slice(1, 9).map(Number)
    const [user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0] = fields
    const busy = user + nice + system + irq + softirq + steal
    return { busy: busy / ticksPerSecond(), total: (busy + idle + iowait) / ticksPerSecond() }
  } catch {
    return undefined
  }
}
