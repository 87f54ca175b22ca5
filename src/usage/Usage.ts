/**
 * Usage rollups (docs/decisions.md "Project read API and usage"). Writers
 * count what they stored with `record`; the counts are summed in memory per
 * (project, UTC day, user) and written as one multi-row upsert every second,
 * so the hot write paths (message append, run ingest) pay a Map update, not
 * a contended row lock. A failed flush keeps its counts for the next one;
 * the last flush runs at shutdown. Reads flush this gateway's counts of their project first,
 * so what a gateway stored is in its own answers at once, and in other
 * gateways' within a second. A hard kill can lose at most the last second of
 * counts (never the data they count).
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Schedule from "effect/Schedule"
import { invalid } from "../../schema/Errors.js"
import { Limits } from "../../schema/Limits.js"
import {
  USAGE_FIELDS,
  type UsageCounts,
  UsageDay as UsageDayRow,
  type UsageField,
  type UsageQuery
} from "../../schema/Usage.js"
import { fn } from "../platform/telemetry/Traced.js"

type MutableCounts = { -readonly [F in UsageField]: number }
export type UsageDelta = Partial<UsageCounts>
export type UsageDay = typeof UsageDayRow.Type
export type UsageTotals = UsageCounts & { readonly active_users: number }

/**
 * The user of counts that have none (a run made from a trace span that names
 * no user or thread): counted in the figures, never as an active user.
 */
export const NO_USER = ""

export interface UsageBacklog {
  /** (project, day, user) rows counted in memory and not yet written. */
  readonly pending: number
  /** Age in ms of the oldest count not yet written; 0 when none waits. */
  readonly lagMs: number
  /** Epoch ms of the last flush that left nothing behind; undefined before the first. */
  readonly lastFlushedAt: number | undefined
}

const zero = (): MutableCounts => {
  const counts = {} as MutableCounts
  for (const field of USAGE_FIELDS) counts[field] = 0
  return counts
}

/** The counts of a summed row (numbers or numeric text), zero where absent. */
const countsOf = (row: Partial<Record<UsageField, unknown>> | undefined): UsageCounts => {
  const counts = zero()
  for (const field of USAGE_FIELDS) counts[field] = Number(row?.[field] ?? 0)
  return counts
}

interface Pending {
  readonly projectId: string
  readonly day: string
  readonly userId: string
  readonly counts: MutableCounts
}

/** UTC calendar day of an instant, as YYYY-MM-DD. */
export const utcDay = (at: Date): string => at.toISOString().slice(0, 10)

const DAY_MS = 86_400_000

/**
 * The span of a usage query: `to` defaults to today (UTC) and `from` to 29
 * days before `to` (30 days in all); at most 366 days, `from` not after `to`.
 */
export const usageSpan = (query: UsageQuery, now: Date) => {
  const to = query.to ?? utcDay(now)
  const from = query.from ?? utcDay(new Date(Date.parse(to) - (Limits.usage.defaultDays - 1) * DAY_MS))
  const days = (Date.parse(to) - Date.parse(from)) / DAY_MS + 1
  if (days < 1) return Effect.fail(invalid("from must not be after to", "from"))
  if (days > Limits.usage.maxDays) {
    return Effect.fail(invalid(`the span is ${days} days; at most ${Limits.usage.maxDays}`, "from"))
  }
  return Effect.succeed({ from, to })
}

/** Days from `from` to `to` inclusive (YYYY-MM-DD), in order. */
export const daysBetween = (from: string, to: string): Array<string> => {
  const out: Array<string> = []
  for (let at = Date.parse(`${from}T00:00:00Z`); at <= Date.parse(`${to}T00:00:00Z`); at += 86_400_000) {
    out.push(new Date(at).toISOString().slice(0, 10))
  }
  return out
}

/** Rows where the user is not one of the project's test users (by id prefix). */
const NOT_TEST_USER = `NOT EXISTS (
  SELECT 1 FROM projects p, unnest(p.test_user_prefixes) AS prefix
  WHERE p.id = u.project_id AND starts_with(u.user_id, prefix))`

/** Rows a flush statement writes at most. */
const FLUSH_ROWS = 1_000

const sumColumns = USAGE_FIELDS.map((field) => `coalesce(sum(u.${field}), 0)::float8 AS ${field}`).join(", ")

