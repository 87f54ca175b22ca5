import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { isoTimestampSql } from "../platform/db/SqlText.js"
import { fn } from "../platform/telemetry/Traced.js"

/** A project as the topics job sees it: its ceiling and its last full run, if any. */
export interface TopicProject {
  readonly id: string
  readonly ceiling: number
  readonly computed_at: Date | null
  readonly model_ceiling: number | null
  readonly window_to: Date | null
  /** Where placement stands, exactly (the column's text: a Date would drop its microseconds). */
  readonly placed_at: string | null
  readonly placed_id: string | null
}

/** A thread of the window: its times and its user messages' stored content (JSON text of `[{ f, c }]`). */
export interface WindowThread {
  readonly id: string
  readonly created_at: Date
  /** created_at exactly, as text (a keyset cursor of Dates would drop the microseconds and skip rows). */
  readonly position: string
  readonly last_message_at: Date
  readonly topic_id: string | null
  readonly messages: string
}

export interface TopicWrite {
  readonly id: string
  readonly label: string
  readonly keywords: ReadonlyArray<string>
}

/** A place in start order: created_at exactly (as the column's text) and the id. */
export interface Position {
  readonly position: string
  readonly id: string
}

/** A thread's topic (null: none). */
export interface Assignment {
  readonly id: string
  readonly topic: string | null
}

export interface ModelWrite {
  readonly computedAt: Date
  readonly windowFrom: Date
  readonly windowTo: Date
  readonly ceiling: number
  readonly threads: number
  readonly model: string
}

/** A topic's figures over a window, as the read API answers them. */
export interface TopicRow {
  readonly id: string
  readonly label: string
  readonly keywords: ReadonlyArray<string>
  readonly thread_count: number
  /** JSON text of `[{ date, threads }]`, days with threads only. */
  readonly days: string
  /** JSON text of up to three `{ id, title, last_message_at }`, most recent first. */
  readonly samples: string
}

/** User messages read per thread: a thread's first ones say what it is about. */
const MESSAGES_PER_THREAD = 8
/** Threads per statement when the job writes a run's topics onto them. */
const WRITE_BATCH = 2000

