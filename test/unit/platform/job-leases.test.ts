/**
 * The job runner's lease (src/platform/jobs/Jobs.ts, docs/decisions.md "Jobs and
 * retention") on each store: two runners (two gateways' worth, each its own
 * holder) on one store, on Effect's test clock, so that minutes pass at once
 * and the holder's heartbeat sleeps until the test moves time. A pass longer
 * than the lease stays with its holder while it lives; a holder that stops
 * mid-pass (no heartbeat, its lease never released, as after kill -9) leaves
 * the job to the other 30 s after its last renewal, not before; a holder
 * that finds its lease taken stops its pass and leaves the schedule alone.
 * The same with two gateway processes and kill -9:
 * test/protocols/rest/job-failover.test.ts.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import { describe, expect, it } from "@effect/vitest"
import * as Clock from "effect/Clock"
import * as ConfigProvider from "effect/ConfigProvider"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as Option from "effect/Option"
import * as TestClock from "effect/TestClock"
import { type Job, JobList, Jobs, layerWith } from "../../../src/platform/jobs/Jobs.js"
import { HEARTBEAT_MS, LEASE_MS } from "../../../src/platform/jobs/Lease.js"
import { stores, useStore } from "../../support/layers.js"

/** The bound docs/decisions.md "Jobs and retention" states: a dead holder's job is another's 30 s after its last renewal. */
const TAKEOVER_MS = 30_000

/** Waits real time (the test clock stands still): for the store's I/O, which the test clock does not drive. */
const realWait = (ms: number) => Effect.promise(() => new Promise<void>((done) => setTimeout(done, ms)))

/** A pass that starts, then waits until the test lets it finish; it notes whether it was interrupted. */
const heldPass = Effect.gen(function* () {
  const started = yield* Deferred.make<void>()
  const finish = yield* Deferred.make<void>()
  const state = { interrupted: false }
  const run = Deferred.succeed(started, undefined).pipe(
    Effect.zipRight(Deferred.await(finish)),
    Effect.onInterrupt(() =>
      Effect.sync(() => {
        state.interrupted = true
      })
    ),
    Effect.as({ items: 1, details: {} })
  )
  return { run, started, finish, state }
})