export class Usage extends Effect.Service<Usage>()("svc/Usage", {
  scoped: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    let pending = new Map<string, Pending>()
    /** When the oldest count still in `pending` was recorded (background lag, see `backlog`). */
    let pendingSince: number | undefined
    /** When the oldest count of the batch being written was recorded. */
    let writingSince: number | undefined
    let lastFlushedAt: number | undefined

    const clock = yield* Effect.clock
    const record = (
      projectId: string,
      userId: string,
      delta: UsageDelta,
      at: Date = new Date(clock.unsafeCurrentTimeMillis())
    ): void => {
      const day = utcDay(at)
      const key = `${projectId}\u0000${day}\u0000${userId}`
      let entry = pending.get(key)
      if (entry === undefined) {
        entry = { projectId, day, userId, counts: zero() }
        pending.set(key, entry)
        pendingSince ??= clock.unsafeCurrentTimeMillis()
      }
      for (const field of USAGE_FIELDS) entry.counts[field] += delta[field] ?? 0
    }

    const merge = (entries: Iterable<Pending>, since: number | undefined) => {
      for (const entry of entries) record(entry.projectId, entry.userId, entry.counts, new Date(entry.day))
      if (since !== undefined) pendingSince = Math.min(since, pendingSince ?? since)
    }

    const write = (batch: ReadonlyArray<Pending>) => {
      const rows = batch.map((entry) => ({
        project_id: entry.projectId,
        day: entry.day,
        user_id: entry.userId,
        ...entry.counts
      }))
      const updates = USAGE_FIELDS.map((field) => `${field} = usage_daily.${field} + excluded.${field}`).join(", ")
      return sql`INSERT INTO usage_daily ${sql.insert(rows)}
        ON CONFLICT (project_id, day, user_id) DO UPDATE SET ${sql.literal(updates)}`
    }

    // One flush at a time: a read's flush must also wait for a batch the timer is still writing,
    // or the read could run before that batch commits (on PostgreSQL, on another connection).
    const flushing = yield* Effect.makeSemaphore(1)

    /**
     * Writes what was counted so far, of one project or of all (`projectId`
     * undefined); on failure the counts go back for the next flush. A read
     * flushes its own project's only: one project's statement stays on its
     * shard under a database sharded by project (docs/operations.md
     * "Sharding by project"); the timer writes every project's.
     */
    /** Takes the pending counts out to be written: all of them, or one project's. */
    const takePending = (projectId: string | undefined): Map<string, Pending> => {
      if (projectId === undefined) {
        const all = pending
        pending = new Map()
        pendingSince = undefined
        return all
      }
      const mine = new Map<string, Pending>()
      for (const [key, entry] of pending) {
        if (entry.projectId !== projectId) continue
        mine.set(key, entry)
        pending.delete(key)
      }
      if (pending.size === 0) pendingSince = undefined
      return mine
    }

    const flushOf = (projectId: string | undefined) =>
      Effect.suspend(() => {
        if (pending.size === 0) {
          lastFlushedAt = clock.unsafeCurrentTimeMillis()
          return Effect.void
        }
        const since = pendingSince
        const batch = takePending(projectId)
        return batch.size === 0 ? Effect.void : writeBatch(batch, since, projectId === undefined)
      }).pipe(flushing.withPermits(1), Effect.uninterruptible)

    const writeBatch = (batch: Map<string, Pending>, since: number | undefined, all: boolean) => {
      writingSince = since
      // Sorted keys: two gateways flushing the same rows lock them in one order.
      const entries = [...batch.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, entry]) => entry)
      // In statements of at most FLUSH_ROWS rows (PostgreSQL takes 65,535 parameters a statement, 12 a row):
      // a backlog after an outage is written in parts, and a failure puts back only what was not written.
      return Effect.gen(function* () {
        for (let start = 0; start < entries.length; start += FLUSH_ROWS) {
          const written = yield* write(entries.slice(start, start + FLUSH_ROWS)).pipe(
            Effect.as(true),
            Effect.catchAll((error) =>
              Effect.as(Effect.logWarning("usage flush failed; counts kept for the next flush", error), false)
            )
          )
          if (!written) {
            merge(entries.slice(start), since)
            return
          }
        }
        if (all) lastFlushedAt = clock.unsafeCurrentTimeMillis()
      }).pipe(
        Effect.ensuring(
          Effect.sync(() => {
            writingSince = undefined
          })
        )
      )
    }

    const flush = flushOf(undefined)

    yield* flush.pipe(Effect.repeat(Schedule.spaced(Duration.seconds(1))), Effect.forkScoped)
    yield* Effect.addFinalizer(() => flush)

    /** One row per day of the span (usageSpan), zeros included. */
    const daily = fn("Usage.daily")(function* (projectId: string, query: UsageQuery) {
      const { from, to } = yield* usageSpan(query, new Date(clock.unsafeCurrentTimeMillis()))
      yield* flushOf(projectId)
      const rows = yield* sql<UsageCounts & { day: string; active_users: number }>`
        SELECT to_char(u.day, 'YYYY-MM-DD') AS day, ${sql.literal(sumColumns)}, count(*) FILTER (WHERE u.user_id <> '')::int AS active_users
        FROM usage_daily u
        WHERE u.project_id = ${projectId} AND u.day BETWEEN ${from}::date AND ${to}::date
          AND ${sql.literal(NOT_TEST_USER)}
        GROUP BY u.day`.pipe(Effect.orDie)
      const byDay = new Map(rows.map((row) => [row.day, row]))
      return daysBetween(from, to).map((date): UsageDay => {
        const row = byDay.get(date)
        return { date, ...countsOf(row), active_users: Number(row?.active_users ?? 0) }
      })
    })

    /** The same figures summed over the span; active users are distinct over it. */
    const period = fn("Usage.period")(function* (projectId: string, query: UsageQuery) {
      const { from, to } = yield* usageSpan(query, new Date(clock.unsafeCurrentTimeMillis()))
      yield* flushOf(projectId)
      const [row] = yield* sql<UsageCounts & { active_users: number }>`
        SELECT ${sql.literal(sumColumns)}, count(DISTINCT NULLIF(u.user_id, ''))::int AS active_users
        FROM usage_daily u
        WHERE u.project_id = ${projectId} AND u.day BETWEEN ${from}::date AND ${to}::date
          AND ${sql.literal(NOT_TEST_USER)}`.pipe(Effect.orDie)
      const totals: UsageTotals = { ...countsOf(row), active_users: Number(row?.active_users ?? 0) }
      return { from, to, totals }
    })

    /**
     * The background flush's state, for monitoring: counts waiting, the age of
     * the oldest (0 when none waits: the lag), and when a flush last left nothing behind.
     */
    const backlog = (): UsageBacklog => {
      const now = clock.unsafeCurrentTimeMillis()
      const oldest = Math.min(pendingSince ?? now, writingSince ?? now)
      return {
        pending: pending.size,
        lagMs: Math.max(0, now - oldest),
        lastFlushedAt
      }
    }

    return { record, flush, flushOf, daily, period, backlog } as const
  })
}) {}
