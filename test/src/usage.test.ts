/**
 * The usage rollup's writer on a real store: a backlog larger than one
 * statement can carry (PostgreSQL takes 65,535 parameters, 11 a row) is
 * written in parts, and nothing is lost.
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { describe, expect, it } from "vitest"
import { ProjectAdmin } from "../../src/ProjectAdmin.js"
import * as Database from "../../src/storage/Database.js"
import { Usage, utcDay } from "../../src/Usage.js"
import { stores } from "../layers.js"

describe.each(stores)("usage rollup writer ($name)", (storeUnderTest) => {
  it("writes 7,000 distinct users of one second in parts, every count kept", async () => {
    const { store, drop } = await storeUnderTest.make()
    try {
      const layer = Layer.mergeAll(Usage.Default, ProjectAdmin.Default).pipe(
        Layer.provideMerge(Database.layerFor(store, 2))
      )
      const totals = await Effect.runPromise(
        Effect.scoped(
          Effect.gen(function* () {
            const usage = yield* Usage
            const { project_id } = yield* (yield* ProjectAdmin).create("usage")
            for (let i = 0; i < 7_000; i++) usage.record(project_id, `user-${i}`, { messages: 2, input_tokens: i })
            yield* usage.flush
            const today = utcDay(new Date())
            return (yield* usage.period(project_id, { from: today, to: today })).totals
          }).pipe(Effect.provide(layer))
        )
      )
      expect(totals.active_users).toBe(7_000)
      expect(totals.messages).toBe(14_000)
      expect(totals.input_tokens).toBe((6_999 * 7_000) / 2)
    } finally {
      await drop()
    }
  }, 60_000)
})
