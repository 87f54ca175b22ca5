import * as SqlClient from "@effect/sql/SqlClient"
import { SqlError } from "@effect/sql/SqlError"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { EvaluatorCategory } from "../../schema/Evaluator.js"
import { sqlState } from "../platform/db/SqlErrors.js"
import { fn } from "../platform/telemetry/Traced.js"

/** An evaluator's settings as stored. */
export interface EvaluatorSettings {
  readonly name: string
  readonly kind: "rule" | "model"
  readonly target: "run" | "thread"
  readonly field: "output_text" | "last_user_message"
  readonly sampling_rate: number
  readonly categories: ReadonlyArray<EvaluatorCategory>
  readonly prompt: string | null
}

export interface EvaluatorRow extends EvaluatorSettings {
  readonly project_id: string
  readonly id: string
  readonly created_at: Date
  readonly updated_at: Date
  readonly stats: {
    readonly evaluated: number
    readonly scored: number
    readonly no_match: number
    readonly retrying: number
    readonly failed: number
  }
}

/** A run or thread to evaluate, with the text its evaluator reads (null: none). */
export interface Target {
  readonly id: string
  readonly thread_id: string | null
  readonly workspace_id: string | null
  readonly user_id: string | null
  readonly text: string | null
}

export interface Outcome {
  readonly status: "scored" | "no_match" | "retrying" | "failed"
  readonly category: string | null
  readonly scoreId: string | null
  readonly attempts: number
  readonly nextAttemptAt: Date | null
  readonly lastError: string | null
}

/** The name is the project's already. */
export class NameTaken extends Schema.TaggedError<NameTaken>()("NameTaken", {}) {}

const Categories = Schema.parseJson(Schema.Array(EvaluatorCategory))

interface RawRow {
  readonly project_id: string
  readonly id: string
  readonly name: string
  readonly kind: "rule" | "model"
  readonly target: "run" | "thread"
  readonly field: "output_text" | "last_user_message"
  readonly sampling_rate: number
  readonly categories: string
  readonly prompt: string | null
  readonly created_at: Date | string
  readonly updated_at: Date | string
  readonly evaluated: number
  readonly scored: number
  readonly no_match: number
  readonly retrying: number
  readonly failed: number
}

const isNameTaken = (error: unknown) => error instanceof SqlError && sqlState(error) === "23505"

