import { createHash } from "node:crypto"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import { ErasedUserId, type ErasureCounts, type UserErasure } from "../schema/Erasure.js"
import { invalid } from "../schema/Errors.js"
import { BlobStore } from "./blobs/BlobStore.js"
import { parseKey, workspaceSegment } from "./Files.js"
import { orNotFound } from "./Found.js"
import { ulid } from "./Ids.js"
import { type ContentRow, ErasureRepo, type ErasureRow } from "./storage/ErasureRepo.js"
import { ProjectsRepo } from "./storage/ProjectsRepo.js"
import { fn } from "./Traced.js"

/** Rows selected (and then deleted) per statement. */
export const ERASURE_BATCH = 200
/** Threads taken at a time; their rows go in batches of ERASURE_BATCH. */
const THREADS_PER_BATCH = 50
/** Traces whose spans go in one statement (a trace keeps at most 500 spans). */
const TRACES_PER_BATCH = 20
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

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex")

const zero = (): { -readonly [K in keyof ErasureCounts]: number } => ({
  threads: 0,
  messages: 0,
  feedback: 0,
  runs: 0,
  scores: 0,
  events: 0,
  attachments: 0,
  spans: 0,
  traces: 0,
  refresh_tokens: 0,
  workspace_claims: 0,
  webhook_deliveries: 0
})

const COUNT_KEYS = Object.keys(zero()) as Array<keyof ErasureCounts>

