/** The gateway and the CLI as real processes, as a user runs them. */
import { type ChildProcess, spawn } from "node:child_process"
import * as path from "node:path"

const root = path.resolve(import.meta.dirname, "..")
const tsx = path.join(root, "node_modules", "tsx", "dist", "cli.mjs")

export interface RunningGateway {
  readonly url: string
  readonly child: ChildProcess
  readonly output: () => string
  /** SIGTERM, then the exit code. */
  readonly stop: () => Promise<number | null>
}

export const spawnGateway = (env: Record<string, string>): Promise<RunningGateway> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [tsx, "app/main.ts"], {
      cwd: root,
      env: { ...process.env, PORT: "0", LOG_FORMAT: "json", LOG_LEVEL: "Info", ...env },
      stdio: ["ignore", "pipe", "pipe"]
    })
    let output = ""
    const exited = new Promise<number | null>((done) => child.once("exit", (code) => done(code)))
    const timer = setTimeout(() => {
      child.kill("SIGKILL")
      reject(new Error(`gateway did not start:\n${output}`))
    }, 60_000)
    const onData = (chunk: Buffer) => {
      output += chunk.toString()
      const match = /Listening on (http:\/\/[\d.:]+)/.exec(output)
      if (match?.[1]) {
        clearTimeout(timer)
        child.stdout?.off("data", onData)
        child.stdout?.on("data", (more: Buffer) => {
          output += more.toString()
        })
        resolve({
          url: match[1],
          child,
          output: () => output,
          stop: () => {
            child.kill("SIGTERM")
            return exited
          }
        })
      }
    }
    child.stdout?.on("data", onData)
    child.stderr?.on("data", (chunk: Buffer) => {
      output += chunk.toString()
    })
    child.once("exit", (code) => {
      clearTimeout(timer)
      reject(new Error(`gateway exited with ${code}:\n${output}`))
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
