import { createHash } from "node:crypto"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import { ErasedUserId, type ErasureCounts, type UserErasure } from "../../schema/Erasure.js"
import { invalid } from "../../schema/Errors.js"
import { parseKey, workspaceSegment } from "../files/Files.js"
import { BlobStore } from "../platform/blobs/BlobStore.js"
import { zeroCounts } from "../platform/db/UserData.js"
import { ulid } from "../platform/Ids.js"
import { fn } from "../platform/telemetry/Traced.js"
import { Projects } from "../projects/Projects.js"
import { Usage } from "../usage/Usage.js"
import { addTally, type ContentRow, ErasureRepo, type ErasureRow, type RunRef, type Tally } from "./ErasureRepo.js"

/** Rows selected (and then deleted) per statement. */
export const ERASURE_BATCH = 200
/** Threads taken at a time; their rows go in batches of ERASURE_BATCH. */
const THREADS_PER_BATCH = 50
/** Traces whose spans go in one statement (a trace keeps at most 500 spans). */
const TRACES_PER_BATCH = 20
/** Blob stats a preview has in flight at once (each an HTTP request on S3). */
const PREVIEW_STATS_AT_ONCE = 8
/** Erasures the log answers (newest first). */
export const ERASURE_LIST_MAX = 1000

/**
 * An attachment key anywhere in a text: on its own, in a URL the blob store
 * made (the local store's `/v1/blobs/{key}`, an S3 object URL, signed or not)
 * or in Markdown. Only keys this service made are taken (Files.parseKey).
 */
const KEY_IN_TEXT =
  /(?<![A-Za-z0-9_-])[A-Za-z0-9_-]{1,48}\/[A-Za-z0-9_-]{43}\/[0-9A-HJKMNP-TV-Z]{26}\/[A-Za-z0-9_-][A-Za-z0-9._-]{0,110}/g

/** The attachment keys of `projectId` named anywhere in a JSON document's strings (keys included). */
export const attachmentKeysIn = (projectId: string, json: string): Set<string> => {
  const keys = new Set<string>()
  const visit = (value: unknown): void => {
    if (typeof value === "string") {
      for (const match of value.matchAll(KEY_IN_TEXT)) {
        if (parseKey(match[0])?.projectId === projectId) keys.add(match[0])
      }
    } else if (Array.isArray(value)) {
      for (const item of value) visit(item)
    } else if (typeof value === "object" && value !== null) {
      for (const [key, item] of Object.entries(value)) {
        visit(key)
        visit(item)
      }
    }
  }
  try {
    visit(JSON.parse(json))
  } catch {
    visit(json)
  }
  return keys
}

/**
 * How an erased user is named where an identifier may not be kept (the audit
 * record, the access log): the SHA-256 (hex) of its id.
 */
export const userSha256 = (userId: string): string => createHash("sha256").update(userId).digest("hex")

const COUNT_KEYS = Object.keys(zeroCounts()) as Array<keyof ErasureCounts>

/** A stored audit row in the admin API's shape. */
const erasureOf = (row: ErasureRow): UserErasure => {
  const stored: Record<string, unknown> =
    typeof row.counts === "string" ? JSON.parse(row.counts) : ((row.counts ?? {}) as Record<string, unknown>)
  const deleted = zeroCounts()
  for (const key of COUNT_KEYS) deleted[key] = Number(stored[key] ?? 0)
  return {
    erasure_id: row.id,
    user_sha256: row.user_sha256,
    requested_by: row.requested_by,
    started_at: new Date(row.started_at),
    finished_at: new Date(row.finished_at),
    deleted,
    usage_rows_anonymized: Number(stored.usage_rows_anonymized ?? 0)
  }
}

const decodeUserId = (userId: string) =>
  Schema.decodeUnknown(ErasedUserId)(userId).pipe(
    Effect.mapError((error) =>
      invalid(ParseResult.ArrayFormatter.formatErrorSync(error)[0]?.message ?? "user_id is invalid", "user_id")
    )
  )

/**
 * Erasure of one user's data in a project (docs/decisions.md, "Erasure of one
 * user"): the user's threads in any workspace with everything in them, the
 * user's rows outside them, the spans of the traces of the runs erased, the
 * user's refresh tokens (anonymous sessions) and workspace claims, the
 * blobs of the attachments the erased messages and threads name, and the
 * webhook deliveries of every object erased. Bounded batches, one short
 * transaction each, which also adds what the batch deleted to the audit
 * record (written when the erasure starts). What a row names goes before
 * the row (blobs, traces), so an erasure cut short loses no reference to
 * what it has not deleted; running it again continues the same record and
 * finishes it.
 */
