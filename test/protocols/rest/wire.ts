/**
 * Raw-socket helpers for the hardening suite: a connection to the gateway on
 * which the test writes bytes exactly as it wants (slowly, endlessly, half a
 * request) and watches what the server answers and when it lets go.
 */
import { connect, type Socket } from "node:net"

/** How the server let go of a connection: FIN (`end`), reset or other error (`error`), or `close`. */
export interface Ending {
  readonly how: "end" | "error" | "close"
  readonly afterMs: number
  readonly detail: string
}

export interface Wire {
  readonly socket: Socket
  readonly startedAt: number
  /** Everything the server sent so far (latin1). */
  readonly received: () => string
  /** The status of the first response, once its status line has arrived. */
  readonly status: () => number | undefined
  /** A header of the first response (lower-case name), once its head has arrived. */
  readonly header: (name: string) => string | undefined
  /** The first sign that the server is done with the connection: FIN, reset, or close. */
  readonly letGo: Promise<Ending>
  /** When the connection is unusable for writing (reset, error or closed), else undefined. */
  readonly gone: () => Ending | undefined
  /** Bytes whose write completed. */
  readonly written: () => number
  /** Writes with backpressure; false once the connection is gone. */
  readonly write: (data: Buffer | string) => Promise<boolean>
  readonly destroy: () => void
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/**
 * Opens a TCP connection to the gateway. Half-open is allowed, so after the
 * server's FIN the client can go on writing and find out whether the server
 * still reads (it does, unless the write fails).
 */
export const openWire = (baseUrl: string): Promise<Wire> =>
  new Promise((resolve, reject) => {
    const url = new URL(baseUrl)
    const socket = connect({ host: url.hostname, port: Number(url.port), allowHalfOpen: true })
    const startedAt = Date.now()
    const chunks: Array<Buffer> = []
    let text = ""
    let written = 0
    let gone: Ending | undefined
    let settleLetGo: (ending: Ending) => void = () => {}
    const letGo = new Promise<Ending>((done) => {
      settleLetGo = done
    })
    const end = (how: Ending["how"], detail: string) => {
      const ending = { how, afterMs: Date.now() - startedAt, detail }
      settleLetGo(ending)
      if (how !== "end") gone ??= ending
    }
    socket.on("data", (chunk: Buffer) => {
      chunks.push(chunk)
      text = Buffer.concat(chunks).toString("latin1")
    })
    socket.on("end", () => end("end", "the server sent FIN"))
    socket.on("error", (error: NodeJS.ErrnoException) => end("error", error.code ?? error.message))
    socket.on("close", () => end("close", "closed"))
    const head = () => {
      const at = text.indexOf("\r\n\r\n")
      return at === -1 ? undefined : text.slice(0, at)
    }
    const wire: Wire = {
      socket,
      startedAt,
      received: () => text,
      status: () => {
        const match = /^HTTP\/1\.[01] (\d{3})/.exec(text)
        return match ? Number(match[1]) : undefined
      },
      header: (name) => {
        const lines = head()?.split("\r\n").slice(1) ?? []
        for (const line of lines) {
          const colon = line.indexOf(":")
          if (line.slice(0, colon).trim().toLowerCase() === name) return line.slice(colon + 1).trim()
        }
        return undefined
      },
      letGo,
      gone: () => gone,
      written: () => written,
      write: (data) =>
        new Promise((done) => {
          if (gone !== undefined || socket.destroyed) return done(false)
          const length = typeof data === "string" ? Buffer.byteLength(data) : data.length
          const flushed = socket.write(data, (error) => {
            if (error === undefined || error === null) written += length
          })
          if (flushed) return done(true)
          const onDrain = () => {
            socket.off("close", onClose)
            done(gone === undefined)
          }
          const onClose = () => {
            socket.off("drain", onDrain)
            done(false)
          }
          socket.once("drain", onDrain)
          socket.once("close", onClose)
        }),
      destroy: () => socket.destroy()
    }
    socket.once("connect", () => resolve(wire))
    socket.once("error", reject)
  })

/** A request head (request line, headers, blank line). */
export const requestHead = (method: string, path: string, headers: Record<string, string>) =>
  `${method} ${path} HTTP/1.1\r\nhost: 127.0.0.1\r\n${Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join("")}\r\n`

/** Resolves with true when `check` holds, or false after `ms`. */
export const within = async (ms: number, check: () => boolean, pollMs = 20): Promise<boolean> => {
  const deadline = Date.now() + ms
  while (Date.now() < deadline) {
    if (check()) return true
    await sleep(pollMs)
  }
  return check()
}

/** One chunk of a chunked body: `size` zeros with their framing. */
export const zerosChunk = (size: number) =>
  Buffer.concat([Buffer.from(`${size.toString(16)}\r\n`), Buffer.alloc(size), Buffer.from("\r\n")])

export interface Flood {
  /** Bytes the client managed to write (head included). */
  readonly bytes: number
  readonly ms: number
  /** `closed`: the connection stopped taking bytes; `bytes` or `time`: the test's own limit ran out first. */
  readonly stoppedBy: "closed" | "bytes" | "time"
}

/**
 * Sends `head` (which must say `transfer-encoding: chunked`), then chunks of
 * zeros as fast as the socket takes them, until the connection stops taking
 * them or `maxBytes` / `maxMs` run out. Never ends the body.
 */
export const floodChunked = async (
  wire: Wire,
  head: string,
  limits: { readonly maxBytes: number; readonly maxMs: number }
): Promise<Flood> => {
  const chunk = zerosChunk(64 * 1024)
  const started = Date.now()
  const result = (stoppedBy: Flood["stoppedBy"]): Flood => ({
    bytes: wire.written(),
    ms: Date.now() - started,
    stoppedBy
  })
  if (!(await wire.write(head))) return result("closed")
  for (;;) {
    if (wire.written() >= limits.maxBytes) return result("bytes")
    if (Date.now() - started >= limits.maxMs) return result("time")
    if (!(await wire.write(chunk))) return result("closed")
    // Let the server (in this process) run between chunks even when the kernel takes every write at once.
    await new Promise((resolve) => setImmediate(resolve))
  }
}
