import type { Run, RunList, RunListQuery } from "../../schema/Run.js"
import type { ScoreList, ScoreListQuery } from "../../schema/Score.js"
import type { SearchQuery, SearchResults } from "../../schema/Search.js"
import type { TraceDetail, TraceList, TraceListQuery } from "../../schema/Trace.js"
import type { UsageDaily, UsagePeriod, UsageQuery } from "../../schema/Usage.js"
import * as check from "../core/check.js"
import type { Transport } from "../core/request.js"
import { type MessageListParams, messagesList, type ThreadListParams, threadsList } from "./threads.js"

const seg = encodeURIComponent

/** The answer as the wire has it (timestamps as ISO strings), once its list or object is there. */
const read =
  <A>(key: string | undefined) =>
  (body: unknown): A => {
    const object = check.object(body, "body")
    if (key !== undefined) check.array(object[key], key)
    return object as A
  }

/**
 * The project's read API (an API key; the whole project). Threads and
 * messages are checked and converted like the workspace's own; the other
 * reads are answered as the wire has them.
 */
export const makeProjects = (transport: Transport) => ({
  threads: {
    list: (query?: ThreadListParams) => threadsList(transport, "/projects/threads", query),
    messages: {
      list: (threadId: string, query?: MessageListParams) =>
        messagesList(transport, `/projects/threads/${seg(threadId)}/messages`, query)
    }
  },
  search: (query: Partial<SearchQuery> & { readonly q: string }): Promise<(typeof SearchResults)["Encoded"]> =>
    transport.json("/projects/search", { query: dated(query) }).then(read("results")),
  runs: {
    list: (query?: Partial<RunListQuery>): Promise<(typeof RunList)["Encoded"]> =>
      transport.json("/projects/runs", { query: dated(query) }).then(read("runs")),
    get: (runId: string): Promise<(typeof Run)["Encoded"]> =>
      transport.json(`/projects/runs/${seg(runId)}`).then(read(undefined))
  },
  scores: {
    list: (query?: Partial<ScoreListQuery>): Promise<(typeof ScoreList)["Encoded"]> =>
      transport.json("/projects/scores", { query }).then(read("scores"))
  },
  usage: {
    daily: (query?: Partial<UsageQuery>): Promise<(typeof UsageDaily)["Encoded"]> =>
      transport.json("/projects/usage/daily", { query }).then(read("days")),
    period: (query?: Partial<UsageQuery>): Promise<(typeof UsagePeriod)["Encoded"]> =>
      transport.json("/projects/usage/period", { query }).then(read(undefined))
  },
  traces: {
    list: (query?: Partial<TraceListQuery>): Promise<(typeof TraceList)["Encoded"]> =>
      transport.json("/projects/traces", { query: dated(query) }).then(read("traces")),
    get: (traceId: string): Promise<(typeof TraceDetail)["Encoded"]> =>
      transport.json(`/projects/traces/${seg(traceId)}`).then(read("spans"))
  }
})

/** Date filters as ISO strings. */
const dated = (query: object | undefined) => {
  if (query === undefined) return undefined
  const out: Record<string, string | number | boolean | undefined> = {}
  for (const [key, value] of Object.entries(query))
    out[key] = value instanceof Date ? value.toISOString() : (value as string | number | boolean | undefined)
  return out
}
