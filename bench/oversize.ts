/**
 * `npx tsx bench/oversize.ts`: what the gateway spends on bodies over their
 * route's cap (decisions.md "Wire"). One gateway process (`node --import tsx
 * app/main.ts`, embedded store) with MAX_BODY_BYTES at 32 MiB, so that
 * `POST /v1/events` has the largest discard bound there is (64 MiB):
 *
 * - discard: a client declares 64 MiB, sends all of it before reading (the
 *   server reads it to its end after the 413), then reads the 413 and the
 *   close; the time, the gateway's peak resident memory above its resting
 *   set (VmHWM after /proc/<pid>/clear_refs) and its CPU time;
 * - declared 1 GiB: a client declares 1 GiB and writes as fast as the
 *   connection takes bytes; how much it wrote and how long until the
 *   connection stopped taking them.
 *
 * Env: BENCH_OVERSIZE_REPEAT (3). Linux only (/proc).
 */
import { connect, type Socket } from "node:net"
import { memoryMb, resetPeak, startProcessGateway } from "./lib/gateway-process.js"
import { killAllNow, processCpuSeconds } from "./lib/proc.js"

const MiB = 1024 * 1024
const CAP = 32 * MiB
const DISCARD = 64 * MiB
const REPEAT = Number(process.env.BENCH_OVERSIZE_REPEAT ?? 3)

const head = (apiKey: string, length: number) =>
  `POST /v1/events HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bearer ${apiKey}\r\nsvc-user-id: u\r\n` +
  `svc-workspace-id: w\r\ncontent-type: application/json\r\ncontent-length: ${length}\r\n\r\n`

/** Writes with backpressure; false once the connection no longer takes bytes. */
const write = (socket: Socket, data: Buffer | string) =>
  new Promise<boolean>((resolve) => {
    if (socket.destroyed) return resolve(false)
    const onClose = () => resolve(false)
    socket.once("close", onClose)
    // The callback runs once the kernel took the bytes: that is the backpressure.
    socket.write(data, (error) => {
      socket.off("close", onClose)
      resolve(error === undefined || error === null)
    })
  })

const open = (port: number) =>
  new Promise<{ socket: Socket; received: () => string; ended: Promise<string> }>((resolve, reject) => {
    const socket = connect({ port, host: "127.0.0.1", allowHalfOpen: true })
    let text = ""
    socket.on("data", (chunk: Buffer) => {
      text += chunk.toString("latin1")
    })
    const ended = new Promise<string>((done) => {
      socket.once("end", () => done("FIN"))
      socket.once("error", (error: NodeJS.ErrnoException) => done(error.code ?? error.message))
      socket.once("close", () => done("close"))
    })
    socket.once("connect", () => resolve({ socket, received: () => text, ended }))
    socket.once("error", reject)
  })

const discard = async (port: number, apiKey: string) => {
  const connection = await open(port)
  const chunk = Buffer.alloc(256 * 1024, 0x20)
  const started = performance.now()
  let ok = await write(connection.socket, head(apiKey, DISCARD))
  for (let sent = 0; ok && sent < DISCARD; sent += chunk.length) ok = await write(connection.socket, chunk)
  const sentMs = performance.now() - started
  const ending = await connection.ended
  const totalMs = performance.now() - started
  connection.socket.destroy()
  return {
    wrote_all: ok,
    sent_ms: Math.round(sentMs),
    closed_ms: Math.round(totalMs),
    ending,
    answer: connection.received().split("\r\n")[0] ?? ""
  }
}

const declaredGiB = async (port: number, apiKey: string) => {
  const connection = await open(port)
  const chunk = Buffer.alloc(64 * 1024, 0x20)
  const started = performance.now()
  let written = 0
  let ok = await write(connection.socket, head(apiKey, 1024 * MiB))
  while (ok && performance.now() - started < 30_000) {
    ok = await write(connection.socket, chunk)
    if (ok) written += chunk.length
  }
  const ms = performance.now() - started
  const ending = await Promise.race([connection.ended, new Promise<string>((r) => setTimeout(() => r("open"), 1_000))])
  connection.socket.destroy()
  return {
    written_mib: Number((written / MiB).toFixed(1)),
    stopped_taking_bytes_ms: Math.round(ms),
    ending,
    answer: connection.received().split("\r\n")[0] || "(none read)"
  }
}

const main = async () => {
  const gateway = await startProcessGateway({ label: "oversize", env: { MAX_BODY_BYTES: String(CAP) } })
  try {
    const { port, apiKey } = gateway
    const pid = gateway.child.pid
    // Warm-up: one small refused body, so first-request costs are not counted.
    await discard(port, apiKey).catch(() => undefined)
    await new Promise((resolve) => setTimeout(resolve, 500))
    const rows: Array<Record<string, unknown>> = []
    for (let i = 0; i < REPEAT; i++) {
      const before = memoryMb(pid, "VmRSS")
      resetPeak(pid)
      const cpuBefore = processCpuSeconds(pid) ?? 0
      const result = await discard(port, apiKey)
      rows.push({
        case: "discard 64 MiB after the 413",
        ...result,
        rss_before_mb: before,
        peak_above_mb: memoryMb(pid, "VmHWM") - before,
        gateway_cpu_s: Number(((processCpuSeconds(pid) ?? 0) - cpuBefore).toFixed(2))
      })
    }
    for (let i = 0; i < REPEAT; i++) rows.push({ case: "declared 1 GiB", ...(await declaredGiB(port, apiKey)) })
    console.table(rows)
  } finally {
    await gateway.stop()
  }
}

process.on("exit", killAllNow)
main().catch((error: unknown) => {
  console.error(error)
  process.exitCode = 1
})
