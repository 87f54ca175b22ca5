import { randomUUID } from "node:crypto"
import * as Cause from "effect/Cause"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { notFound } from "../../../schema/Errors.js"
import { AppConfig } from "../Config.js"
import { fn } from "../telemetry/Traced.js"
import { JobsRepo } from "./JobsRepo.js"
import { LEASE_MS, type LeaseLost, withLease } from "./Lease.js"

/** What one pass of a job did: the items it handled, by kind. */
export interface JobResult {
  readonly items: number
  readonly details: Readonly<Record<string, number>>
  /**
   * The pass stopped on its budget with work left (a queue's backlog): the
   * job is due again at once, and the runner looks again without waiting
   * for its next poll.
   */
  readonly more?: boolean
}

/**
 * A periodic job: one bounded pass, run once per `intervalMs` across every
 * gateway on the store. The runner renews the job's lease while the pass
 * runs (src/platform/jobs/Lease.ts), so a pass may outlast the lease; it is bounded
 * so that the other jobs, which a gateway runs one after another, get their
 * turn. Queued work (the outbox, src/platform/jobs/Queue.ts) is a job whose pass
 * drains its queue.
 */
export interface Job {
  readonly name: string
  readonly intervalMs: number
  readonly run: Effect.Effect<JobResult>
}

/** The jobs this gateway runs; each feature offers its own, and app/Jobs.ts lists them. */
export class JobList extends Context.Tag("svc/JobList")<JobList, ReadonlyArray<Job>>() {
  /** No job yet: the start of app/Jobs.ts's list. */
  static readonly empty = Layer.succeed(JobList, [])

  /**
   * The list with one more job: the `job` a feature's service offers, built
   * by the service's own layer (shared with every other user of that layer).
   */
  static readonly offering =
    <I extends { readonly job: Job }, E, R>(service: Context.Tag<I, I> & { readonly Default: Layer.Layer<I, E, R> }) =>
    <E0, R0>(list: Layer.Layer<JobList, E0, R0>): Layer.Layer<JobList, E | E0, R | R0> =>
      Layer.effect(
        JobList,
        Effect.zipWith(JobList, service, (jobs, offer) => [...jobs, offer.job])
      ).pipe(Layer.provide(Layer.merge(list, service.Default)))
}

export interface JobStatus {
  readonly name: string
  readonly interval_seconds: number
  readonly next_run_at: Date | null
  readonly running: boolean
  readonly last_started_at: Date | null
  readonly last_finished_at: Date | null
  readonly last_items: number | null
  readonly last_error: string | null
  readonly runs: number
  readonly failures: number
  readonly items_total: number
}

export interface JobRun {
  readonly job: string
  readonly started_at: Date
  readonly finished_at: Date
  readonly items: number
  readonly details: Readonly<Record<string, number>>
  readonly error: string | null
}

const now = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms))

/**
 * The job runner: lists jobs, runs one on demand, and (JOBS_POLL_SECONDS >
 * 0) looks for due jobs every so often and runs those it can claim.
 */
export class Jobs extends Context.Tag("svc/Jobs")<
  Jobs,
  {
    readonly list: () => Effect.Effect<ReadonlyArray<JobStatus>>
    readonly runNow: (name: string) => Effect.Effect<JobRun, ReturnType<typeof notFound>>
    /** One look for due jobs: runs each this gateway could claim (what the timer does). */
    readonly tick: () => Effect.Effect<ReadonlyArray<JobRun>>
  }
>() {}

/** One pass of `job`: `pass` is job.run, under the job's lease when the run is scheduled. */
const runOnce = (job: Job, pass: Effect.Effect<JobResult, LeaseLost>) =>
  Effect.gen(function* () {
    const startedAt = yield* now
    const outcome = yield* Effect.exit(pass)
    const finishedAt = yield* now
    const times = { job: job.name, started_at: startedAt, finished_at: finishedAt }
    if (outcome._tag === "Success") {
      const run: JobRun = { ...times, items: outcome.value.items, details: outcome.value.details, error: null }
      return { run, more: outcome.value.more === true }
    }
    const lost = Cause.failureOption(outcome.cause)
    const run: JobRun = {
      ...times,
      items: 0,
      details: {},
      error: Option.isSome(lost) ? lost.value.message : (Cause.pretty(outcome.cause).split("\n")[0] ?? "failed")
    }
    // A lost lease is not the job's failure: this gateway stalled (its store or its event loop) past the lease.
    if (Option.isSome(lost)) yield* Effect.logWarning(`job ${job.name} stopped: ${run.error}`)
    // The cause as the line's cause (its failures, pretty-printed), not the Exit as a message: a webhooks pass cut by
    // an outage is a Parallel of its 32 sends, which as JSON was a ~10 KB line of nested interruptions.
    else yield* Effect.logError(`job ${job.name} failed`, outcome.cause)
    return { run, more: false }
  })

