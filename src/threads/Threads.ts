import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { CallerShape } from "../../schema/Api/Security.js"
import type { DashboardThreadQuery } from "../../schema/Dashboard.js"
import { invalid, notFound } from "../../schema/Errors.js"
import type { CreateThread, ThreadListQuery, UpdateThread } from "../../schema/Thread.js"
import { settled } from "../platform/db/WriteOutcome.js"
import { orNotFound, rowNotFoundAs404 } from "../platform/Found.js"
import { newId } from "../platform/Ids.js"
import { fn } from "../platform/telemetry/Traced.js"
import { Usage } from "../usage/Usage.js"
import { Outbox } from "../webhooks/Outbox.js"
import { DashboardThreadsRepo } from "./DashboardThreadsRepo.js"
import { FeedbackRepo } from "./FeedbackRepo.js"
import { type ThreadPosition, ThreadsRepo } from "./ThreadsRepo.js"

/** The most feedback the dashboard's thread detail answers. */
const DASHBOARD_FEEDBACK_MAX = 1000

export class Threads extends Effect.Service<Threads>()("svc/Threads", {
  dependencies: [
    ThreadsRepo.Default,
    DashboardThreadsRepo.Default,
    FeedbackRepo.Default,
    Usage.Default,
    Outbox.Default
  ],
  effect: Effect.gen(function* () {
    const repo = yield* ThreadsRepo
    const dashboard = yield* DashboardThreadsRepo
    const feedback = yield* FeedbackRepo
    const usage = yield* Usage
    const outbox = yield* Outbox

    /** The position `after` names, or 400 when it names no thread of the scope. */
    const cursor = (position: Effect.Effect<Option.Option<ThreadPosition>>, scopeName: string) =>
      Effect.flatMap(position, (found) =>
        Option.isSome(found)
          ? Effect.succeed(found.value)
          : Effect.fail(invalid(`after does not name a thread of this ${scopeName}`, "after"))
      )

    const list = fn("Threads.list")(function* (caller: CallerShape, query: ThreadListQuery) {
      const after =
        query.after === undefined ? undefined : yield* cursor(repo.position(caller, query.after), "workspace")
      return yield* repo.list(caller, { limit: query.limit, isArchived: query.is_archived, after })
    })

    /** The thread as wire JSON text (the Thread schema's shape), made by the database. */
    const getJson = fn("Threads.getJson")(function* (caller: CallerShape, threadId: string) {
      return yield* Effect.flatMap(repo.getJson(caller, threadId), orNotFound("thread"))
    })

    /**
     * A new thread; with `upsert` (the schema makes sure of its external_id),
     * the workspace's thread with that external_id when there is one, as it
     * is: nothing written, nothing counted.
     */
    const create = fn("Threads.create")(function* (caller: CallerShape, input: CreateThread) {
      const thread = {
        id: newId("thread"),
        userId: caller.userId,
        lastMessageAt: input.last_message_at,
        title: input.title,
        metadata: input.metadata,
        externalId: input.external_id
      }
      const { externalId } = thread
      const write =
        input.upsert === true && externalId !== undefined
          ? repo.insertOrFind(caller, Object.assign(thread, { externalId }))
          : Effect.as(repo.insert(caller, thread), { id: thread.id, created: true })
      // thread.created goes out with the thread (the outbox), in its wire shape. Cut off from the store, the
      // thread is looked up by its id before answering (WriteOutcome.ts).
      const outcome = yield* settled(
        "thread",
        Effect.map(
          repo.getJsonInProject(caller.projectId, thread.id),
          Option.map(() => ({ id: thread.id, created: true }))
        )
      )(
        outbox.withEvent(
          caller.projectId,
          "thread.created",
          write,
          (written) =>
            written.created
              ? Effect.map(repo.getJsonInProject(caller.projectId, written.id), (json) =>
                  Option.isSome(json) ? (JSON.parse(json.value) as unknown) : undefined
                )
              : Effect.succeed(undefined),
          caller.userId
        )
      )
      if (outcome.created) usage.record(caller.projectId, caller.userId, { threads: 1 })
      return outcome
    })

    const update = fn("Threads.update")(function* (caller: CallerShape, threadId: string, input: UpdateThread) {
      yield* rowNotFoundAs404(
        repo.update(caller, threadId, {
          title: input.title,
          lastMessageAt: input.last_message_at,
          metadata: input.metadata,
          isArchived: input.is_archived
        })
      )
    })

    /** Messages and feedback go with the thread (foreign keys cascade). */
    const remove = fn("Threads.remove")(function* (caller: CallerShape, threadId: string) {
      yield* rowNotFoundAs404(repo.remove(caller, threadId))
    })

    const requireVisible = fn("Threads.requireVisible")(function* (caller: CallerShape, threadId: string) {
      if (!(yield* repo.exists(caller, threadId))) return yield* Effect.fail(notFound("thread"))
    })

    /** The project read API: every workspace of the project. */
    const listProject = fn("Threads.listProject")(function* (projectId: string, query: ThreadListQuery) {
      const after =
        query.after === undefined ? undefined : yield* cursor(repo.positionInProject(projectId, query.after), "project")
      return yield* repo.listProject(projectId, { limit: query.limit, isArchived: query.is_archived, after })
    })

    const requireInProject = fn("Threads.requireInProject")(function* (projectId: string, threadId: string) {
      if (!(yield* repo.existsInProject(projectId, threadId))) return yield* Effect.fail(notFound("thread"))
    })

    /** The project read API: a thread of any workspace of the project, as wire JSON text. */
    const getJsonInProject = fn("Threads.getJsonInProject")(function* (projectId: string, threadId: string) {
      return yield* Effect.flatMap(repo.getJsonInProject(projectId, threadId), orNotFound("thread"))
    })

    /** The project read API's thread (with its topic), as wire JSON text. */
    const getProjectJson = fn("Threads.getProjectJson")(function* (projectId: string, threadId: string) {
      return yield* Effect.flatMap(repo.getProjectJson(projectId, threadId), orNotFound("thread"))
    })

    /** A topic's threads started since `since`, paged as listProject pages (`after`: the previous page's last thread). */
    const listTopic = fn("Threads.listTopic")(function* (
      projectId: string,
      topicId: string,
      since: Date,
      query: { readonly limit: number; readonly after?: string | undefined }
    ) {
      const after =
        query.after === undefined ? undefined : yield* cursor(repo.positionInProject(projectId, query.after), "project")
      return yield* repo.listTopic(projectId, topicId, since, { limit: query.limit, after })
    })

    /**
     * The dashboard's thread table: listProject's order and paging, filtered by user, workspace, archive
     * flag and last message time, each thread with its user and message count.
     */
    const listDashboard = fn("Threads.listDashboard")(function* (projectId: string, query: DashboardThreadQuery) {
      const after =
        query.after === undefined ? undefined : yield* cursor(repo.positionInProject(projectId, query.after), "project")
      return yield* dashboard.list(projectId, {
        limit: query.limit,
        after,
        isArchived: query.is_archived,
        userId: query.user_id,
        workspaceId: query.workspace_id,
        from: query.from,
        to: query.to
      })
    })

    /** A thread of any workspace of the project as the dashboard shows it, with its messages' feedback; else 404. */
    const getDashboard = fn("Threads.getDashboard")(function* (projectId: string, threadId: string) {
      const thread = yield* Effect.flatMap(dashboard.get(projectId, threadId), orNotFound("thread"))
      return { thread, feedback: yield* feedback.ofThread(projectId, threadId, DASHBOARD_FEEDBACK_MAX) }
    })

    return {
      /** The thread of the caller's workspace, or 404 (titles read its title). */
      get: (caller: CallerShape, threadId: string) => Effect.flatMap(repo.get(caller, threadId), orNotFound("thread")),
      /** Sets the title while the thread has none; true when it was set (a generated title). */
      setTitleIfUntitled: repo.setTitleIfUntitled,
      /** Moves every thread of an anonymous user to the claiming user (within the caller's transaction). */
      moveAll: repo.moveAll,
      /** The workspace and user of each of these ids that is a thread of the project (runs derived from spans). */
      ownersInProject: repo.ownersInProject,
      list,
      getJson,
      getJsonInProject,
      getProjectJson,
      listTopic,
      create,
      update,
      remove,
      requireVisible,
      listProject,
      requireInProject,
      listDashboard,
      getDashboard
    } as const
  })
}) {}
