/**
 * The MCP endpoint's contract (docs/decisions.md "MCP"): where it is, and
 * the inputs and structured results of its read-only tools. Inputs are the
 * project read API's query schemas (one source of truth: the same filters,
 * limits and cursors); a tool takes them as JSON, numbers and booleans as
 * themselves or as their query-string text. Results are the REST answers
 * plus the cursor of the next page.
 */
import * as Schema from "effect/Schema"
import { Message, MessageListQuery } from "./Message.js"
import { Run, RunListQuery, RunPath, RunSummary } from "./Run.js"
import { Score, ScoreListQuery } from "./Score.js"
import { SearchQuery, SearchResults } from "./Search.js"
import { ThreadListQuery, ThreadPath } from "./Thread.js"
import { ProjectThread, TopicList } from "./Topic.js"
import { Span, TraceListQuery, TracePath, TraceSummary } from "./Trace.js"
import { UsageDaily, UsagePeriod, UsageQuery } from "./Usage.js"

export const MCP_PATH = "/v1/mcp"

/** The URI template of a thread read as a resource. */
export const THREAD_RESOURCE_TEMPLATE = "svc://threads/{thread_id}"
export const threadResourceUri = (threadId: string) => `svc://threads/${encodeURIComponent(threadId)}`

/** Pass as `after` for the next page; null on the last one. */
const NextAfter = Schema.NullOr(Schema.String).annotations({
  description: "Pass as `after` to read the next page; null on the last page"
})

export const McpInputs = {
  list_threads: ThreadListQuery,
  get_thread: Schema.Struct({ ...ThreadPath.fields, ...MessageListQuery.fields }),
  list_runs: RunListQuery,
  get_run: RunPath,
  list_scores: ScoreListQuery,
  usage_daily: UsageQuery,
  usage_period: UsageQuery,
  list_traces: TraceListQuery,
  get_trace: TracePath,
  search_threads: SearchQuery,
  list_topics: Schema.Struct({})
} as const

export type McpToolName = keyof typeof McpInputs

export const McpOutputs = {
  list_threads: Schema.Struct({ threads: Schema.Array(ProjectThread), next_after: NextAfter }),
  get_thread: Schema.Struct({
    thread: ProjectThread,
    messages: Schema.Array(Message),
    next_after: NextAfter.annotations({
      description: "Pass as `after` (with the same thread_id) for the next messages; null when none are left"
    })
  }),
  list_runs: Schema.Struct({ runs: Schema.Array(RunSummary), next_after: NextAfter }),
  // A struct of the class's fields: a tool's output schema must be an object at its root, not a $ref.
  get_run: Schema.Struct(Run.fields),
  list_scores: Schema.Struct({ scores: Schema.Array(Score), next_after: NextAfter }),
  usage_daily: UsageDaily,
  usage_period: UsagePeriod,
  list_traces: Schema.Struct({ traces: Schema.Array(TraceSummary), next_after: NextAfter }),
  get_trace: Schema.Struct({
    trace: TraceSummary,
    spans: Schema.Array(Span),
    /** Spans left out to keep the result within bounds (the oldest are kept). */
    spans_omitted: Schema.Number,
    runs: Schema.Array(RunSummary)
  }),
  search_threads: SearchResults,
  list_topics: TopicList
} as const satisfies Record<McpToolName, Schema.Schema.Any>