/** The runner; `timer` false (the CLI): jobs run only on demand, whatever JOBS_POLL_SECONDS says. */
export const layerWith = (options: { readonly timer: boolean }) =>
  Layer.scoped(
    Jobs,
    Effect.gen(function* () {
      const repo = yield* JobsRepo
      const jobs = yield* JobList
      const pollSeconds = options.timer ? yield* AppConfig.jobsPollSeconds : 0
      const holder = randomUUID()
      const byName = new Map(jobs.map((job) => [job.name, job]))
      yield* repo.ensure(
        jobs.map((job) => job.name),
        yield* now
      )

      const record = (run: JobRun, release: { readonly holder: string; readonly nextRunAt: Date } | undefined) =>
        repo.record(
          run.job,
          { startedAt: run.started_at, finishedAt: run.finished_at, items: run.items, error: run.error },
          release
        )

      const list = fn("Jobs.list")(function* () {
        const rows = new Map((yield* repo.list).map((row) => [row.name, row]))
        const at = yield* now
        return jobs.map((job): JobStatus => {
          const row = rows.get(job.name)
          return {
            name: job.name,
            interval_seconds: Math.round(job.intervalMs / 1000),
            next_run_at: row?.next_run_at ?? null,
            running: row?.lease_until != null && row.lease_until > at,
            last_started_at: row?.last_started_at ?? null,
            last_finished_at: row?.last_finished_at ?? null,
            last_items: row?.last_items ?? null,
            last_error: row?.last_error ?? null,
            runs: row?.runs ?? 0,
            failures: row?.failures ?? 0,
            items_total: row?.items_total ?? 0
          }
        })
      })

      const runNow = fn("Jobs.runNow")(function* (name: string) {
        const job = byName.get(name)
        if (job === undefined) return yield* Effect.fail(notFound("job"))
        const { run } = yield* runOnce(job, job.run)
        yield* record(run, undefined)
        return run
      })

      /** One look for due jobs; `more`: a job left work behind (JobResult.more), so it is due again at once. */
      const round = fn("Jobs.round")(function* () {
        const runs: Array<JobRun> = []
        let more = false
        for (const job of jobs) {
          const at = yield* now
          if (!(yield* repo.claimDue(job.name, holder, at, new Date(at.getTime() + LEASE_MS)))) continue
          const leased = withLease(`job ${job.name}`, (until) => repo.renew(job.name, holder, until))
          const outcome = yield* runOnce(job, leased(job.run))
          const { run } = outcome
          // Releases the lease and sets the next run only if this gateway still holds the job.
          yield* record(run, {
            holder,
            nextRunAt: new Date(run.finished_at.getTime() + (outcome.more ? 0 : job.intervalMs))
          })
          runs.push(run)
          more ||= outcome.more
        }
        return { runs, more }
      })

      const tick = fn("Jobs.tick")(function* () {
        return (yield* round()).runs
      })

      if (pollSeconds > 0) {
        // After a round in which a job left work behind (JobResult.more), the next round starts at once.
        yield* round().pipe(
          Effect.map(({ more }) => more),
          Effect.catchAllCause((cause) => Effect.as(Effect.logError("the job runner failed a round", cause), false)),
          Effect.flatMap((again) => (again ? Effect.void : Effect.sleep(Duration.seconds(pollSeconds)))),
          Effect.forever,
          Effect.forkScoped
        )
      }
      return { list, runNow, tick }
    })
  ).pipe(Layer.provide(JobsRepo.Default))

export const layer = layerWith({ timer: true })
