import * as Effect from "effect/Effect"
import * as Logger from "effect/Logger"
import { describe, expect, it } from "vitest"
import { guarded, infoLineFor, loggersFor } from "../../../src/platform/telemetry/Logging.js"

/** A value nested far deeper than any recursive formatter can walk. */
const deepArray = (levels: number): unknown => {
  let value: unknown = []
  for (let i = 0; i < levels; i++) value = [value]
  return value
}

describe("guarded logger", () => {
  it("a defect whose value cannot be rendered still gives one line, and the fiber goes on", () => {
    const lines: Array<string> = []
    const json = Logger.map(Logger.jsonLogger, (line) => {
      lines.push(line)
      return line
    })
    // The unguarded JSON logger throws on this value: the defect's log line itself would fail.
    const deep = deepArray(100_000)
    const unguarded = Effect.logError("request failed", deep).pipe(
      Effect.provide(Logger.replace(Logger.defaultLogger, json))
    )
    expect(() => Effect.runSync(unguarded)).toThrow()
    lines.length = 0
    const result = Effect.logError("request failed", deep).pipe(
      Effect.as("went on"),
      Effect.provide(Logger.replace(Logger.defaultLogger, guarded(json))),
      Effect.runSync
    )
    expect(result).toBe("went on")
    expect(lines).toHaveLength(1)
    const line = JSON.parse(lines[0] ?? "{}")
    expect(line.logLevel).toBe("ERROR")
    expect(line.message).toMatch(/^a log line could not be rendered \(RangeError: /)
  })
})

describe("the access line written straight to the sink (infoLineFor)", () => {
  /** The line Effect.log writes through the same format and sink, and the direct one, for the same fields. */
  const both = (format: "json" | "logfmt") => {
    const lines: Array<string> = []
    const sink = { write: (line: string) => void lines.push(line), flush: () => {}, dropped: () => 0 }
    const annotations = [
      ["request_id", "req-1"],
      ["http.method", "GET"],
      ["http.route", "/v1/threads/:thread_id"],
      ["http.status", 200],
      ["http.url", "/v1/threads/t1?limit=5&signature=abc"],
      ["duration_ms", 1.234]
    ] as const
    Effect.runSync(
      Effect.annotateLogs(Effect.logInfo("Sent HTTP response"), Object.fromEntries(annotations)).pipe(
        Effect.provide(Logger.replace(Logger.defaultLogger, loggersFor(sink)[format]))
      )
    )
    Effect.runSync(
      Effect.withFiberRuntime<void>((fiber) => {
        infoLineFor(format, sink)("Sent HTTP response", fiber.id(), annotations)
        return Effect.void
      })
    )
    return lines
  }

  it("json: the same object as Logger.jsonLogger's, secrets redacted", () => {
    const [viaEffect, direct] = both("json").map((line) => JSON.parse(line))
    expect(Object.keys(direct)).toEqual(Object.keys(viaEffect))
    for (const line of [viaEffect, direct]) line.timestamp = line.fiberId = "x"
    expect(direct).toEqual(viaEffect)
    expect(direct.annotations["http.url"]).toBe("/v1/threads/t1?limit=5&signature=REDACTED")
  })

  it("logfmt: the same fields as Logger.logfmtLogger's", () => {
    const [viaEffect, direct] = both("logfmt").map((line) =>
      line.replace(/^timestamp=\S+ /, "").replace(/ fiber=#\d+/, "")
    )
    // Effect's annotations come in HashMap order: compare the fields as a set.
    expect(new Set(direct?.split(" "))).toEqual(new Set(viaEffect?.split(" ")))
    expect(direct).toContain("signature=REDACTED")
  })
})
