/** The gateway and the CLI as real processes, as a user runs them. */
import { type ChildProcess, spawn } from "node:child_process"
import * as path from "node:path"

export const root = path.resolve(import.meta.dirname, "..", "..")
/** `npm start`'s entry: the compiled gateway (test/support/global-setup.ts builds dist/ before the suites). */
const gatewayEntry = path.join(root, "bin", "gateway.mjs")

export interface RunningGateway {
  readonly url: string
  readonly child: ChildProcess
  readonly output: () => string
  /** SIGTERM, then the exit code. */
  readonly stop: () => Promise<number | null>
}

/** The gateway as `npm start` runs it, logging JSON at info on a free port, with `env` on top. */
const gatewayProcess = (env: Record<string, string>) =>
  spawn(process.execPath, [gatewayEntry], {
    cwd: root,
    env: { ...process.env, PORT: "0", LOG_FORMAT: "json", LOG_LEVEL: "Info", ...env },
    stdio: ["ignore", "pipe", "pipe"]
  })

/**
 * A child's stdout and stderr, collected; `listening` resolves with the URL of
 * its "Listening on" line (rejects if it exits or takes over a minute first).
 */
export const watchOutput = (child: ChildProcess) => {
  let output = ""
  child.stdout?.on("data", (chunk: Buffer) => {
    output += chunk.toString()
  })
  child.stderr?.on("data", (chunk: Buffer) => {
    output += chunk.toString()
  })
  const listening = () =>
    new Promise<string>((resolve, reject) => {
      const deadline = Date.now() + 60_000
      const check = () => {
        const match = /Listening on (http:\/\/[\d.:]+)/.exec(output)
        if (match?.[1]) resolve(match[1])
        else if (child.exitCode !== null || Date.now() > deadline) reject(new Error(`no start:\n${output}`))
        else setTimeout(check, 100)
      }
      check()
    })
  return { output: () => output, listening }
}

/** A gateway process, once it listens (killed if it does not within a minute). */
export const spawnGateway = async (env: Record<string, string>): Promise<RunningGateway> => {
  const child = gatewayProcess(env)
  const exited = new Promise<number | null>((done) => child.once("exit", (code) => done(code)))
  const { listening, output } = watchOutput(child)
  try {
    const url = await listening()
    return {
      url,
      child,
      output,
      stop: () => {
        child.kill("SIGTERM")
        return exited
      }
    }
  } catch (error) {
    child.kill("SIGKILL")
    throw error
  }
}

/** A start that is expected to fail: its exit code and output. */
export const runGatewayToExit = (env: Record<string, string>, timeoutMs = 60_000) =>
  new Promise<{ code: number | null; output: string }>((resolve, reject) => {
    const child = gatewayProcess(env)
    const { output } = watchOutput(child)
    const timer = setTimeout(() => {
      child.kill("SIGKILL")
      reject(new Error(`gateway did not exit:\n${output()}`))
    }, timeoutMs)
    child.once("exit", (code) => {
      clearTimeout(timer)
      resolve({ code, output: output() })
    })
  })

export const runCli = (args: ReadonlyArray<string>, env: Record<string, string>) =>
  new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, [path.join(root, "bin", "svc.mjs"), ...args], {
      cwd: root,
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"]
    })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString()
    })
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString()
    })
    child.once("exit", (code) => resolve({ code, stdout, stderr }))
  })