describe.each(stores)("job leases ($name)", (storeUnderTest) => {
  const store = useStore(storeUnderTest)

  /**
   * A gateway's job runner (its own holder) over `job` on the shared store; jobs run when the test ticks it, or
   * also (`pollSeconds`) on the runner's timer, polling that often.
   */
  const runner = (job: Job, pollSeconds?: number) =>
    Effect.map(
      Layer.build(
        layerWith({ timer: pollSeconds !== undefined }).pipe(
          Layer.provide(Layer.succeed(JobList, [job])),
          Layer.provide(Layer.succeed(SqlClient.SqlClient, store.sql)),
          Layer.provide(
            Layer.setConfigProvider(ConfigProvider.fromMap(new Map([["JOBS_POLL_SECONDS", String(pollSeconds ?? 0)]])))
          )
        )
      ),
      (context) => Context.get(context, Jobs)
    )

  /** The other gateway's job of the same name, counting its passes; `more(n)`: whether pass n leaves work behind. */
  const counted = (name: string, more: (n: number) => boolean = () => false) => {
    const passes = { n: 0 }
    const job: Job = {
      name,
      intervalMs: 60_000,
      run: Effect.sync(() => {
        passes.n += 1
        return { items: 0, details: {}, more: more(passes.n) }
      })
    }
    return { job, passes }
  }

  /**
   * Whether the holder's lease on `name` reaches at least LEASE_MS - HEARTBEAT_MS past now, as a live holder's
   * always does, waiting (real time, at most 5 s) for a renewal under way: the test clock moves faster than the
   * store answers.
   */
  const renewed = (name: string) =>
    Effect.gen(function* () {
      for (let attempt = 0; attempt < 500; attempt++) {
        const [held] = yield* store.sql<{ lease_until: Date | null }>`SELECT lease_until FROM jobs WHERE name = ${name}`
        const now = yield* Clock.currentTimeMillis
        if (held?.lease_until != null && held.lease_until.getTime() - now >= LEASE_MS - HEARTBEAT_MS) return true
        yield* realWait(10)
      }
      return false
    })

  /** At 2030-01-01, a pass of `name` held by one runner, under way; another runner (gateway) over the same job. */
  const passUnderWay = (name: string) =>
    Effect.gen(function* () {
      yield* TestClock.setTime(Date.parse("2030-01-01T00:00:00Z"))
      const held = yield* heldPass
      const first = yield* runner({ name, intervalMs: 60_000, run: held.run })
      const other = counted(name)
      const second = yield* runner(other.job)
      const ticking = yield* Effect.fork(first.tick())
      yield* Deferred.await(held.started)
      return { held, other, second, ticking }
    })

  const row = (name: string) =>
    Effect.map(
      store.sql<{
        leased_by: string | null
        next_run_at: Date
        last_error: string | null
        failures: number
      }>`SELECT leased_by, next_run_at, last_error, failures::int AS failures FROM jobs WHERE name = ${name}`,
      (rows) => rows[0]
    )

  it.scoped(
    "a pass longer than the lease stays with its holder while the holder lives",
    () =>
      Effect.gen(function* () {
        const name = "long-pass"
        const { held, other, second, ticking } = yield* passUnderWay(name)
        // Six minutes in 5-second steps (past the lease many times over); the other gateway looks at each step.
        for (let step = 0; step < 72; step++) {
          yield* TestClock.adjust("5 seconds")
          expect(yield* renewed(name), `the lease ran down ${(step + 1) * 5} s into the pass`).toBe(true)
          expect(yield* second.tick(), `the other gateway took the job ${(step + 1) * 5} s into the pass`).toEqual([])
        }
        yield* Deferred.succeed(held.finish, undefined)
        const runs = yield* Fiber.join(ticking)
        expect(runs).toMatchObject([{ job: name, items: 1, error: null }])
        expect(other.passes.n).toBe(0)
        expect(yield* row(name)).toMatchObject({ leased_by: null, failures: 0 })
      }),
    60_000
  )

  it.scoped(
    "a holder that stops mid-pass (no heartbeat, lease never released) leaves the job to another 30 s on, not before",
    () =>
      Effect.gen(function* () {
        const name = "dead-holder"
        const { other, second, ticking } = yield* passUnderWay(name)
        // Stopped without releasing its lease: nothing renews it from here on.
        yield* Fiber.interrupt(ticking)
        yield* TestClock.adjust(TAKEOVER_MS - 1_000)
        expect(yield* second.tick()).toEqual([])
        expect(other.passes.n).toBe(0)
        yield* TestClock.adjust(1_000)
        expect((yield* second.tick()).map((run) => run.job)).toEqual([name])
        expect(other.passes.n).toBe(1)
      }),
    30_000
  )

  it.scoped(
    "a holder whose lease another took (its renewals stalled past the lease) stops its pass and leaves the schedule",
    () =>
      Effect.gen(function* () {
        const name = "lost-lease"
        const { held, ticking } = yield* passUnderWay(name)
        const before = yield* row(name)
        // What another gateway's claim leaves once this one's lease ran out: the row is the other's now.
        yield* store.sql`UPDATE jobs SET leased_by = 'another-gateway',
            lease_until = ${new Date(Date.parse("2030-01-01T00:00:00Z") + 10 * TAKEOVER_MS)} WHERE name = ${name}`
        // Its next renewal, within the lease, finds that out.
        yield* TestClock.adjust(TAKEOVER_MS)
        const ended = yield* Effect.raceFirst(
          Effect.map(Fiber.await(ticking), Option.some),
          Effect.as(realWait(10_000), Option.none())
        )
        expect(Option.isSome(ended), "the pass ran on after its lease was taken").toBe(true)
        expect(held.state.interrupted).toBe(true)
        const runs = yield* Fiber.join(ticking)
        expect(runs).toHaveLength(1)
        expect(runs[0]?.error).toMatch(/lease/)
        const after = yield* row(name)
        // The new holder's lease and the schedule stay as they were; the stopped run shows as a failure.
        expect(after).toMatchObject({ leased_by: "another-gateway", failures: 1 })
        expect(after?.next_run_at).toEqual(before?.next_run_at)
        expect(after?.last_error).toMatch(/lease/)
      }),
    30_000
  )

  it.scoped(
    "a pass that leaves work behind (more) is due again at once: the timer runs it without waiting for its poll",
    () =>
      Effect.gen(function* () {
        const name = "backlog"
        yield* TestClock.setTime(Date.parse("2030-01-01T00:00:00Z"))
        // Three passes leave a backlog, the fourth empties it.
        const { job, passes } = counted(name, (n) => n < 4)
        // The timer's runner, polling once an hour: on the test clock, which stands still, a poll never comes.
        yield* runner(job, 3600)
        for (let wait = 0; wait < 500 && passes.n < 4; wait++) yield* realWait(10)
        expect(passes.n).toBe(4)
        // Then it waits for its poll, and the job for its interval.
        yield* realWait(300)
        expect(passes.n).toBe(4)
        const [after] = yield* store.sql<{ next_run_at: Date; last_finished_at: Date; runs: number }>`
          SELECT next_run_at, last_finished_at, runs::int AS runs FROM jobs WHERE name = ${name}`
        expect(after?.runs).toBe(4)
        expect((after?.next_run_at.getTime() ?? 0) - (after?.last_finished_at.getTime() ?? 0)).toBe(60_000)
      }),
    30_000
  )
  it.scoped(
    "a pass that dies in 32 concurrent sends logs one short line with its defects, not the Exit's nested causes",
    () =>
      Effect.gen(function* () {
        yield* TestClock.setTime(Date.parse("2030-01-01T00:00:00Z"))
        // What a webhooks pass cut by an outage ends with: sends dying, the rest interrupted, in one Parallel cause.
        const job: Job = {
          name: "outage",
          intervalMs: 60_000,
          run: Effect.forEach(
            Array.from({ length: 32 }, (_, i) => i),
            (i) => (i < 2 ? Effect.die(new Error("Failed to acquire connection")) : Effect.never),
            { concurrency: 32, discard: true }
          ).pipe(Effect.as({ items: 0, details: {} }))
        }
        const lines: Array<string> = []
        const capture = Logger.map(Logger.jsonLogger, (line) => {
          lines.push(line)
        })
        const gateway = yield* runner(job)
        yield* gateway.tick().pipe(Effect.provide(Logger.replace(Logger.defaultLogger, capture)))
        const failed = lines.filter((line) => line.includes("job outage failed"))
        expect(failed).toHaveLength(1)
        const entry = JSON.parse(failed[0] ?? "{}") as { message?: unknown; cause?: unknown; logLevel?: unknown }
        expect(entry).toMatchObject({ message: "job outage failed", logLevel: "ERROR" })
        expect(String(entry.cause)).toContain("Failed to acquire connection")
        expect(failed[0]).not.toContain('"_tag":"Parallel"')
        expect(failed[0]?.length).toBeLessThan(4000)
        expect((yield* row("outage"))?.last_error).toContain("Failed to acquire connection")
      }),
    30_000
  )
})
