/**
 * The dashboard's reads of threads: the project read API's list order and
 * paging, with more filters, and each thread with its user and how many
 * messages it holds.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import type * as Statement from "@effect/sql/Statement"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { DashboardThread } from "../../schema/Dashboard.js"
import { fn } from "../platform/telemetry/Traced.js"
import type { ThreadPosition } from "./ThreadsRepo.js"

interface DashboardThreadRow {
  readonly id: string
  readonly project_id: string
  readonly workspace_id: string
  readonly user_id: string
  readonly created_at: Date
  readonly updated_at: Date
  readonly title: string | null
  readonly last_message_at: Date
  readonly is_archived: boolean
  readonly external_id: string | null
  readonly metadata: unknown
  readonly message_count: number
}

// Rows come from our own migrations, so they are mapped, not re-validated.
const toThread = (row: DashboardThreadRow): DashboardThread => DashboardThread.make(row, { disableValidation: true })

export interface DashboardListOptions {
  readonly limit: number
  /** The position of the last thread of the previous page. */
  readonly after: ThreadPosition | undefined
  readonly isArchived: boolean | undefined
  readonly userId: string | undefined
  readonly workspaceId: string | undefined
  /** Last message at or after. */
  readonly from: Date | undefined
  /** Last message before. */
  readonly to: Date | undefined
}

const COLUMNS =
  "id, project_id, workspace_id, user_id, created_at, updated_at, title, last_message_at, is_archived, external_id, metadata"

export class DashboardThreadsRepo extends Effect.Service<DashboardThreadsRepo>()("svc/DashboardThreadsRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const cols = sql.literal(COLUMNS)

    /**
     * The threads `where` selects, each with its message count. The count is
     * taken over the messages index (project_id, thread_id, id) for the rows
     * of the page only: the inner query is limited first.
     */
    const withCounts = (where: Statement.Fragment, limit: number) =>
      sql<DashboardThreadRow>`
        SELECT t.*, (SELECT count(*)::int FROM messages m WHERE m.project_id = t.project_id AND m.thread_id = t.id)
          AS message_count
        FROM (SELECT ${cols} FROM threads WHERE ${where} ORDER BY last_message_at DESC, id DESC LIMIT ${limit}) t
        ORDER BY t.last_message_at DESC, t.id DESC`.pipe(Effect.map((rows) => rows.map(toThread)))

    const list = (projectId: string, options: DashboardListOptions) => {
      const conditions = [sql`project_id = ${projectId}`]
      if (options.isArchived !== undefined) conditions.push(sql`is_archived = ${options.isArchived}`)
      if (options.userId !== undefined) conditions.push(sql`user_id = ${options.userId}`)
      if (options.workspaceId !== undefined) conditions.push(sql`workspace_id = ${options.workspaceId}`)
      if (options.from !== undefined) {
        conditions.push(sql`last_message_at >= ${options.from.toISOString()}::timestamptz`)
      }
      if (options.to !== undefined) conditions.push(sql`last_message_at < ${options.to.toISOString()}::timestamptz`)
      if (options.after !== undefined) {
        conditions.push(
          sql`(last_message_at, id) < (${options.after.last_message_at}::timestamptz, ${options.after.id})`
        )
      }
      return withCounts(sql.and(conditions), options.limit)
    }

    /** A thread of any workspace of the project. */
    const get = (projectId: string, id: string) =>
      withCounts(sql`project_id = ${projectId} AND id = ${id}`, 1).pipe(
        Effect.map((rows) => Option.fromNullable(rows[0]))
      )

    return {
      list: fn("DashboardThreadsRepo.list")(list, Effect.orDie),
      get: fn("DashboardThreadsRepo.get")(get, Effect.orDie)
    } as const
  })
}) {}