export class Erasure extends Effect.Service<Erasure>()("svc/Erasure", {
  dependencies: [ErasureRepo.Default, Projects.Default],
  effect: Effect.gen(function* () {
    const repo = yield* ErasureRepo
    const projects = yield* Projects
    const blobs = yield* BlobStore

    const requireProject = projects.require

    const erase = fn("Erasure.erase")(function* (projectId: string, rawUserId: string, requestedBy: string) {
      const userId = yield* decodeUserId(rawUserId)
      yield* requireProject(projectId)
      const startedAt = new Date(yield* Clock.currentTimeMillis)
      // The record of an erasure of this user cut short, or a new one: its counts are those of every run.
      const erasureId = yield* repo.open({
        projectId,
        id: `era_${ulid()}`,
        userSha256: userSha256(userId),
        requestedBy,
        startedAt
      })
      const tracesGone = new Set<string>()
      const seenKeys = new Set<string>()

      /** One batch: its deletes, and what they deleted added to the record, in one transaction. */
      const batch = (work: Effect.Effect<Tally>) =>
        repo.withTransaction(Effect.tap(work, (added) => repo.tally(projectId, erasureId, added)))

      /** Deletes the blobs the rows name (each once); the count of those that were there. */
      const eraseBlobs = (rows: ReadonlyArray<ContentRow>) =>
        Effect.gen(function* () {
          let removed = 0
          for (const row of rows) {
            for (const key of attachmentKeysIn(projectId, row.content)) {
              if (seenKeys.has(key)) continue
              seenKeys.add(key)
              if (Option.isNone(yield* blobs.stat(key))) continue
              yield* blobs.remove(key)
              removed += 1
            }
          }
          return removed
        })

      /**
       * Between batches, other work first: the embedded store has one session,
       * and its queries resolve without returning to the event loop, so an
       * erasure that went straight on would keep it (and the loop: no request
       * read) until it ended. A macrotask lets the requests waiting go first.
       */
      const between = Effect.async<void>((resume) => {
        const timer = setImmediate(() => resume(Effect.void))
        return Effect.sync(() => clearImmediate(timer))
      })

      const eraseMessages = (rows: ReadonlyArray<ContentRow>) =>
        Effect.flatMap(eraseBlobs(rows), (attachments) =>
          batch(
            Effect.map(
              repo.deleteMessages(
                projectId,
                rows.map((row) => row.id)
              ),
              (gone) => addTally(gone, { attachments })
            )
          )
        )

      /** Runs a batch select-and-delete until a batch comes back short. */
      const drain = <A, E>(
        select: Effect.Effect<ReadonlyArray<A>>,
        remove: (rows: ReadonlyArray<A>) => Effect.Effect<Tally, E>
      ) =>
        Effect.gen(function* () {
          for (;;) {
            const rows = yield* select
            if (rows.length > 0) yield* remove(rows)
            if (rows.length < ERASURE_BATCH) return
            yield* between
          }
        })

      /** The traces the runs name (spans and row), TRACES_PER_BATCH a statement, before the runs that name them. */
      const eraseTracesOf = (rows: ReadonlyArray<RunRef>) =>
        Effect.gen(function* () {
          const traces = [...new Set(rows.flatMap((row) => (row.trace_id === null ? [] : [row.trace_id])))].filter(
            (traceId) => !tracesGone.has(traceId)
          )
          for (let at = 0; at < traces.length; at += TRACES_PER_BATCH) {
            const chunk = traces.slice(at, at + TRACES_PER_BATCH)
            yield* batch(repo.deleteTraces(projectId, chunk))
            for (const traceId of chunk) tracesGone.add(traceId)
            yield* between
          }
        })

      const eraseRuns = (rows: ReadonlyArray<RunRef>) =>
        Effect.zipRight(
          eraseTracesOf(rows),
          batch(
            repo.deleteRuns(
              projectId,
              rows.map((row) => row.id)
            )
          )
        )

      /** Runs a counted batch delete until it deletes fewer than ERASURE_BATCH rows of `kind`. */
      const countBatches = (kind: keyof Tally, work: Effect.Effect<Tally>) =>
        Effect.gen(function* () {
          for (;;) {
            const gone = yield* batch(work)
            if ((gone[kind] ?? 0) < ERASURE_BATCH) return
            yield* between
          }
        })

      // The user's threads, THREADS_PER_BATCH at a time, each emptied before it goes.
      for (;;) {
        const threads = yield* repo.threadsOf(projectId, userId, THREADS_PER_BATCH)
        if (threads.length === 0) break
        const ids = threads.map((thread) => thread.id)
        yield* drain(repo.messagesOfThreads(projectId, ids, ERASURE_BATCH), eraseMessages)
        yield* drain(repo.runsOfThreads(projectId, ids, ERASURE_BATCH), eraseRuns)
        yield* countBatches("scores", repo.deleteInThreads("scores", projectId, ids, ERASURE_BATCH))
        yield* countBatches("events", repo.deleteInThreads("events", projectId, ids, ERASURE_BATCH))
        const attachments = yield* eraseBlobs(threads)
        yield* batch(Effect.map(repo.deleteThreads(projectId, ids), (gone) => addTally(gone, { attachments })))
        if (threads.length < THREADS_PER_BATCH) break
        yield* between
      }

      // The user's rows outside those threads.
      yield* drain(repo.messagesOfUserElsewhere(projectId, userId, ERASURE_BATCH), eraseMessages)
      yield* drain(repo.runsOfUser(projectId, userId, ERASURE_BATCH), eraseRuns)
      yield* countBatches("scores", repo.deleteOfUser("scores", projectId, userId, ERASURE_BATCH))
      yield* countBatches("events", repo.deleteOfUser("events", projectId, userId, ERASURE_BATCH))
      yield* countBatches("feedback", repo.deleteOfUser("message_feedback", projectId, userId, ERASURE_BATCH))
      yield* countBatches("refresh_tokens", repo.deleteOfUser("refresh_tokens", projectId, userId, ERASURE_BATCH))
      yield* batch(repo.deleteWorkspaceClaims(projectId, userId, workspaceSegment(userId)))
      yield* batch(repo.anonymizeUsage(projectId, userId, `erased_${erasureId}`))

      return erasureOf(yield* repo.finish(projectId, erasureId))
    })

    /**
     * What `erase` would delete for the user now, by kind, deleting nothing
     * and writing no record: the same user id and project checks, and the
     * same selection (ErasureRepo.countsOf; docs/decisions.md "Erasure of one
     * user"). Rows are counted in SQL, one statement, whatever their number.
     * Attachments as `erase` counts them: the distinct keys of this project
     * named in the doomed threads' metadata and messages' content whose blob
     * is there (a stat each). The store answers the keys only (a second
     * statement, ErasureRepo.attachmentKeysNamed, which says what it costs),
     * so what is held is a string per distinct key, as `erase` holds them
     * (its seen keys); the stats go PREVIEW_STATS_AT_ONCE at a time. Two
     * reads, no snapshot shared: a write between them may show in one only.
     * An erasure of the user cut short before is not added in: its record
     * already holds what it deleted, and `erase` answers that plus this.
     */
    const preview = fn("Erasure.preview")(function* (projectId: string, rawUserId: string) {
      const userId = yield* decodeUserId(rawUserId)
      yield* requireProject(projectId)
      const rows = yield* repo.countsOf(projectId, userId, workspaceSegment(userId))
      const named = yield* repo.attachmentKeysNamed(projectId, userId, `${projectId}/`, KEY_IN_TEXT.source)
      // KEY_IN_TEXT found them; what attachmentKeysIn keeps of those (a key this service made, of this project).
      const keys = named.filter((key) => parseKey(key)?.projectId === projectId)
      let attachments = 0
      yield* Effect.forEach(
        keys,
        (key) =>
          Effect.map(blobs.stat(key), (stored) => {
            if (Option.isSome(stored)) attachments += 1
          }),
        { concurrency: PREVIEW_STATS_AT_ONCE, discard: true }
      )
      const counts = zeroCounts()
      for (const key of COUNT_KEYS) counts[key] = key === "attachments" ? attachments : Number(rows[key])
      return counts satisfies ErasureCounts
    })

    /** The project's erasures, newest first (at most ERASURE_LIST_MAX). */
    const list = fn("Erasure.list")(function* (projectId: string) {
      yield* requireProject(projectId)
      return (yield* repo.list(projectId, ERASURE_LIST_MAX)).map(erasureOf)
    })

    return { erase, preview, list } as const
  })
}) {}

/**
 * Erasing a user from a serving gateway: this gateway's usage counts not
 * yet written go in first (Usage keeps them in memory for up to a second),
 * so the user's usage rows are all there to anonymize. The admin API and
 * the dashboard erase through this; the command line, which records no
 * usage, calls `Erasure.erase` itself.
 */
export const eraseFromGateway = (projectId: string, userId: string, requestedBy: string) =>
  Effect.gen(function* () {
    yield* (yield* Usage).flushOf(projectId)
    return yield* (yield* Erasure).erase(projectId, userId, requestedBy)
  })
