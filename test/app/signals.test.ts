/**
 * `npm start` as a container runs it: a signal sent to the npm process (PID 1
 * there) ends the gateway too, gracefully, with one line; nothing is left
 * running. (With `tsx` under `sh -c`, npm and the shell ended and the gateway
 * went on serving, detached.)
 */
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { call } from "../support/layers.js"
import { root, watchOutput } from "../support/process.js"

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-signals-"))
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }))

const alive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

/** Whether any process of the group `pgid` still runs. */
const groupAlive = (pgid: number) => alive(-pgid)

describe("npm start under a signal", () => {
  it.each(["SIGTERM", "SIGINT"] as const)(
    "%s to npm stops the gateway, which logs one line; none is left",
    async (signal) => {
      const npm = spawn("npm", ["start"], {
        cwd: root,
        // Its own process group, as in a container: the test can tell whether any of it is left.
        detached: true,
        env: { ...process.env, PORT: "0", DATA_DIR: dataDir, LOG_FORMAT: "json", BOOTSTRAP_DEFAULT_PROJECT: "false" },
        stdio: ["ignore", "pipe", "pipe"]
      })
      const pid = npm.pid ?? 0
      const { listening, output } = watchOutput(npm)
      const exited = new Promise<number | null>((resolve) => npm.once("exit", (code) => resolve(code)))
      try {
        const url = await listening()
        expect((await call(url, "GET", "/healthz")).status).toBe(200)

        process.kill(pid, signal)
        await exited
        // The gateway ends with npm (not after it): give the group a moment, then nothing of it is left.
        const deadline = Date.now() + 15_000
        while (groupAlive(pid) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100))
        expect(groupAlive(pid)).toBe(false)
        await expect(call(url, "GET", "/healthz")).rejects.toThrow()
        const stopped = output()
          .split("\n")
          .filter((line) => line.includes(`"stopped on ${signal}"`))
        expect(stopped).toHaveLength(1)
        expect(JSON.parse(stopped[0] ?? "")).toMatchObject({ logLevel: "INFO", annotations: { signal } })
      } finally {
        if (groupAlive(pid)) process.kill(-pid, "SIGKILL")
      }
    },
    90_000
  )
})