export class TopicsRepo extends Effect.Service<TopicsRepo>()("svc/TopicsRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    /** A thread `t` as WindowThread: its times, its topic and its first user messages of the formats search reads. */
    const windowColumns =
      sql.literal(`t.id, t.created_at, t.created_at::text AS position, t.last_message_at, t.topic_id,
      (SELECT coalesce(json_agg(json_build_object('f', u.format, 'c', u.content) ORDER BY u.id), '[]')::text
        FROM (SELECT m.id, m.format, m.content FROM messages m
          WHERE m.project_id = t.project_id AND m.thread_id = t.id
            AND m.format IN ('svc/v0', 'ai-sdk/v6') AND m.content->>'role' = 'user'
          ORDER BY m.id LIMIT ${MESSAGES_PER_THREAD}) u) AS messages`)

    /** Threads' topics in batches; a row is written only when its topic changes. */
    const assign = (projectId: string, assignments: ReadonlyArray<Assignment>) =>
      Effect.forEach(
        Array.from({ length: Math.ceil(assignments.length / WRITE_BATCH) }, (_, i) =>
          JSON.stringify(assignments.slice(i * WRITE_BATCH, (i + 1) * WRITE_BATCH))
        ),
        (batch) =>
          sql`UPDATE threads t SET topic_id = a.topic
            FROM jsonb_to_recordset(${batch}::jsonb) AS a (id text, topic text)
            WHERE t.project_id = ${projectId} AND t.id = a.id AND t.topic_id IS DISTINCT FROM a.topic`,
        { discard: true }
      )

    return {
      /** Every project, with its ceiling and its last full run. */
      projects: fn("TopicsRepo.projects")(
        () =>
          sql<TopicProject>`SELECT p.id, p.topic_ceiling AS ceiling, m.computed_at, m.ceiling AS model_ceiling,
              m.window_to, m.placed_at::text AS placed_at, m.placed_id
            FROM projects p LEFT JOIN topic_models m ON m.project_id = p.id ORDER BY p.id`,
        Effect.orDie
      ),

      /** The stored placement model (JSON text) of the project's last full run. */
      model: fn("TopicsRepo.model")(
        (projectId: string) =>
          sql<{ model: string }>`SELECT model FROM topic_models WHERE project_id = ${projectId}`.pipe(
            Effect.map((rows) => Option.map(Option.fromNullable(rows[0]), (row) => row.model))
          ),
        Effect.orDie
      ),

      /** A page of the threads started in [from, to), newest first, before `before` (the previous page's last). */
      windowThreads: fn("TopicsRepo.windowThreads")(
        (projectId: string, from: Date, to: Date, before: Position | undefined, limit: number) => {
          const cursor =
            before === undefined
              ? sql``
              : sql`AND (t.created_at, t.id) < (${before.position}::timestamptz, ${before.id})`
          return sql<WindowThread>`
            SELECT ${windowColumns} FROM threads t
            WHERE t.project_id = ${projectId} AND t.created_at >= ${from.toISOString()}::timestamptz AND t.created_at < ${to.toISOString()}::timestamptz
              ${cursor}
            ORDER BY t.created_at DESC, t.id DESC LIMIT ${limit}`
        },
        Effect.orDie
      ),

      /**
       * Threads started after `after` (a position in start order) and before
       * `to`, oldest first: those to place between full runs.
       */
      threadsToPlace: fn("TopicsRepo.threadsToPlace")(
        (projectId: string, after: Position, to: Date, limit: number) =>
          sql<WindowThread>`
            SELECT ${windowColumns} FROM threads t
            WHERE t.project_id = ${projectId} AND (t.created_at, t.id) > (${after.position}::timestamptz, ${after.id})
              AND t.created_at < ${to.toISOString()}::timestamptz
            ORDER BY t.created_at, t.id LIMIT ${limit}`,
        Effect.orDie
      ),

      /** Sets threads' topics (null: none); each thread's row is written only when its topic changes. */
      assign: fn("TopicsRepo.assign")(assign, Effect.orDie),

      /** Where placement stands: threads are placed up to this position in start order. */
      placed: fn("TopicsRepo.placed")(
        (projectId: string, at: Position) =>
          sql`UPDATE topic_models SET placed_at = ${at.position}::timestamptz, placed_id = ${at.id}
            WHERE project_id = ${projectId}`,
        Effect.orDie
      ),

      /** The topic (null: none) of each thread placed since the full run, for measuring the change. */
      placedSince: fn("TopicsRepo.placedSince")(
        (projectId: string, from: Date, through: Position) =>
          sql<{ topic_id: string | null }>`SELECT topic_id FROM threads
            WHERE project_id = ${projectId} AND created_at >= ${from.toISOString()}::timestamptz
              AND (created_at, id) <= (${through.position}::timestamptz, ${through.id})`,
        Effect.orDie
      ),

      /**
       * A full run's outcome: its topics (the others deleted, their threads
       * and those started before the window left in none), each window
       * thread's topic, and the model that places the next threads.
       */
      saveRun: fn("TopicsRepo.saveRun")(
        (
          projectId: string,
          topics: ReadonlyArray<TopicWrite>,
          assignments: ReadonlyArray<Assignment>,
          run: ModelWrite
        ) =>
          Effect.gen(function* () {
            const rows = JSON.stringify(topics.map((t) => ({ id: t.id, label: t.label, keywords: t.keywords })))
            const ids = JSON.stringify(topics.map((t) => t.id))
            yield* sql`INSERT INTO topics (project_id, id, label, keywords)
              SELECT ${projectId}, r.id, r.label, r.keywords
              FROM jsonb_to_recordset(${rows}::jsonb) AS r (id text, label text, keywords jsonb)
              ON CONFLICT (project_id, id) DO UPDATE SET label = excluded.label, keywords = excluded.keywords,
                updated_at = now()`
            yield* sql`UPDATE threads SET topic_id = NULL
              WHERE project_id = ${projectId} AND topic_id IS NOT NULL
                AND (created_at < ${run.windowFrom.toISOString()}::timestamptz
                  OR topic_id NOT IN (SELECT jsonb_array_elements_text(${ids}::jsonb)))`
            yield* sql`DELETE FROM topics WHERE project_id = ${projectId}
              AND id NOT IN (SELECT jsonb_array_elements_text(${ids}::jsonb))`
            yield* assign(projectId, assignments)
            const to = run.windowTo.toISOString()
            yield* sql`INSERT INTO topic_models
                (project_id, computed_at, window_from, window_to, placed_at, placed_id, ceiling, threads, model)
              VALUES (${projectId}, ${run.computedAt.toISOString()}::timestamptz, ${run.windowFrom.toISOString()}::timestamptz,
                ${to}::timestamptz, ${to}::timestamptz, '', ${run.ceiling}, ${run.threads}, ${run.model})
              ON CONFLICT (project_id) DO UPDATE SET computed_at = excluded.computed_at,
                window_from = excluded.window_from, window_to = excluded.window_to, placed_at = excluded.placed_at,
                placed_id = excluded.placed_id, ceiling = excluded.ceiling, threads = excluded.threads,
                model = excluded.model`
          }).pipe(sql.withTransaction),
        Effect.orDie
      ),

      /** Replaces the stored placement model's JSON (what the topics model was told is kept in it too). */
      setModel: fn("TopicsRepo.setModel")(
        (projectId: string, model: string) =>
          sql`UPDATE topic_models SET model = ${model} WHERE project_id = ${projectId}`,
        Effect.orDie
      ),

      /** The project's topics' labels and keywords (what the topics model chooses among). */
      labels: fn("TopicsRepo.labels")(
        (projectId: string) =>
          sql<TopicWrite>`SELECT id, label, keywords FROM topics WHERE project_id = ${projectId} ORDER BY id`,
        Effect.orDie
      ),

      /** The project's topic ceiling and its last full run's time (null before the first). */
      runInfo: fn("TopicsRepo.runInfo")(
        (projectId: string) =>
          sql<{ ceiling: number; computed_at: Date | null }>`SELECT p.topic_ceiling AS ceiling, m.computed_at
            FROM projects p LEFT JOIN topic_models m ON m.project_id = p.id WHERE p.id = ${projectId}`.pipe(
            Effect.map((rows) => rows[0] ?? { ceiling: 0, computed_at: null })
          ),
        Effect.orDie
      ),

      /** The project's topics with their threads started since `from`: counts per day and three samples. */
      figures: fn("TopicsRepo.figures")(
        (projectId: string, from: Date) =>
          sql<TopicRow>`
            SELECT tp.id, tp.label, tp.keywords,
              coalesce(c.thread_count, 0)::int AS thread_count, coalesce(c.days, '[]') AS days,
              coalesce(s.samples, '[]') AS samples
            FROM topics tp
            LEFT JOIN LATERAL (
              SELECT sum(d.threads)::int AS thread_count,
                json_agg(json_build_object('date', d.day, 'threads', d.threads) ORDER BY d.day)::text AS days
              FROM (SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, count(*)::int AS threads
                FROM threads WHERE project_id = tp.project_id AND topic_id = tp.id
                  AND created_at >= ${from.toISOString()}::timestamptz
                GROUP BY 1) d
            ) c ON true
            LEFT JOIN LATERAL (
              SELECT json_agg(json_build_object('id', x.id, 'title', x.title, 'last_message_at', x.at)
                ORDER BY x.last_message_at DESC, x.id DESC)::text AS samples
              FROM (SELECT id, title, last_message_at, ${sql.literal(isoTimestampSql("last_message_at"))} AS at
                FROM threads WHERE project_id = tp.project_id AND topic_id = tp.id
                  AND created_at >= ${from.toISOString()}::timestamptz
                ORDER BY last_message_at DESC, id DESC LIMIT 3) x
            ) s ON true
            WHERE tp.project_id = ${projectId}`,
        Effect.orDie
      ),

      /** Threads started since `from` in no topic. */
      unassigned: fn("TopicsRepo.unassigned")(
        (projectId: string, from: Date) =>
          sql<{ n: number }>`SELECT count(*)::int AS n FROM threads
            WHERE project_id = ${projectId} AND topic_id IS NULL AND created_at >= ${from.toISOString()}::timestamptz`.pipe(
            Effect.map((rows) => rows[0]?.n ?? 0)
          ),
        Effect.orDie
      ),

      exists: fn("TopicsRepo.exists")(
        (projectId: string, topicId: string) =>
          sql`SELECT 1 AS one FROM topics WHERE project_id = ${projectId} AND id = ${topicId}`.pipe(
            Effect.map((rows) => rows.length > 0)
          ),
        Effect.orDie
      )
    }
  })
}) {}