/** Evaluators, their cursors over new targets, and their evaluations (migration 0021). */
export class EvaluatorsRepo extends Effect.Service<EvaluatorsRepo>()("svc/EvaluatorsRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    const toRow = (raw: RawRow) =>
      Effect.map(
        Schema.decodeUnknown(Categories)(raw.categories),
        (categories): EvaluatorRow => ({
          project_id: raw.project_id,
          id: raw.id,
          name: raw.name,
          kind: raw.kind,
          target: raw.target,
          field: raw.field,
          sampling_rate: Number(raw.sampling_rate),
          categories,
          prompt: raw.prompt,
          created_at: new Date(raw.created_at),
          updated_at: new Date(raw.updated_at),
          stats: {
            evaluated: Number(raw.evaluated),
            scored: Number(raw.scored),
            no_match: Number(raw.no_match),
            retrying: Number(raw.retrying),
            failed: Number(raw.failed)
          }
        })
      )

    const select = (where: ReturnType<typeof sql.and>) =>
      sql<RawRow>`SELECT e.project_id, e.id, e.name, e.kind, e.target, e.field, e.sampling_rate,
          e.categories::text AS categories, e.prompt, e.created_at, e.updated_at,
          count(v.target_id)::int AS evaluated,
          count(*) FILTER (WHERE v.status = 'scored')::int AS scored,
          count(*) FILTER (WHERE v.status = 'no_match')::int AS no_match,
          count(*) FILTER (WHERE v.status = 'retrying')::int AS retrying,
          count(*) FILTER (WHERE v.status = 'failed')::int AS failed
        FROM evaluators e
        LEFT JOIN evaluations v ON v.project_id = e.project_id AND v.evaluator_id = e.id
        WHERE ${where}
        GROUP BY e.project_id, e.id
        ORDER BY e.created_at, e.id`.pipe(Effect.flatMap(Effect.forEach(toRow)))

    const list = (projectId: string) => select(sql.and([sql`e.project_id = ${projectId}`]))

    const get = (projectId: string, id: string) =>
      Effect.map(select(sql.and([sql`e.project_id = ${projectId}`, sql`e.id = ${id}`])), (rows) =>
        Option.fromNullable(rows[0])
      )

    const count = (projectId: string) =>
      Effect.map(
        sql<{ n: number }>`SELECT count(*)::int AS n FROM evaluators WHERE project_id = ${projectId}`,
        (rows) => Number(rows[0]?.n ?? 0)
      )

    /** Serializes creates in a project (inside a transaction): the count and the insert cannot interleave. */
    const lockProject = (projectId: string) =>
      Effect.map(sql`SELECT id FROM projects WHERE id = ${projectId} FOR UPDATE`, (rows) => rows.length > 0)

    const insert = (projectId: string, id: string, settings: EvaluatorSettings) =>
      sql`INSERT INTO evaluators (project_id, id, name, kind, target, field, sampling_rate, categories, prompt)
        VALUES (${projectId}, ${id}, ${settings.name}, ${settings.kind}, ${settings.target}, ${settings.field},
          ${settings.sampling_rate}, ${JSON.stringify(settings.categories)}::jsonb, ${settings.prompt})`.pipe(
        Effect.asVoid,
        Effect.catchIf(isNameTaken, () => Effect.fail(new NameTaken()))
      )

    /** A changed target starts its cursor over at now (it labels new targets of the new kind only). */
    const update = (projectId: string, id: string, settings: EvaluatorSettings) =>
      sql<{ id: string }>`UPDATE evaluators SET name = ${settings.name}, kind = ${settings.kind},
          field = ${settings.field}, sampling_rate = ${settings.sampling_rate},
          categories = ${JSON.stringify(settings.categories)}::jsonb, prompt = ${settings.prompt}, updated_at = now(),
          cursor_at = CASE WHEN target = ${settings.target} THEN cursor_at ELSE now() END,
          cursor_id = CASE WHEN target = ${settings.target} THEN cursor_id ELSE '' END,
          target = ${settings.target}
        WHERE project_id = ${projectId} AND id = ${id} RETURNING id`.pipe(
        Effect.map((rows) => rows.length > 0),
        Effect.catchIf(isNameTaken, () => Effect.fail(new NameTaken()))
      )

    const remove = (projectId: string, id: string) =>
      Effect.map(
        sql`DELETE FROM evaluators WHERE project_id = ${projectId} AND id = ${id} RETURNING id`,
        (rows) => rows.length > 0
      )

    /** Every evaluator after (project, id), a page at a time (the job walks them all; no stats). */
    const page = (after: { readonly projectId: string; readonly id: string } | undefined, limit: number) =>
      sql<RawRow>`SELECT project_id, id, name, kind, target, field, sampling_rate, categories::text AS categories,
          prompt, created_at, updated_at, 0 AS evaluated, 0 AS scored, 0 AS no_match, 0 AS retrying, 0 AS failed
        FROM evaluators
        WHERE ${after === undefined ? sql`true` : sql`(project_id, id) > (${after.projectId}, ${after.id})`}
        ORDER BY project_id, id LIMIT ${limit}`.pipe(Effect.flatMap(Effect.forEach(toRow)))

    /** The next targets past the evaluator's cursor, created at least `delaySeconds` ago, oldest first. */
    const newTargets = (evaluator: EvaluatorRow, delaySeconds: number, limit: number) =>
      evaluator.target === "run"
        ? sql<Target>`SELECT r.id, r.thread_id, r.workspace_id, r.user_id, r.detail->>'output_text' AS text
            FROM runs r JOIN evaluators e ON e.project_id = r.project_id AND e.id = ${evaluator.id}
            WHERE r.project_id = ${evaluator.project_id} AND (r.created_at, r.id) > (e.cursor_at, e.cursor_id)
              AND r.created_at <= now() - make_interval(secs => ${delaySeconds})
            ORDER BY r.created_at, r.id LIMIT ${limit}`
        : Effect.flatMap(
            sql<Target>`SELECT t.id, t.id AS thread_id, t.workspace_id, t.user_id, NULL AS text
              FROM threads t JOIN evaluators e ON e.project_id = t.project_id AND e.id = ${evaluator.id}
              WHERE t.project_id = ${evaluator.project_id} AND (t.created_at, t.id) > (e.cursor_at, e.cursor_id)
                AND t.created_at <= now() - make_interval(secs => ${delaySeconds})
              ORDER BY t.created_at, t.id LIMIT ${limit}`,
            (threads) => Effect.forEach(threads, (thread) => withLastMessages(evaluator.project_id, thread))
          )

    /** A thread with the content of its newest messages (the job picks the last user message among them). */
    const withLastMessages = (projectId: string, thread: Target) =>
      Effect.map(
        sql<{ content: string }>`SELECT content::text AS content FROM messages
          WHERE project_id = ${projectId} AND thread_id = ${thread.id}
          ORDER BY created_at DESC, id DESC LIMIT 20`,
        (rows): Target => ({ ...thread, text: JSON.stringify(rows.map((row) => row.content).reverse()) })
      )

    /** One target by id (a retry reads it again); none when it is gone. */
    const target = (evaluator: EvaluatorRow, id: string) =>
      evaluator.target === "run"
        ? Effect.map(
            sql<Target>`SELECT id, thread_id, workspace_id, user_id, detail->>'output_text' AS text
              FROM runs WHERE project_id = ${evaluator.project_id} AND id = ${id}`,
            (rows) => Option.fromNullable(rows[0])
          )
        : Effect.flatMap(
            sql<Target>`SELECT id, id AS thread_id, workspace_id, user_id, NULL AS text
              FROM threads WHERE project_id = ${evaluator.project_id} AND id = ${id}`,
            (rows) =>
              rows[0] === undefined
                ? Effect.succeed(Option.none<Target>())
                : Effect.map(withLastMessages(evaluator.project_id, rows[0]), Option.some)
          )

    /** Moves the cursor to a target looked at (its own created_at, read in SQL: no precision lost). */
    const advance = (evaluator: EvaluatorRow, targetId: string) =>
      evaluator.target === "run"
        ? sql`UPDATE evaluators SET cursor_at = r.created_at, cursor_id = r.id FROM runs r
            WHERE evaluators.project_id = ${evaluator.project_id} AND evaluators.id = ${evaluator.id}
              AND r.project_id = ${evaluator.project_id} AND r.id = ${targetId}`.pipe(Effect.asVoid)
        : sql`UPDATE evaluators SET cursor_at = t.created_at, cursor_id = t.id FROM threads t
            WHERE evaluators.project_id = ${evaluator.project_id} AND evaluators.id = ${evaluator.id}
              AND t.project_id = ${evaluator.project_id} AND t.id = ${targetId}`.pipe(Effect.asVoid)

    /** Writes the first outcome of a target; false when it has one already (another pass was first). */
    const claim = (evaluator: EvaluatorRow, targetId: string, outcome: Outcome) =>
      Effect.map(
        sql`INSERT INTO evaluations (project_id, evaluator_id, target_id, status, category, score_id, attempts,
            next_attempt_at, last_error)
          VALUES (${evaluator.project_id}, ${evaluator.id}, ${targetId}, ${outcome.status}, ${outcome.category},
            ${outcome.scoreId}, ${outcome.attempts}, ${outcome.nextAttemptAt}, ${outcome.lastError})
          ON CONFLICT (project_id, evaluator_id, target_id) DO NOTHING RETURNING target_id`,
        (rows) => rows.length > 0
      )

    /** Moves a retrying evaluation on; false when it is no longer retrying at `attempts` (another pass took it). */
    const settle = (evaluator: EvaluatorRow, targetId: string, previousAttempts: number, outcome: Outcome) =>
      Effect.map(
        sql`UPDATE evaluations SET status = ${outcome.status}, category = ${outcome.category},
            score_id = ${outcome.scoreId}, attempts = ${outcome.attempts}, next_attempt_at = ${outcome.nextAttemptAt},
            last_error = ${outcome.lastError}, updated_at = now()
          WHERE project_id = ${evaluator.project_id} AND evaluator_id = ${evaluator.id} AND target_id = ${targetId}
            AND status = 'retrying' AND attempts = ${previousAttempts} RETURNING target_id`,
        (rows) => rows.length > 0
      )

    /** Evaluations whose retry is due. */
    const dueRetries = (evaluator: EvaluatorRow, now: Date, limit: number) =>
      sql<{ target_id: string; attempts: number }>`SELECT target_id, attempts FROM evaluations
        WHERE project_id = ${evaluator.project_id} AND evaluator_id = ${evaluator.id} AND status = 'retrying'
          AND next_attempt_at <= ${now}
        ORDER BY next_attempt_at LIMIT ${limit}`

    return {
      /** Runs `effect` in a transaction; its own failures stay, the store's are defects. */
      transaction: <A, E, R>(effect: Effect.Effect<A, E, R>) =>
        sql.withTransaction(effect).pipe(
          Effect.catchIf(
            (error): error is SqlError => error instanceof SqlError,
            (error) => Effect.die(error)
          )
        ),
      list: fn("EvaluatorsRepo.list")(list, Effect.orDie),
      get: fn("EvaluatorsRepo.get")(get, Effect.orDie),
      count: fn("EvaluatorsRepo.count")(count, Effect.orDie),
      lockProject: fn("EvaluatorsRepo.lockProject")(lockProject, Effect.orDie),
      insert: fn("EvaluatorsRepo.insert")(insert, Effect.catchTag("SqlError", Effect.die)),
      update: fn("EvaluatorsRepo.update")(update, Effect.catchTag("SqlError", Effect.die)),
      remove: fn("EvaluatorsRepo.remove")(remove, Effect.orDie),
      page: fn("EvaluatorsRepo.page")(page, Effect.orDie),
      newTargets: fn("EvaluatorsRepo.newTargets")(newTargets, Effect.orDie),
      target: fn("EvaluatorsRepo.target")(target, Effect.orDie),
      advance: fn("EvaluatorsRepo.advance")(advance, Effect.orDie),
      claim: fn("EvaluatorsRepo.claim")(claim, Effect.orDie),
      settle: fn("EvaluatorsRepo.settle")(settle, Effect.orDie),
      dueRetries: fn("EvaluatorsRepo.dueRetries")(dueRetries, Effect.orDie)
    } as const
  })
}) {}
