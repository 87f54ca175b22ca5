import * as Effect from "effect/Effect"
import * as Logger from "effect/Logger"
import { describe, expect, it } from "vitest"
import { guarded } from "../../../src/platform/telemetry/Logging.js"

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
