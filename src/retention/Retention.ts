import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { notFound } from "../../schema/Errors.js"
import type { Retention as RetentionShape } from "../../schema/Settings.js"
import { parseKey } from "../files/Files.js"
import { BlobStore } from "../platform/blobs/BlobStore.js"
import { AppConfig } from "../platform/Config.js"
import { AGED_TABLES } from "../platform/db/UserData.js"
import type { Job, JobResult } from "../platform/jobs/Jobs.js"
import { exponentialBackoff, Queue } from "../platform/jobs/Queue.js"
import { fn } from "../platform/telemetry/Traced.js"
import { RetentionRepo, type RetentionRow, THREAD_KINDS } from "./RetentionRepo.js"

type RetentionAnswer = typeof RetentionShape.Type
type Days = RetentionAnswer["days"]

const DAY_MS = 86_400_000
const now = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms))
/** A pass stops starting batches after this long (so that the gateway's other jobs, run one after another, get their turn). */
const PASS_BUDGET_MS = 60_000
/** The queue of attachment blobs to delete, written with the rows that named them. */
export const BLOB_DELETE = "blob.delete"

/** The retention that holds at `now`: the setting once effective, the earlier one until then. */
export const effectiveDays = (row: RetentionRow, now: Date): number | null =>
  row.effective_at === null || row.effective_at <= now ? row.days : row.prior_days

/** Shorter, with null as forever. */
const shorter = (a: number | null, b: number | null) => a !== null && (b === null || a < b)

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

/** The attachment keys of `projectId` named in a message's content (its URLs or keys). */
export const attachmentKeys = (projectId: string, text: string): ReadonlyArray<string> => {
  const pattern = new RegExp(
    `${escapeRegExp(projectId)}/[A-Za-z0-9_-]{43}/[0-9A-HJKMNP-TV-Z]{26}/[A-Za-z0-9_-][A-Za-z0-9._-]{0,110}`,
    "g"
  )
  const keys = new Set<string>()
  for (const match of text.matchAll(pattern)) {
    const key = match[0].replace(/\.+$/, "")
    if (parseKey(key)?.projectId === projectId) keys.add(key)
  }
  return [...keys]
}

const asDays = (days: number | null): Days => {
  switch (days) {
    case 7:
    case 14:
    case 30:
    case 60:
    case 90:
    case 180:
    case 365:
      return days
    default:
      return null
  }
}

/**
 * Retention (docs/decisions.md "Jobs and retention"): the per-project setting,
 * and the job that deletes what is past it.
 */
export class Retention extends Effect.Service<Retention>()("svc/Retention", {
  dependencies: [RetentionRepo.Default],
  effect: Effect.gen(function* () {
    const repo = yield* RetentionRepo
    const graceMs = (yield* AppConfig.retentionGraceHours) * 3_600_000

    const answer = (row: RetentionRow, at: Date): RetentionAnswer => ({
      days: asDays(row.days),
      effective_days: asDays(effectiveDays(row, at)),
      effective_at: row.effective_at
    })

    const get = fn("Retention.get")(function* (projectId: string) {
      const row = yield* Effect.flatMap(repo.get(projectId), (found) =>
        Option.isSome(found) ? Effect.succeed(found.value) : Effect.fail(notFound("project"))
      )
      return answer(row, yield* now)
    })

    /** A shorter setting than the one in effect waits the grace period; a longer (or equal) one holds at once. */
    const set = fn("Retention.set")(function* (projectId: string, days: Days) {
      return yield* repo.transaction(
        Effect.gen(function* () {
          const found = yield* repo.get(projectId)
          if (Option.isNone(found)) return yield* Effect.fail(notFound("project"))
          const at = yield* now
          const current = effectiveDays(found.value, at)
          const next: RetentionRow = shorter(days, current)
            ? { days, prior_days: current, effective_at: new Date(at.getTime() + graceMs) }
            : { days, prior_days: null, effective_at: at }
          yield* repo.set(projectId, next)
          return answer(next, at)
        })
      )
    })

    return { get, set } as const
  })
}) {}

/** The retention job: deletes what is past each project's retention, in short batches. */
export class RetentionJob extends Effect.Service<RetentionJob>()("svc/RetentionJob", {
  dependencies: [RetentionRepo.Default, Queue.Default],
  effect: Effect.gen(function* () {
    const repo = yield* RetentionRepo
    const queue = yield* Queue
    const blobs = yield* BlobStore
    const batchSize = yield* AppConfig.retentionBatchSize
    const intervalMs = (yield* AppConfig.retentionIntervalMinutes) * 60_000

    const removeBlobs = queue.drain(
      BLOB_DELETE,
      (item) => {
        const payload = item.payload
        const key = typeof payload === "object" && payload !== null && "key" in payload ? payload.key : undefined
        return typeof key === "string" ? blobs.remove(key) : Effect.void
      },
      { batch: 100, maxAttempts: 10, backoffMs: exponentialBackoff() }
    )

    /** One pass: every project's expired rows in batches, then the blobs they named; bounded by PASS_BUDGET_MS. */
    const pass = Effect.gen(function* () {
      const started = yield* now
      const deadline = started.getTime() + PASS_BUDGET_MS
      const inTime = Effect.map(Clock.currentTimeMillis, (ms) => ms < deadline)
      // Every kind at 0, so that the report lists each: the thread batch's kinds, the aged tables, the blobs.
      const totals: Record<string, number> = Object.fromEntries(
        [...THREAD_KINDS, ...AGED_TABLES, "attachments", "attachments_failed"].map((kind) => [kind, 0])
      )
      const add = (kind: string, n: number) => {
        totals[kind] = (totals[kind] ?? 0) + n
      }
      for (const project of yield* repo.inEffect(started)) {
        const cutoff = new Date(started.getTime() - project.days * DAY_MS)
        while (yield* inTime) {
          const batch = yield* repo.deleteThreads(project.id, cutoff, batchSize, (batch) =>
            Effect.forEach(
              [...new Set(batch.contents.flatMap((text) => attachmentKeys(project.id, text)))],
              (key) => queue.enqueue(BLOB_DELETE, project.id, { key }),
              { discard: true }
            )
          )
          for (const kind of THREAD_KINDS) {
            add(kind, batch[kind])
          }
          if (batch.threads === 0) break
        }
        for (const table of AGED_TABLES) {
          while (yield* inTime) {
            const n = yield* repo.deleteAged(table, project.id, cutoff, batchSize)
            add(table, n)
            if (n === 0) break
          }
        }
      }
      while (yield* inTime) {
        const drained = yield* removeBlobs
        add("attachments", drained.done)
        add("attachments_failed", drained.failed)
        if (drained.done + drained.retried + drained.failed === 0) break
      }
      const items = Object.entries(totals)
        .filter(([kind]) => kind !== "attachments_failed")
        .reduce((sum, [, n]) => sum + n, 0)
      const result: JobResult = { items, details: totals }
      return result
    }).pipe(Effect.withSpan("Retention.pass"))

    const job: Job = { name: "retention", intervalMs, run: pass }

    return { job } as const
  })
}) {}
