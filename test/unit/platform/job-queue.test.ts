/**
 * The outbox (`job_queue`, src/platform/jobs/Queue.ts) on each store: an item
 * commits or rolls back with the transaction that wrote it; a failed
 * item is retried after its backoff, then kept as failed; an item held by
 * a gateway that died mid-handle (its lease never released, as after
 * kill -9) goes to another gateway once the lease is over, and not before,
 * while an item whose handler runs past the lease stays with its live
 * gateway (the lease is renewed), and so do the items of its batch waiting
 * their turn; two gateways draining at once handle each item once.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as Scope from "effect/Scope"
import * as TestClock from "effect/TestClock"
import * as TestContext from "effect/TestContext"
import { describe, expect, it } from "vitest"
import { HEARTBEAT_MS, LEASE_MS } from "../../../src/platform/jobs/Lease.js"
import { type DrainOptions, Queue, type QueueItem } from "../../../src/platform/jobs/Queue.js"
import { ShiftableClock, stores, useStore } from "../../support/layers.js"

const indexOf = (payload: unknown): number =>
  typeof payload === "object" && payload !== null && "i" in payload && typeof payload.i === "number" ? payload.i : -1

/** `program` on Effect's test clock: sleeps (a lease's heartbeat) wait until the test moves the clock. */
const onTestClock = <A, E>(program: Effect.Effect<A, E, Scope.Scope>) =>
  Effect.runPromise(program.pipe(Effect.scoped, Effect.provide(TestContext.TestContext)))

const OPTIONS: DrainOptions = { batch: 10, maxAttempts: 3, backoffMs: () => 30_000 }

/** Waits real time (the test clock stands still): for the store's I/O, which the test clock does not drive. */
const realWait = (ms: number) => Effect.promise(() => new Promise<void>((done) => setTimeout(done, ms)))

describe.each(stores)("the outbox ($name)", (storeUnderTest) => {
  const store = useStore(storeUnderTest)
  /** A gateway's queue: a Queue of its own (its own holder) on the shared store, on `clock`. */
  const gateway = (clock: ShiftableClock) => {
    const runtime = ManagedRuntime.make(
      Queue.Default.pipe(Layer.provide(Layer.succeed(SqlClient.SqlClient, store.sql)))
    )
    const run = <A, E>(effect: Effect.Effect<A, E, Queue>) => runtime.runPromise(Effect.withClock(effect, clock))
    return { runtime, run, clock }
  }
  const waiting = async (kind: string) =>
    (
      await Effect.runPromise(store.sql<{ n: number }>`SELECT count(*)::int AS n FROM job_queue WHERE kind = ${kind}`)
    )[0]?.n

  it("commits and rolls back with the transaction that wrote the item", async () => {
    const { run, runtime } = gateway(new ShiftableClock())
    await run(store.sql.withTransaction(Effect.flatMap(Queue, (queue) => queue.enqueue("tx", null, { n: 1 }))))
    const failed = await run(
      Effect.either(
        store.sql.withTransaction(
          Effect.zipRight(
            Effect.flatMap(Queue, (queue) => queue.enqueue("tx", null, { n: 2 })),
            Effect.fail("the data's write failed")
          )
        )
      )
    )
    expect(failed._tag).toBe("Left")
    const payloads = await Effect.runPromise(
      store.sql<{ payload: unknown }>`SELECT payload FROM job_queue WHERE kind = 'tx'`
    )
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
      store.sql<{ last_error: string; failed: boolean }>`SELECT last_error, failed_at IS NOT NULL AS failed
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
    clock.advance(LEASE_MS + 1)
    expect(await next.run(Effect.flatMap(Queue, (queue) => queue.drain("orphan", handle, OPTIONS)))).toEqual({
      done: 1,
      retried: 0,
      failed: 0
    })
    expect(handled).toEqual([{ key: "k" }])
    expect(await waiting("orphan")).toBe(0)
    await next.runtime.dispose()
  })

  it("an item whose handler runs past the lease stays with its live gateway, and so does the rest of its batch", async () => {
    const handledHere: Array<number> = []
    const handledThere: Array<number> = []
    await onTestClock(
      Effect.gen(function* () {
        yield* TestClock.setTime(Date.now())
        const queueOf = Effect.map(
          Layer.build(Queue.Default.pipe(Layer.provide(Layer.succeed(SqlClient.SqlClient, store.sql)))),
          (context) => Context.get(context, Queue)
        )
        const here = yield* queueOf
        const there = yield* queueOf
        for (const i of [0, 1]) yield* here.enqueue("slow", null, { i })
        const started = yield* Deferred.make<void>()
        const finish = yield* Deferred.make<void>()
        // The first item handled (a batch's order is the store's) takes as long as the test says; the other waits.
        const blocking = { first: true }
        const slowFirst = (item: QueueItem) =>
          Effect.zipRight(
            Effect.suspend(() => {
              if (!blocking.first) return Effect.void
              blocking.first = false
              return Effect.zipRight(Deferred.succeed(started, undefined), Deferred.await(finish))
            }),
            Effect.sync(() => handledHere.push(indexOf(item.payload)))
          )
        const draining = yield* Effect.fork(here.drain("slow", slowFirst, OPTIONS))
        yield* Deferred.await(started)
        const elsewhere = (item: QueueItem) => Effect.sync(() => handledThere.push(indexOf(item.payload)))
        /**
         * Whether both items' leases reach at least LEASE_MS - HEARTBEAT_MS past now, as a live holder's always do,
         * waiting (real time, at most 5 s) for a renewal under way: the test clock moves faster than the store answers.
         */
        const renewed = Effect.gen(function* () {
          for (let attempt = 0; attempt < 500; attempt++) {
            const leases = yield* store.sql<{
              lease_until: Date | null
            }>`SELECT lease_until FROM job_queue WHERE kind = 'slow'`
            const now = yield* Clock.currentTimeMillis
            const ahead = (lease: Date | null) => lease !== null && lease.getTime() - now >= LEASE_MS - HEARTBEAT_MS
            if (leases.length === 2 && leases.every((row) => ahead(row.lease_until))) return true
            yield* realWait(10)
          }
          return false
        })
        // Six minutes in 5-second steps, the other gateway draining at each.
        for (let step = 0; step < 72; step++) {
          yield* TestClock.adjust("5 seconds")
          expect(yield* renewed, `the leases ran down ${(step + 1) * 5} s into the handler`).toBe(true)
          expect(yield* there.drain("slow", elsewhere, OPTIONS), `taken ${(step + 1) * 5} s into the handler`).toEqual({
            done: 0,
            retried: 0,
            failed: 0
          })
        }
        yield* Deferred.succeed(finish, undefined)
        expect(yield* Fiber.join(draining)).toEqual({ done: 2, retried: 0, failed: 0 })
      })
    )
    expect(handledHere.sort()).toEqual([0, 1])
    expect(handledThere).toEqual([])
    expect(await waiting("slow")).toBe(0)
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
