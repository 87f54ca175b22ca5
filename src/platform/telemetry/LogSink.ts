/**
 * Where finished log lines go. The gateway (`npm start`, app/main.ts) writes
 * them to stdout through a buffer (`bufferedStdout`); the default, for the
 * CLI, tests and anything that provides nothing, is `console.log`, one
 * synchronous write a line.
 *
 * Why a buffer: on Linux a write to a file or a pipe from `console.log` is a
 * synchronous syscall on the event loop, one per line, and the gateway
 * writes an access line per request at the default level. Buffered, the lines
 * of a busy second go out in a few large asynchronous writes (issue 27:
 * the access line had cost a third of a read's throughput).
 *
 * sonic-boom is pino's destination, made for exactly this (utf8 lines to a
 * file descriptor, EAGAIN on a non-blocking pipe retried, a synchronous
 * flush for the last lines).
 */
import * as Context from "effect/Context"
import sonicBoom from "sonic-boom"

export interface LogSink {
  /** One finished line, without its newline. */
  readonly write: (line: string) => void
  /** Writes what is buffered now, synchronously (before a crash-worthy line's process may die). */
  readonly flush: () => void
  /** Lines dropped since the start because the buffer was full (the metric svc_log_lines_dropped). */
  readonly dropped: () => number
}

/** One `console.log` a line: synchronous, nothing buffered (what tests capture by spying on the console). */
export const consoleSink: LogSink = {
  write: (line) => console.log(line),
  flush: () => {},
  dropped: () => 0
}

/** The sink the loggers of `LoggingLive` write to (src/platform/telemetry/Logging.ts). */
export class LogSinkRef extends Context.Reference<LogSinkRef>()("svc/LogSink", {
  defaultValue: (): LogSink => consoleSink
}) {}

export interface BufferedOptions {
  /** Bytes gathered before a write starts (default 4 KiB: about twenty access lines). */
  readonly minBytes?: number
  /** The longest a line waits in the buffer when the gateway is quiet (default 200 ms). */
  readonly flushEveryMs?: number
  /**
   * The most the buffer holds while its reader does not keep up (default 16 MiB);
   * lines beyond it are dropped and counted, not held without bound.
   */
  readonly maxBytes?: number
}

/**
 * Lines to a file descriptor (stdout by default) through sonic-boom's
 * asynchronous buffer: written when 4 KiB have gathered, at the latest every
 * 200 ms, and synchronously when the process exits (the `exit` event: a
 * normal end, a signal's end and an uncaught exception's all emit it) and
 * after each line at level Error or above (the caller's `flush`). A reader
 * that stops reading (a closed pipe: EPIPE) ends the writing; the gateway
 * goes on serving.
 */
export const bufferedSink = (fd = 1, options: BufferedOptions = {}): LogSink => {
  const boom = new sonicBoom.SonicBoom({
    fd,
    sync: false,
    minLength: options.minBytes ?? 4096,
    maxLength: options.maxBytes ?? 16 * 1024 * 1024,
    periodicFlush: options.flushEveryMs ?? 200
  })
  let dropped = 0
  let broken = false
  boom.on("drop", () => {
    dropped++
  })
  boom.on("error", () => {
    // EPIPE or EBADF: nobody reads the lines any more. Nothing to log them to.
    broken = true
  })
  const flush = () => {
    if (broken) return
    try {
      boom.flushSync()
    } catch {
      broken = true
    }
  }
  process.once("exit", flush)
  return {
    write: (line) => {
      if (!broken) boom.write(`${line}\n`)
    },
    flush,
    dropped: () => dropped
  }
}
