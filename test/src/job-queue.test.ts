/**
 * The outbox (`job_queue`, src/jobs/Queue.ts) on each store: an item
 * commits or rolls back with the transaction that wrote it; a failed
 * item is retried after its backoff, then kept as failed; an item held by
 * a gateway that died mid-handle (its lease never released, as after
 * kill -9) goes to another gateway once the lease is over, and not before;
 * two gateways draining at once handle each item once.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as Scope from "effect/Scope"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type DrainOptions, Queue, type QueueItem } from "../../src/jobs/Queue.js"
import * as Database from "../../src/storage/Database.js"
import { ShiftableClock, stores } from "../layers.js"

const indexOf = (payload: unknown): number =>
  typeof payload === "object" && payload !== null && "i" in payload && typeof payload.i === "number" ? payload.i : -1

const OPTIONS: DrainOptions = { batch: 10, leaseMs: 60_000, maxAttempts: 3, backoffMs: () => 30_000 }

describe.each(stores)("the outbox ($name)", (storeUnderTest) => {
  let sql: SqlClient.SqlClient
  let close = async () => {}
  /** A gateway's queue: a Queue of its own (its own holder) on the shared store, on `clock`. */
  const gateway = (clock: ShiftableClock) => {
    const runtime = ManagedRuntime.make(Queue.Default.pipe(Layer.provide(Layer.succeed(SqlClient.SqlClient, sql))))
    const run = <A, E>(effect: Effect.Effect<A, E, Queue>) => runtime.runPromise(Effect.withClock(effect, clock))
    return { runtime, run, clock }
  }
  const waiting = async (kind: string) =>
    (await Effect.runPromise(sql<{ n: number }>`SELECT count(*)::int AS n FROM job_queue WHERE kind = ${kind}`))[0]?.n

  beforeAll(async () => {
    const made = await storeUnderTest.make()
    const scope = Effect.runSync(Scope.make())
    const context = await Effect.runPromise(Layer.buildWithScope(Database.layerFor(made.store, 4), scope))
    sql = Effect.runSync(Effect.provide(SqlClient.SqlClient, context))
    close = async () => {
      await Effect.runPromise(Scope.close(scope, Exit.void))
      await made.drop()
    }
  })
  afterAll(() => close())

  it("commits and rolls back with the transaction that wrote the item", async () => {
    const { run, runtime } = gateway(new ShiftableClock())
    await run(sql.withTransaction(Effect.flatMap(Queue, (queue) => queue.enqueue("tx", null, { n: 1 }))))
    const failed = await run(
      Effect.either(
        sql.withTransaction(
          Effect.zipRight(
            Effect.flatMap(Queue, (queue) => queue.enqueue("tx", null, { n: 2 })),
            Effect.fail("the data's write failed")
          )
        )
      )
    )
    expect(failed._tag).toBe("Left")
    const payloads = await Effect.runPromise(sql<{ payload: unknown }>`SELECT payload FROM job_queue WHERE kind = 'tx'`)
    expect(payloads.map((row) => (typeof row.payload === "string" ? JSON.parse(row.payload) : row.payload))).toEqual([
      { n: 1 }
    ])
    await runtime.dispose()
  })

  it("retries a failed item after its backoff, then keeps it as failed after the last attempt", async () => {
    const clock = new ShiftableClock()
    const { run, runtime } = gateway(clock)
    await run(Effect.flatMap(Queue, (queue) => queue.enqueue("flaky", "proj_1", { key: "k" })))
    const attempts: Array<number> = []
    const failing = (item: QueueItem) =>
      Effect.suspend(() => {
        attempts.push(item.attempts)
        return Effect.fail(new Error(`refused at attempt ${item.attempts}`))
      })
    const drain = () => run(Effect.flatMap(Queue, (queue) => queue.drain("flaky", failing, OPTIONS)))
    expect(await drain()).toEqual({ done: 0, retried: 1, failed: 0 })
    // Not due again before its backoff.
    expect(await drain()).toEqual({ done: 0, retried: 0, failed: 0 })
    clock.advance(30_001)
    expect(await drain()).toEqual({ done: 0, retried: 1, failed: 0 })
    clock.advance(30_001)
    expect(await drain()).toEqual({ done: 0, retried: 0, failed: 1 })
    expect(attempts).toEqual([1, 2, 3])
    const [row] = await Effect.runPromise(
      sql<{ last_error: string; failed: boolean }>`SELECT last_error, failed_at IS NOT NULL AS failed
        FROM job_queue WHERE kind = 'flaky'`
    )
    expect(row).toMatchObject({ last_error: "refused at attempt 3", failed: true })
    expect(await run(Effect.flatMap(Queue, (queue) => queue.counts("flaky")))).toEqual({ waiting: 0, failed: 1 })
    await runtime.dispose()
  })

  it("leaves an item held by a gateway that died mid-handle to another once its lease is over", async () => {
    const clock = new ShiftableClock()
    const dying = gateway(clock)
    const next = gateway(clock)
    await dying.run(Effect.flatMap(Queue, (queue) => queue.enqueue("orphan", null, { key: "k" })))
    // The first gateway claims the item and never finishes it: its fiber is stopped mid-handle, no cleanup runs.
    let claimed = () => {}
    const started = new Promise<void>((resolve) => {
      claimed = resolve
    })
    const fiber = dying.runtime.runFork(
      Effect.withClock(
        Effect.flatMap(Queue, (queue) =>
          queue.drain("orphan", () => Effect.zipRight(Effect.sync(claimed), Effect.never), OPTIONS)
        ),
        clock
      )
    )
    await started
    await Effect.runPromise(Fiber.interrupt(fiber))
    await dying.runtime.dispose()

    const handled: Array<unknown> = []
    const handle = (item: QueueItem) => Effect.sync(() => handled.push(item.payload))
    // Within the lease, the item is still the dead gateway's.
    expect(await next.run(Effect.flatMap(Queue, (queue) => queue.drain("orphan", handle, OPTIONS)))).toEqual({
      done: 0,
      retried: 0,
      failed: 0
    })
    clock.advance(OPTIONS.leaseMs + 1)
    expect(await next.run(Effect.flatMap(Queue, (queue) => queue.drain("orphan", handle, OPTIONS)))).toEqual({
      done: 1,
      retried: 0,
      failed: 0
    })
    expect(handled).toEqual([{ key: "k" }])
    expect(await waiting("orphan")).toBe(0)
    await next.runtime.dispose()
  })

  it("two gateways draining at once handle each item once", async () => {
    const clock = new ShiftableClock()
    const [a, b] = [gateway(clock), gateway(clock)]
    for (let i = 0; i < 40; i++) await a.run(Effect.flatMap(Queue, (queue) => queue.enqueue("shared", null, { i })))
    const seen: Array<number> = []
    const handle = (item: QueueItem) =>
      Effect.zipRight(
        Effect.sleep("2 millis"),
        Effect.sync(() => seen.push(indexOf(item.payload)))
      )
    const drainAll = async (g: typeof a) => {
      for (;;) {
        const result = await g.run(Effect.flatMap(Queue, (queue) => queue.drain("shared", handle, OPTIONS)))
        if (result.done === 0) return
      }
    }
    await Promise.all([drainAll(a), drainAll(b)])
    expect(seen.sort((x, y) => x - y)).toEqual(Array.from({ length: 40 }, (_, i) => i))
    expect(await waiting("shared")).toBe(0)
    await a.runtime.dispose()
    await b.runtime.dispose()
  })
})
