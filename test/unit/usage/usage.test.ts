/**
 * The usage rollup's writer on a real store: a backlog larger than one
 * statement can carry (PostgreSQL takes 65,535 parameters, 12 a row) is
 * written in parts, and nothing is lost.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { describe, expect, it } from "vitest"
import * as Database from "../../../src/platform/db/Database.js"
import { ProjectAdmin } from "../../../src/projects/ProjectAdmin.js"
import { Usage, utcDay } from "../../../src/usage/Usage.js"
import { stores } from "../../support/layers.js"

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

  it("writes what was counted before the shutdown: the layer's finalizer flushes it", async () => {
    const made = await storeUnderTest.make()
    // The embedded store in memory would go with the layer: a directory keeps it for the second look.
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-usage-"))
    const store: Database.StoreKind = made.store.kind === "embedded" ? { kind: "embedded", dataDir } : made.store
    const layer = () =>
      Layer.mergeAll(Usage.Default, ProjectAdmin.Default).pipe(Layer.provideMerge(Database.layerFor(store, 2)))
    const today = utcDay(new Date())
    try {
      const projectId = await Effect.runPromise(
        Effect.scoped(
          Effect.gen(function* () {
            const { project_id } = yield* (yield* ProjectAdmin).create("usage-shutdown")
            // Counted, then the scope closes at once: well before the next timed flush (1 s).
            ;(yield* Usage).record(project_id, "user-1", { messages: 3 })
            return project_id
          }).pipe(Effect.provide(layer()))
        )
      )
      const totals = await Effect.runPromise(
        Effect.scoped(
          Effect.gen(function* () {
            return (yield* (yield* Usage).period(projectId, { from: today, to: today })).totals
          }).pipe(Effect.provide(layer()))
        )
      )
      expect(totals.messages).toBe(3)
    } finally {
      await made.drop()
      fs.rmSync(dataDir, { recursive: true, force: true })
    }
  }, 60_000)
})
