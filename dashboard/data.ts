/**
 * What the views the page most often opens on ask the gateway for: a list of
 * threads, a thread (its messages, page by page, then its runs and scores),
 * a trace. Kept out of the views' chunk (views.ts) so that the page's start can
 * send these calls the moment the session check answers (`prefetchView`),
 * before anything is drawn; the view takes them over when it is drawn
 * (load.ts `Early`), and makes them itself on any later visit.
 */
import type { DashboardThreadDetail, DashboardThreadList, SessionInfo } from "../schema/Dashboard.js"
import type { Message } from "../schema/Message.js"
import type { RunSummary } from "../schema/Run.js"
import type { Score } from "../schema/Score.js"
import type { TraceDetail } from "../schema/Trace.js"
import { client, prepare, run } from "./api.js"
import { param, sharedFilters, textParams } from "./filters.js"
import { Early, type Load } from "./load.js"
import { pageParams, readPaging } from "./paging.js"
import type { Location } from "./router.js"

const threadFilters = (query: URLSearchParams) => ({
  ...pageParams(readPaging(query)),
  ...textParams(query, ["user_id", "workspace_id"]),
  ...sharedFilters(query)
})

/** The list of threads (not a search): its key and its call, from the page's query. */
export const threadList = {
  key: (projectId: string, query: URLSearchParams) => `${projectId}?${query}`,
  load: (projectId: string, query: URLSearchParams): Load<typeof DashboardThreadList.Type> => {
    const urlParams = threadFilters(query)
    return (signal) => run(client.threads({ path: { project_id: projectId }, urlParams }), { signal })
  },
  /** Whether a thread follows `after` under the page's filters (KeysetTable's `more`). */
  more:
    (projectId: string, query: URLSearchParams) =>
    (after: string, signal: AbortSignal): Promise<boolean> => {
      const urlParams = { ...threadFilters(query), limit: 1, after }
      return run(client.threads({ path: { project_id: projectId }, urlParams }), { signal }).then(
        (page) => page.threads.length > 0
      )
    },
  early: new Early<typeof DashboardThreadList.Type>()
}

/** Runs and scores shown beside a thread's conversation; the rest are a link away. */
const SIDE_ROWS = 10
/** A page of the messages route holds at most this many. */
const MESSAGE_PAGE = 200
/** Enough for any thread the page is meant for (1,000 messages and more), and a stop for a runaway cursor. */
const MESSAGE_PAGES_MAX = 100

export type ThreadDetailValue = typeof DashboardThreadDetail.Type

/** One thread's calls, all under one key. */
export const thread = {
  key: (projectId: string, threadId: string) => `${projectId}/${threadId}`,
  /**
   * Every message of the thread, a page after another (each page's cursor
   * is the previous one's last id); each page is reported as it comes, so
   * the conversation is drawn while the rest is on its way.
   */
  messages:
    (projectId: string, threadId: string): Load<ReadonlyArray<Message>> =>
    async (signal, report) => {
      const messages: Array<Message> = []
      let after: string | undefined
      for (let page = 0; page < MESSAGE_PAGES_MAX; page++) {
        const urlParams = { limit: MESSAGE_PAGE, ...(after ? { after } : {}) }
        const path = { project_id: projectId, thread_id: threadId }
        const answer = await run(client.messages({ path, urlParams }), { signal })
        messages.push(...answer.messages)
        const last = answer.messages[answer.messages.length - 1]
        if (answer.messages.length < MESSAGE_PAGE || !last) break
        report([...messages])
        after = last.id
      }
      return messages
    },
  detail:
    (projectId: string, threadId: string): Load<ThreadDetailValue> =>
    (signal) =>
      run(client.thread({ path: { project_id: projectId, thread_id: threadId } }), { signal }),
  runs:
    (projectId: string, threadId: string): Load<ReadonlyArray<RunSummary>> =>
    (signal) =>
      run(client.runs({ path: { project_id: projectId }, urlParams: { thread_id: threadId, limit: SIDE_ROWS } }), {
        signal
      }).then(({ runs }) => runs),
  scores:
    (projectId: string, threadId: string): Load<ReadonlyArray<Score>> =>
    (signal) =>
      run(client.scores({ path: { project_id: projectId }, urlParams: { thread_id: threadId, limit: SIDE_ROWS } }), {
        signal
      }).then(({ scores }) => scores),
  early: {
    messages: new Early<ReadonlyArray<Message>>(),
    detail: new Early<ThreadDetailValue>()
  }
}

/** One trace with its spans and runs. */
export const trace = {
  key: (projectId: string, traceId: string) => `${projectId}/${traceId}`,
  load:
    (projectId: string, traceId: string): Load<typeof TraceDetail.Type> =>
    (signal) =>
      run(client.trace({ path: { project_id: projectId, trace_id: traceId } }), { signal }),
  early: new Early<typeof TraceDetail.Type>()
}

/** The view at `location`, if it is one of those above. */
type Prefetched =
  | { readonly view: "thread"; readonly projectId: string; readonly threadId: string }
  | { readonly view: "threadList"; readonly projectId: string; readonly query: URLSearchParams }
  | { readonly view: "trace"; readonly projectId: string; readonly traceId: string }

const prefetchedAt = ({ route, query }: Location): Prefetched | undefined => {
  if (route.kind !== "project") return undefined
  const { projectId, section, itemId } = route
  if (section === "threads" && itemId !== undefined) return { view: "thread", projectId, threadId: itemId }
  if (section === "threads" && !param(query, "q")) return { view: "threadList", projectId, query }
  if (section === "traces" && itemId !== undefined) return { view: "trace", projectId, traceId: itemId }
  return undefined
}

/**
 * Makes the clients of the calls of the view at `location` (compiling their
 * schemas), while the session check is on its way: they are ready to go the
 * moment it answers.
 */
export const prepareView = (location: Location): void => {
  const view = prefetchedAt(location)
  if (view?.view === "thread") prepare("messages", "thread")
  else if (view?.view === "threadList") prepare("threads")
  else if (view?.view === "trace") prepare("trace")
}

/**
 * Starts the calls of the view at `location`, if it is one of those above
 * (a thread's messages first: theirs is the longest way; its runs and scores
 * wait for them, ThreadDetail.tsx), and only in a project the session may
 * open: another project's data is never asked for.
 */
export const prefetchView = (location: Location, session: SessionInfo): void => {
  const view = prefetchedAt(location)
  if (!view || !session.projects.some((project) => project.id === view.projectId)) return
  if (view.view === "thread") {
    const { projectId, threadId } = view
    const key = thread.key(projectId, threadId)
    thread.early.messages.start(key, thread.messages(projectId, threadId))
    thread.early.detail.start(key, thread.detail(projectId, threadId))
  } else if (view.view === "threadList") {
    threadList.early.start(threadList.key(view.projectId, view.query), threadList.load(view.projectId, view.query))
  } else {
    trace.early.start(trace.key(view.projectId, view.traceId), trace.load(view.projectId, view.traceId))
  }
}
