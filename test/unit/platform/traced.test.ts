import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { afterEach, describe, expect, it } from "vitest"
import { exportSpans, fn } from "../../../src/platform/telemetry/Traced.js"

const spanName = Effect.map(
  Effect.option(Effect.currentSpan),
  Option.map((span) => span.name)
)

const generator = fn("Test.generator")(function* (n: number) {
  const span = yield* spanName
  return { doubled: n * 2, span }
})
const plain = fn("Test.plain")(
  (n: number) => Effect.map(spanName, (span) => ({ doubled: n * 2, span })),
  (effect, n) => Effect.map(effect, (result) => ({ ...result, plus: n + 1 }))
)
const failing = fn("Test.failing")(
  (reason: string) => Effect.fail(reason),
  Effect.orElseSucceed(() => "recovered")
)

describe("fn (Traced.ts)", () => {
  afterEach(() => exportSpans(false))

  it("without exported spans: the same results, and no span", () => {
    expect(Effect.runSync(generator(2))).toEqual({ doubled: 4, span: Option.none() })
    expect(Effect.runSync(plain(2))).toEqual({ doubled: 4, span: Option.none(), plus: 3 })
    expect(Effect.runSync(failing("no"))).toBe("recovered")
  })

  it("with exported spans: each call is a span named after the function", () => {
    exportSpans(true)
    expect(Effect.runSync(generator(2))).toEqual({ doubled: 4, span: Option.some("Test.generator") })
    expect(Effect.runSync(plain(2))).toEqual({ doubled: 4, span: Option.some("Test.plain"), plus: 3 })
    expect(Effect.runSync(failing("no"))).toBe("recovered")
  })
})