/** A stored audit row in the admin API's shape. */
const erasureOf = (row: ErasureRow): UserErasure => {
  const stored: Record<string, unknown> =
    typeof row.counts === "string" ? JSON.parse(row.counts) : ((row.counts ?? {}) as Record<string, unknown>)
  const deleted = zero()
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
 * user's refresh tokens (anonymous sessions) and workspace claims, and the
 * blobs of the attachments the erased messages and threads name. Bounded
 * batches, one short transaction each; blobs go before the rows that name
 * them, so an erasure cut short loses no reference to a blob it has not
 * deleted, and running it again finishes it. Ends with an audit record.
 */
export class Erasure extends Effect.Service<Erasure>()("svc/Erasure", {
  dependencies: [ErasureRepo.Default, ProjectsRepo.Default],
  effect: Effect.gen(function* () {
    const repo = yield* ErasureRepo
    const projects = yield* ProjectsRepo
    const blobs = yield* BlobStore

    const requireProject = (projectId: string) => Effect.flatMap(projects.get(projectId), orNotFound("project"))

    const erase = fn("Erasure.erase")(function* (projectId: string, rawUserId: string, requestedBy: string) {
      const userId = yield* decodeUserId(rawUserId)
      yield* requireProject(projectId)
      const startedAt = new Date(yield* Clock.currentTimeMillis)
      const erasureId = `era_${ulid()}`
      const counts = zero()
      const traceIds = new Set<string>()
      const seenKeys = new Set<string>()

      /** Deletes the blobs the rows name (each once), counting those that were there. */
      const eraseBlobs = (rows: ReadonlyArray<ContentRow>) =>
        Effect.gen(function* () {
          for (const row of rows) {
            for (const key of attachmentKeysIn(projectId, row.content)) {
              if (seenKeys.has(key)) continue
              seenKeys.add(key)
              if (Option.isNone(yield* blobs.stat(key))) continue
              yield* blobs.remove(key)
              counts.attachments += 1
            }
          }
        })

      const eraseMessages = (rows: ReadonlyArray<ContentRow>) =>
        Effect.gen(function* () {
          yield* eraseBlobs(rows)
          const gone = yield* repo.deleteMessages(
            projectId,
            rows.map((row) => row.id)
          )
          counts.messages += gone.messages
          counts.feedback += gone.feedback
          counts.scores += gone.scores
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

      /** Runs a batch select-and-delete until a batch comes back short. */
      const drain = <A, E>(
        select: Effect.Effect<ReadonlyArray<A>>,
        remove: (rows: ReadonlyArray<A>) => Effect.Effect<void, E>
      ) =>
        Effect.gen(function* () {
          for (;;) {
            const rows = yield* select
            if (rows.length > 0) yield* remove(rows)
            if (rows.length < ERASURE_BATCH) return
            yield* between
          }
        })

      const eraseRuns = (rows: ReadonlyArray<{ readonly id: string; readonly trace_id: string | null }>) =>
        Effect.gen(function* () {
          for (const row of rows) if (row.trace_id !== null) traceIds.add(row.trace_id)
          const gone = yield* repo.deleteRuns(
            projectId,
            rows.map((row) => row.id)
          )
          counts.runs += gone.runs
          counts.scores += gone.scores
        })

      const countBatches = (batch: Effect.Effect<number>, add: (n: number) => void) =>
        Effect.gen(function* () {
          for (;;) {
            const n = yield* batch
            add(n)
            if (n < ERASURE_BATCH) return
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
        yield* countBatches(repo.deleteInThreads("scores", projectId, ids, ERASURE_BATCH), (n) => {
          counts.scores += n
        })
        yield* countBatches(repo.deleteInThreads("events", projectId, ids, ERASURE_BATCH), (n) => {
          counts.events += n
        })
        // Outgoing deliveries of objects in these threads (anyone's: their payloads hold the threads' content).
        yield* countBatches(repo.deleteInThreads("webhook_deliveries", projectId, ids, ERASURE_BATCH), (n) => {
          counts.webhook_deliveries += n
        })
        yield* eraseBlobs(threads)
        counts.threads += yield* repo.deleteThreads(projectId, ids)
        if (threads.length < THREADS_PER_BATCH) break
        yield* between
      }

      // The user's rows outside those threads.
      yield* drain(repo.messagesOfUserElsewhere(projectId, userId, ERASURE_BATCH), eraseMessages)
      yield* drain(repo.runsOfUser(projectId, userId, ERASURE_BATCH), eraseRuns)
      yield* countBatches(repo.deleteOfUser("scores", projectId, userId, ERASURE_BATCH), (n) => {
        counts.scores += n
      })
      yield* countBatches(repo.deleteOfUser("events", projectId, userId, ERASURE_BATCH), (n) => {
        counts.events += n
      })
      yield* countBatches(repo.deleteOfUser("message_feedback", projectId, userId, ERASURE_BATCH), (n) => {
        counts.feedback += n
      })

      // The traces of the runs erased: their spans and their rows.
      const traces = [...traceIds]
      for (let at = 0; at < traces.length; at += TRACES_PER_BATCH) {
        const gone = yield* repo.deleteTraces(projectId, traces.slice(at, at + TRACES_PER_BATCH))
        counts.spans += gone.spans
        counts.traces += gone.traces
        yield* between
      }

      yield* countBatches(repo.deleteOfUser("refresh_tokens", projectId, userId, ERASURE_BATCH), (n) => {
        counts.refresh_tokens += n
      })
      counts.workspace_claims += yield* repo.deleteWorkspaceClaims(projectId, userId, workspaceSegment(userId))
      // Outgoing webhook deliveries carrying the user's objects (sent or not: their bodies hold content).
      yield* countBatches(repo.deleteOfUser("webhook_deliveries", projectId, userId, ERASURE_BATCH), (n) => {
        counts.webhook_deliveries += n
      })
      const usageRows = yield* repo.anonymizeUsage(projectId, userId, `erased_${erasureId}`)

      const stored = yield* repo.record({
        projectId,
        id: erasureId,
        userSha256: sha256(userId),
        requestedBy,
        startedAt,
        counts: { ...counts, usage_rows_anonymized: usageRows }
      })
      return erasureOf(stored)
    })

    /** The project's erasures, newest first (at most ERASURE_LIST_MAX). */
    const list = fn("Erasure.list")(function* (projectId: string) {
      yield* requireProject(projectId)
      return (yield* repo.list(projectId, ERASURE_LIST_MAX)).map(erasureOf)
    })

    return { erase, list } as const
  })
}) {}
