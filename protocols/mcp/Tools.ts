/**
 * The eleven read-only tools (docs/decisions.md "MCP"), each a thin adapter
 * over the use case the project read API calls, with its text rendering.
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { Run } from "../../schema/Run.js"
import { Score } from "../../schema/Score.js"
import { ProjectThread, TopicList } from "../../schema/Topic.js"
import { Runs } from "../../src/runs/Runs.js"
import { Scores } from "../../src/scores/Scores.js"
import { Search } from "../../src/search/Search.js"
import { Messages } from "../../src/threads/Messages.js"
import { Threads } from "../../src/threads/Threads.js"
import { Topics } from "../../src/topics/Topics.js"
import { Traces } from "../../src/traces/Traces.js"
import { Usage } from "../../src/usage/Usage.js"
import { countsLine, cut, fitting, messageEntry, nextPage, RESULT_MAX_BYTES, threadLine } from "./Render.js"
import { defineTool, type Tool } from "./Tool.js"

const encodeRun = Schema.encodeSync(Run)
const encodeScores = Schema.encodeSync(Schema.Array(Score))
const encodeThreads = Schema.encodeSync(Schema.Array(ProjectThread))
const encodeTopics = Schema.encodeSync(TopicList)

interface RunJson {
  readonly id: string
  readonly status: string
  readonly model_id: string | null
  readonly input_tokens: number | null
  readonly output_tokens: number | null
  readonly duration_ms: number | null
  readonly thread_id: string | null
  readonly created_at: string
}

const runLine = (run: RunJson) =>
  `- ${run.id} · ${run.status} · ${run.model_id ?? "model unknown"} · tokens in ${run.input_tokens ?? "?"} / out ${run.output_tokens ?? "?"} · ${run.duration_ms ?? "?"} ms · thread ${run.thread_id ?? "none"} · ${run.created_at}`

/** The last item's id when the page is full (there may be more), else null. */
const nextAfter = <A>(items: ReadonlyArray<A>, limit: number, idOf: (item: A) => string): string | null => {
  const last = items.at(-1)
  return items.length === limit && last !== undefined ? idOf(last) : null
}

