import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import { InvalidRequest, NotFound } from "../Errors.js"
import { MessageList, MessageListQuery } from "../Message.js"
import { Run, RunList, RunListQuery, RunPath } from "../Run.js"
import { ScoreList, ScoreListQuery } from "../Score.js"
import { SearchQuery, SearchResults } from "../Search.js"
import { ThreadListQuery, ThreadPath } from "../Thread.js"
import { ProjectThreadList, TopicList, TopicPath, TopicThreadQuery } from "../Topic.js"
import { TraceDetail, TraceList, TraceListQuery, TracePath } from "../Trace.js"
import { UsageDaily, UsagePeriod, UsageQuery } from "../Usage.js"
import { ProjectApiKey } from "./Security.js"

/**
 * The read-only project API: the whole project, API key only, never rate
 * limited (docs/decisions.md "Project read API and usage").
 */
export class ProjectsGroup extends HttpApiGroup.make("projects")
  .add(
    HttpApiEndpoint.get("threads", "/projects/threads")
      .setUrlParams(ThreadListQuery)
      .addSuccess(ProjectThreadList)
      .addError(InvalidRequest)
      .annotateContext(
        OpenApi.annotations({
          summary: "List the project's threads",
          description: "Threads across every workspace of the project, most recent first."
        })
      )
  )
  .add(
    HttpApiEndpoint.get("topics", "/projects/topics")
      .addSuccess(TopicList)
      .annotateContext(
        OpenApi.annotations({
          summary: "List the project's topics",
          description:
            "What the project's users talk about: the threads of the window (30 days by default) grouped by the topics job into at most the project's topic ceiling of topics, each with its label, keywords, thread count, threads per day over the window and a few sample threads; most threads first."
        })
      )
  )
  .add(
    HttpApiEndpoint.get("topicThreads", "/projects/topics/:topic_id/threads")
      .setPath(TopicPath)
      .setUrlParams(TopicThreadQuery)
      .addSuccess(ProjectThreadList)
      .addError(NotFound)
      .addError(InvalidRequest)
      .annotateContext(
        OpenApi.annotations({
          summary: "List a topic's threads",
          description:
            "The topic's threads, most recent activity first; page with `after` (the last thread id of the previous page). 404 for a topic the project does not have."
        })
      )
  )
  .add(
    HttpApiEndpoint.get("search", "/projects/search")
      .setUrlParams(SearchQuery)
      .addSuccess(SearchResults)
      .addError(InvalidRequest)
      .annotateContext(
        OpenApi.annotations({
          summary: "Search the project's threads",
          description:
            "Full-text search over every workspace's thread titles and message text, best match first, each with the best matching message and a highlighted snippet. Syntax: words, \"quoted phrases\", -word, OR. Page with `offset` (the previous page's `next_offset`)."
        })
      )
  )
  .add(
    HttpApiEndpoint.get("messages", "/projects/threads/:thread_id/messages")
      .setPath(ThreadPath)
      .setUrlParams(MessageListQuery)
      .addSuccess(MessageList)
      .addError(NotFound)
      .annotateContext(
        OpenApi.annotations({
          summary: "List a thread's messages (project)",
          description: "Any thread of the project, whatever its workspace."
        })
      )
  )
  .add(
    HttpApiEndpoint.get("runs", "/projects/runs")
      .setUrlParams(RunListQuery)
      .addSuccess(RunList)
      .annotateContext(
        OpenApi.annotations({
          summary: "List runs",
          description:
            "Run summaries, newest first, filtered by thread, status, model, trace, tag, environment and time (`from`, `to`)."
        })
      )
  )
  .add(
    HttpApiEndpoint.get("run", "/projects/runs/:run_id")
      .setPath(RunPath)
      .addSuccess(Run)
      .addError(NotFound)
      .annotateContext(
        OpenApi.annotations({
          summary: "Get a run",
          description: "One run in full: steps, tool calls, sampling calls, output text."
        })
      )
  )
  .add(
    HttpApiEndpoint.get("scores", "/projects/scores")
      .setUrlParams(ScoreListQuery)
      .addSuccess(ScoreList)
      .annotateContext(
        OpenApi.annotations({
          summary: "List scores",
          description:
            "Scores, newest first, filtered by name, thread, message, run, data type and source (`api`: POST /v1/scores; `evaluator`: written by an evaluator)."
        })
      )
  )
  .add(
    HttpApiEndpoint.get("usageDaily", "/projects/usage/daily")
      .setUrlParams(UsageQuery)
      .addSuccess(UsageDaily)
      .addError(InvalidRequest)
      .annotateContext(
        OpenApi.annotations({
          summary: "Daily usage",
          description:
            "Counts per UTC day between `from` and `to` (YYYY-MM-DD, default the last 30 days, at most 366 days); test users are left out."
        })
      )
  )
  .add(
    HttpApiEndpoint.get("usagePeriod", "/projects/usage/period")
      .setUrlParams(UsageQuery)
      .addSuccess(UsagePeriod)
      .addError(InvalidRequest)
      .annotateContext(
        OpenApi.annotations({
          summary: "Usage over a period",
          description: "The same counts summed over `from` to `to`, with the distinct active users."
        })
      )
  )
  .add(
    HttpApiEndpoint.get("traces", "/projects/traces")
      .setUrlParams(TraceListQuery)
      .addSuccess(TraceList)
      .addError(InvalidRequest)
      .annotateContext(
        OpenApi.annotations({
          summary: "List traces",
          description:
            "Traces exported to POST /v1/traces, newest first (by start), filtered by service name, start time (`from`, `to`) and `has_error`. Pass `next_after` as `after` for the next page."
        })
      )
  )
  .add(
    HttpApiEndpoint.get("trace", "/projects/traces/:trace_id")
      .setPath(TracePath)
      .addSuccess(TraceDetail)
      .addError(NotFound)
      .annotateContext(
        OpenApi.annotations({
          summary: "Get a trace",
          description:
            "Every span of one trace (oldest first, parent links as sent, each with the convention recognised in it and the run made from it), and the runs linked to the trace: made from its model-call spans, or reported with its trace_id."
        })
      )
  )
  .middleware(ProjectApiKey)
  .annotate(OpenApi.Description, "Read-only project API: API key only, across every workspace") {}
