/**
 * Issue 27: the gateway writes its log lines through a buffer
 * (src/platform/telemetry/LogSink.ts), and loses none of them: a quiet
 * gateway's lines reach stdout within the flush interval, a busy one's on
 * SIGTERM all reach it before the process ends, a line at Error or above is
 * written at once. Through `npm start`'s entry as a real process, and the
 * sink itself on a real file.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import * as Logger from "effect/Logger"
import { afterAll, describe, expect, it } from "vitest"
import { loggersFor } from "../../src/platform/telemetry/Logging.js"
import { bufferedSink } from "../../src/platform/telemetry/LogSink.js"
import { call } from "../support/layers.js"
import { spawnGateway } from "../support/process.js"

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-log-sink-"))
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }))

interface Line {
  readonly message: string
  readonly logLevel: string
  readonly annotations: Record<string, unknown>
}

const linesOf = (output: string): Array<Line> =>
  output
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as Line)

const accessLines = (output: string, requestIds: ReadonlySet<string>) =>
  linesOf(output).filter(
    (line) => line.message === "Sent HTTP response" && requestIds.has(String(line.annotations.request_id))
  )

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe("the gateway's buffered log", () => {
  it("writes every access line: a quiet gateway's within a second, a busy one's before it exits on SIGTERM", async () => {
    const gateway = await spawnGateway({ DATA_DIR: dataDir, BOOTSTRAP_DEFAULT_PROJECT: "false" })
    try {
      /** `count` requests, twenty at a time, each with its own request id. */
      const burst = async (prefix: string, count: number) => {
        const ids = new Set<string>()
        for (let i = 0; i < count; i += 20) {
          await Promise.all(
            Array.from({ length: Math.min(20, count - i) }, async (_, j) => {
              const id = `${prefix}-${i + j}`
              ids.add(id)
              // An API route (the probes are not logged); no key: 401, logged like any answer.
              const reply = await call(gateway.url, "GET", "/v1/threads", { headers: { "x-request-id": id } })
              expect(reply.status).toBe(401)
            })
          )
        }
        return ids
      }
      // Fewer lines than the 4 KiB a write waits for: the 200 ms timer writes them.
      const quiet = await burst("quiet", 5)
      const deadline = Date.now() + 1_000
      while (accessLines(gateway.output(), quiet).length < quiet.size && Date.now() < deadline) await sleep(20)
      expect(accessLines(gateway.output(), quiet)).toHaveLength(quiet.size)

      // Many lines, then SIGTERM at once: the rest are written when the process exits.
      const busy = await burst("busy", 400)
      expect(await gateway.stop()).toBe(0)
      const written = accessLines(gateway.output(), busy)
      expect(written).toHaveLength(busy.size)
      expect(new Set(written.map((line) => line.annotations.request_id)).size).toBe(busy.size)
      const last = linesOf(gateway.output()).at(-1)
      expect(last?.message).toBe("stopped on SIGTERM")
    } finally {
      gateway.child.kill("SIGKILL")
    }
  }, 90_000)
})

describe("bufferedSink on a file", () => {
  const file = path.join(dataDir, "sink.log")
  const read = () => fs.readFileSync(file, "utf8")

  it("holds lines until 4 KiB or the timer, writes an Error line at once, and every line on flush, in order", async () => {
    const fd = fs.openSync(file, "w")
    try {
      const sink = bufferedSink(fd, { flushEveryMs: 60_000 })
      const logger = loggersFor(sink).json
      const log = (effect: Effect.Effect<void>) =>
        Effect.runSync(effect.pipe(Effect.provide(Logger.replace(Logger.defaultLogger, logger))))
      for (let i = 0; i < 5; i++) log(Effect.logInfo(`line ${i}`))
      await sleep(50)
      expect(read()).toBe("")
      log(Effect.logError("something broke"))
      const now = linesOf(read())
      expect(now.map((line) => line.message)).toEqual([
        "line 0",
        "line 1",
        "line 2",
        "line 3",
        "line 4",
        "something broke"
      ])
      expect(now.at(-1)?.logLevel).toBe("ERROR")
      // Past 4 KiB a write starts without a flush.
      for (let i = 0; i < 100; i++) log(Effect.logInfo(`more ${i} ${"x".repeat(60)}`))
      const until = Date.now() + 2_000
      while (linesOf(read()).length === 6 && Date.now() < until) await sleep(10)
      expect(linesOf(read()).length).toBeGreaterThan(6)
      sink.flush()
      const all = linesOf(read()).map((line) => line.message)
      expect(all).toHaveLength(106)
      expect(all.slice(6)).toEqual(Array.from({ length: 100 }, (_, i) => `more ${i} ${"x".repeat(60)}`))
      expect(sink.dropped()).toBe(0)
    } finally {
      fs.closeSync(fd)
    }
  })

  it("drops what is past its bound instead of holding it, and counts it", async () => {
    const fd = fs.openSync(file, "w")
    try {
      // A write in flight and a 1 KiB bound: a burst of 4 KiB lines cannot all be held.
      const sink = bufferedSink(fd, { minBytes: 0, maxBytes: 1024, flushEveryMs: 60_000 })
      for (let i = 0; i < 20; i++) sink.write("y".repeat(300))
      expect(sink.dropped()).toBeGreaterThan(0)
      sink.flush()
      // flushSync writes what is queued; the write that was in flight ends on its own.
      const lines = () =>
        read()
          .split("\n")
          .filter((line) => line.length > 0)
      const until = Date.now() + 2_000
      while (lines().length + sink.dropped() < 20 && Date.now() < until) await sleep(10)
      const kept = lines()
      expect(kept.length + sink.dropped()).toBe(20)
      for (const line of kept) expect(line).toBe("y".repeat(300))
    } finally {
      fs.closeSync(fd)
    }
  })
})