export const makeTools = Effect.gen(function* () {
  const threads = yield* Threads
  const messages = yield* Messages
  const runs = yield* Runs
  const scores = yield* Scores
  const usage = yield* Usage
  const traces = yield* Traces
  const search = yield* Search
  const topics = yield* Topics

  const tools: ReadonlyArray<Tool> = [
    defineTool("search_threads", {
      title: "Search conversations",
      description:
        'Full-text search over every thread title and message of the project, best match first. Start here to find conversations about a topic. Syntax: words (all must match), "quoted phrases", -word to exclude, OR. Each result has the thread, the best matching message id and a snippet; open one with get_thread.',
      run: (projectId, input) =>
        Effect.map(search.threadsJson({ projectId }, input), (json) => {
          const structured = JSON.parse(json)
          const lines = (
            structured.results as Array<{
              thread: Parameters<typeof threadLine>[0]
              message_id: string | null
              snippet: { text: string; highlights: Array<[number, number]> }
            }>
          ).map((hit) => {
            let snippet = hit.snippet.text
            for (const [start, end] of [...hit.snippet.highlights].reverse()) {
              snippet = `${snippet.slice(0, start)}«${snippet.slice(start, end)}»${snippet.slice(end)}`
            }
            return `${threadLine(hit.thread)}\n  message ${hit.message_id ?? "(title match)"}: ${snippet}`
          })
          return {
            structured,
            text: `${lines.length === 0 ? "No thread matches." : lines.join("\n")}\n${nextPage("search_threads", structured.next_offset)}`
          }
        })
    }),
    defineTool("list_threads", {
      title: "List threads",
      description:
        "The project's threads across every workspace, most recent message first. Filter with is_archived; page with after (the next_after of the previous page). Open one with get_thread.",
      run: (projectId, input) =>
        Effect.map(threads.listProject(projectId, input), (list) => {
          const encoded = encodeThreads(list)
          const next = nextAfter(list, input.limit, (thread) => thread.id)
          return {
            structured: { threads: encoded, next_after: next },
            text: `${encoded.length === 0 ? "No threads." : encoded.map(threadLine).join("\n")}\n${nextPage("list_threads", next)}`
          }
        })
    }),
    defineTool("get_thread", {
      title: "Read a thread",
      description:
        "One thread of the project with a page of its messages, oldest first (limit, after = next_after of the previous page, format to keep one storage format). Long pages are cut to stay small; next_after says where to read on.",
      run: (projectId, input) =>
        Effect.gen(function* () {
          const thread = JSON.parse(yield* threads.getProjectJson(projectId, input.thread_id))
          const budget = RESULT_MAX_BYTES - Buffer.byteLength(JSON.stringify(thread))
          // The store stops the page at the budget (the message that passes it included), not at limit.
          const rows = yield* messages.listProject(projectId, input.thread_id, input, budget)
          const stopped = rows.reduce((bytes, row) => bytes + Buffer.byteLength(row.content, "utf8"), 0) > budget
          const all = rows.map((row) =>
            Object.assign({}, row, { content: JSON.parse(row.content) as Record<string, unknown> })
          )
          const kept = fitting(all, budget)
          const more = stopped || kept.length < all.length || all.length === input.limit
          const next = more ? (kept.at(-1)?.id ?? null) : null
          const transcript = kept.map((message) => messageEntry(message, input.thread_id)).join("\n\n")
          return {
            structured: { thread, messages: kept, next_after: next },
            text: `${threadLine(thread)}\n\n${transcript === "" ? "No messages." : transcript}\n\n${nextPage("get_thread", next, ` and thread_id="${input.thread_id}"`)}`
          }
        })
    }),
    defineTool("list_topics", {
      title: "List topics",
      description:
        "What the project's users talk about: the threads started in the last 30 days grouped into topics (at most the project's topic ceiling), most threads first, each with its label, keywords, thread count, threads per day and a few sample threads. A thread's topic_id is on list_threads and get_thread; open a sample with get_thread.",
      run: (projectId) =>
        Effect.map(topics.list(projectId), (list) => {
          const structured = encodeTopics(list)
          const lines = structured.topics.map(
            (topic) =>
              `- ${topic.id} · ${JSON.stringify(topic.label)} · ${topic.thread_count} threads · keywords ${topic.keywords.join(", ")}
  e.g. ${topic.sample_threads.map((sample) => `${sample.id} ${sample.title === null ? "(untitled)" : JSON.stringify(sample.title)}`).join("; ")}`
          )
          const head =
            structured.computed_at === null
              ? "No topics yet: the topics job has not grouped this project's threads."
              : `Topics of threads started ${structured.window_from.slice(0, 10)} to ${structured.window_to.slice(0, 10)} (grouped ${structured.computed_at}; ${structured.unassigned} threads in none):`
          return { structured, text: lines.length === 0 ? head : `${head}\n${lines.join("\n")}` }
        })
    }),
    defineTool("list_runs", {
      title: "List runs",
      description:
        "Model runs of the project (reported by apps or made from exported traces), newest first: status, model, tokens, duration. Filter by thread_id, status, model_id, trace_id, tag, environment, from, to (ISO 8601); page with after.",
      run: (projectId, input) =>
        Effect.map(runs.listJson(projectId, input), (rows) => {
          const list = rows.map((row) => JSON.parse(row) as RunJson)
          const next = nextAfter(list, input.limit, (run) => run.id)
          return {
            structured: { runs: list, next_after: next },
            text: `${list.length === 0 ? "No runs." : list.map(runLine).join("\n")}\n${nextPage("list_runs", next)}`
          }
        })
    }),
    defineTool("get_run", {
      title: "Read a run",
      description: "One run in full: usage, timing, steps, tool calls, sampling calls, output text and error.",
      run: (projectId, input) =>
        Effect.map(runs.get(projectId, input.run_id), (run) => {
          const structured = encodeRun(run)
          const output =
            run.output_text === null
              ? ""
              : `\nOutput: ${cut(run.output_text, "the whole text is in structuredContent")}`
          return {
            structured,
            text: `${runLine(structured)}\nSteps ${run.total_steps ?? 0}, tool calls ${run.tool_call_count}${run.error === null ? "" : `\nError: ${run.error}`}${output}`
          }
        })
    }),
    defineTool("list_scores", {
      title: "List scores",
      description:
        "Scores given to threads, messages or runs (evaluations, user ratings), newest first. Filter by name, thread_id, message_id, run_id, data_type (numeric, categorical, boolean), source (api, evaluator); page with after.",
      run: (projectId, input) =>
        Effect.map(scores.list(projectId, input), (list) => {
          const encoded = encodeScores(list)
          const next = nextAfter(list, input.limit, (score) => score.id)
          const lines = encoded.map(
            (score) =>
              `- ${score.id} · ${score.name} = ${score.value ?? score.string_value} · ${score.run_id ?? score.message_id ?? score.thread_id ?? ""} · ${score.created_at}`
          )
          return {
            structured: { scores: encoded, next_after: next },
            text: `${lines.length === 0 ? "No scores." : lines.join("\n")}\n${nextPage("list_scores", next)}`
          }
        })
    }),
    defineTool("usage_daily", {
      title: "Usage per day",
      description:
        "Counts per UTC day (threads, messages, runs, run errors, tokens, active users, events, title generations, reported cost in US dollars) between from and to (YYYY-MM-DD; default the last 30 days, at most 366). Test users are left out.",
      run: (projectId, input) =>
        Effect.map(usage.daily(projectId, input), (days) => ({
          structured: { days },
          text: days.map(({ date, ...counts }) => `${date}: ${countsLine(counts)}`).join("\n")
        }))
    }),
    defineTool("usage_period", {
      title: "Usage over a period",
      description:
        "The same counts summed over from to to (YYYY-MM-DD; default the last 30 days), with distinct active users: a quick overview of the project's activity.",
      run: (projectId, input) =>
        Effect.map(usage.period(projectId, input), ({ from, to, totals }) => ({
          structured: { from, to, ...totals },
          text: `${from} to ${to}: ${countsLine(totals)}`
        }))
    }),
    defineTool("list_traces", {
      title: "List traces",
      description:
        "OpenTelemetry traces exported to the project, newest first: name, service, duration, span, error and run counts. Filter by service_name, from, to, has_error; page with after.",
      run: (projectId, input) =>
        Effect.map(traces.listJson(projectId, input), ({ traces: rows, next }) => {
          const list = rows.map(
            (row) =>
              JSON.parse(row) as {
                trace_id: string
                name: string
                service_name: string | null
                start_time: string
                duration_ms: number
                span_count: number
                error_count: number
                run_count: number
              }
          )
          const lines = list.map(
            (trace) =>
              `- ${trace.trace_id} · ${trace.name} · ${trace.service_name ?? "?"} · ${trace.start_time} · ${trace.duration_ms} ms · ${trace.span_count} spans, ${trace.error_count} errors, ${trace.run_count} runs`
          )
          return {
            structured: { traces: list, next_after: next },
            text: `${lines.length === 0 ? "No traces." : lines.join("\n")}\n${nextPage("list_traces", next)}`
          }
        })
    }),
    defineTool("get_trace", {
      title: "Read a trace",
      description:
        "One trace: its spans oldest first (parent links, status, attributes, the GenAI convention recognised) and the runs linked to it. Very large traces are cut to their oldest spans; spans_omitted says how many were left out.",
      run: (projectId, input) =>
        Effect.map(traces.getJson(projectId, input.trace_id), ({ trace, spans, runs: linked }) => {
          const summary = JSON.parse(trace)
          const runList = linked.map((row) => JSON.parse(row) as RunJson)
          const all = spans.map(
            (row) =>
              JSON.parse(row) as {
                span_id: string
                parent_span_id: string | null
                name: string
                duration_ms: number
                status_code: number
              }
          )
          const kept = fitting(all, RESULT_MAX_BYTES - Buffer.byteLength(JSON.stringify([summary, runList])))
          const omitted = all.length - kept.length
          const lines = kept.map(
            (span) =>
              `- ${span.span_id}${span.parent_span_id === null ? "" : ` (parent ${span.parent_span_id})`} · ${span.name} · ${span.duration_ms} ms${span.status_code === 2 ? " · error" : ""}`
          )
          return {
            structured: { trace: summary, spans: kept, spans_omitted: omitted, runs: runList },
            text: `Trace ${summary.trace_id} · ${summary.name}\nSpans:\n${lines.join("\n")}${omitted > 0 ? `\n(${omitted} more spans left out to keep this result small)` : ""}\nRuns:\n${runList.length === 0 ? "none" : runList.map(runLine).join("\n")}`
          }
        })
    })
  ]
  return tools
})
