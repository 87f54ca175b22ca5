/**
 * The workloads: what each one sends (the request, per connection or round
 * robin), what it needs seeded (Fixture, made by bench/lib/seed.ts) and which
 * baselines it is measured against. See bench/README.md.
 */
import type autocannon from "autocannon"
import type { HttpLoad } from "./lib/load.js"
import {
  appendBody,
  CONTENT_JSON,
  createThreadBody,
  FORMAT,
  pgbenchJson,
  RUN_REPORT_BYTES,
  RUN_TOOL_CALLS,
  runDetailJson,
  runReport,
  runReportBody
} from "./lib/payload.js"
import { settings, type WorkloadName } from "./lib/settings.js"

/** A thread and the identity headers under which its workspace can see it. */
export interface ThreadRef {
  readonly threadId: string
  readonly workspaceId: string
  readonly userId: string
}

/** What the seed made for the workloads. */
export interface Fixture {
  readonly databaseUrl: string
  readonly projectId: string
  readonly apiKey: string
  readonly listThreadId: string
  /** append_message: one thread per connection. */
  readonly appendThreadIds: ReadonlyArray<string>
  /** append_one_thread: every connection appends to this thread. */
  readonly sharedThreadId: string
  /** append_64_threads: round-robin over these (settings.spreadThreads). */
  readonly spreadThreadIds: ReadonlyArray<string>
  /** append_one_conn: the one connection's thread. */
  readonly oneConnThreadId: string
  /** get_thread: round-robin over these threads of WORKSPACE, each with a title and metadata. */
  readonly getThreadIds: ReadonlyArray<string>
  /** run_report: round-robin over these (the seeded background threads). */
  readonly reportThreads: ReadonlyArray<ThreadRef>
  /** list_runs: a second project holding only the seeded runs, read with its own key. */
  readonly runsProject: { readonly projectId: string; readonly apiKey: string }
}

export const USER = "user_bench"
export const WORKSPACE = "ws_bench"

export const headersFor = (fixture: Pick<Fixture, "apiKey">, json: boolean): Record<string, string> => ({
  authorization: `Bearer ${fixture.apiKey}`,
  "svc-user-id": USER,
  "svc-workspace-id": WORKSPACE,
  ...(json ? { "content-type": "application/json" } : {})
})

const messageIdOf = (body: string): string | undefined => {
  try {
    const parsed: unknown = JSON.parse(body)
    if (typeof parsed === "object" && parsed !== null && "message_id" in parsed) {
      return typeof parsed.message_id === "string" ? parsed.message_id : undefined
    }
  } catch {
    // not JSON
  }
  return undefined
}

/**
 * Appends spread round-robin over `threadIds` (one seeded thread per
 * connection, 64 threads, or one thread for all); each names as parent the
 * last message this run created in that thread (null for the first), so the
 * parent lookup of the statement is exercised. A sibling is still a valid
 * child, so concurrent appends to one thread stay correct.
 */
const appendLoad = (baseUrl: string, fixture: Fixture, threadIds: ReadonlyArray<string>): HttpLoad => {
  const last = new Map<string, string>()
  const threadOf = new WeakMap<object, string>()
  let turn = 0
  return {
    url: baseUrl,
    method: "POST",
    headers: headersFor(fixture, true),
    setupRequest: (request: autocannon.Request, context: object): autocannon.Request => {
      const threadId = threadIds[turn++ % threadIds.length] ?? ""
      threadOf.set(context, threadId)
      return {
        ...request,
        method: "POST",
        path: `/v1/threads/${threadId}/messages`,
        body: appendBody(last.get(threadId) ?? null)
      }
    },
    onResponse: (status, body, context) => {
      if (status !== 201) return
      const threadId = threadOf.get(context)
      const id = messageIdOf(body)
      if (threadId !== undefined && id !== undefined) last.set(threadId, id)
    }
  }
}

/** One thread read per request, round-robin over the seeded get_thread threads. */
const getThreadLoad = (baseUrl: string, fixture: Fixture): HttpLoad => {
  let turn = 0
  return {
    url: baseUrl,
    method: "GET",
    headers: headersFor(fixture, false),
    setupRequest: (request: autocannon.Request): autocannon.Request => ({
      ...request,
      method: "GET",
      path: `/v1/threads/${fixture.getThreadIds[turn++ % fixture.getThreadIds.length] ?? ""}`
    })
  }
}

/**
 * Run reports spread round-robin over the seeded background threads (1000 in
 * 50 workspaces), each under its workspace's identity headers.
 */
const runReportLoad = (baseUrl: string, fixture: Fixture): HttpLoad => {
  const base = headersFor(fixture, true)
  let turn = 0
  return {
    url: `${baseUrl}/v1/runs`,
    method: "POST",
    headers: base,
    setupRequest: (request: autocannon.Request): autocannon.Request => {
      const thread = fixture.reportThreads[turn++ % fixture.reportThreads.length]
      if (thread === undefined) throw new Error("run_report: no threads")
      return {
        ...request,
        method: "POST",
        path: "/v1/runs",
        headers: { ...base, "svc-user-id": thread.userId, "svc-workspace-id": thread.workspaceId },
        body: runReportBody(thread.threadId)
      }
    }
  }
}

export type HttpWorkload = WorkloadName

/** The requests of one workload against the server at `baseUrl` (a fresh round-robin each call). */
export const loadFor = (workload: HttpWorkload, baseUrl: string, fixture: Fixture): HttpLoad => {
  switch (workload) {
    case "health":
      return { url: `${baseUrl}/healthz`, method: "GET", headers: {} }
    case "create_thread":
      return {
        url: `${baseUrl}/v1/threads`,
        method: "POST",
        headers: headersFor(fixture, true),
        body: createThreadBody
      }
    case "get_thread":
      return getThreadLoad(baseUrl, fixture)
    case "append_message":
      return appendLoad(baseUrl, fixture, fixture.appendThreadIds)
    case "append_one_thread":
      return appendLoad(baseUrl, fixture, [fixture.sharedThreadId])
    case "append_64_threads":
      return appendLoad(baseUrl, fixture, fixture.spreadThreadIds)
    case "append_one_conn":
      return appendLoad(baseUrl, fixture, [fixture.oneConnThreadId])
    case "list_messages":
      return {
        url: `${baseUrl}/v1/threads/${fixture.listThreadId}/messages?limit=200`,
        method: "GET",
        headers: headersFor(fixture, false)
      }
    case "run_report":
      return runReportLoad(baseUrl, fixture)
    case "list_runs":
      return {
        url: `${baseUrl}/v1/projects/runs?limit=50`,
        method: "GET",
        headers: { authorization: `Bearer ${fixture.runsProject.apiKey}` }
      }
  }
}

export type BaselineName = "raw node:http" | "node:http + pg" | "pgbench INSERT"

export interface Spec {
  readonly name: HttpWorkload
  readonly what: string
  /** The baseline the target is against first; others are reported beside it. */
  readonly baselines: ReadonlyArray<BaselineName>
  readonly target: number | null
  /** autocannon connections (and pgbench clients); settings.connections (BENCH_CONNECTIONS) when unset. */
  readonly connections?: number
  /** An aim for the gateway's p50 latency, in ms, reported beside the run. */
  readonly p50AimMs?: number
  /** The pgbench script, when a baseline is "pgbench INSERT". */
  readonly pgbenchScript?: (fixture: Fixture) => string
  /** A GET fetched once from the gateway and once from node:http + pg: the bodies must be equal. */
  readonly sameBody?: (fixture: Fixture) => { readonly path: string; readonly headers: Record<string, string> }
}

/** The connections a workload is run with. */
export const connectionsOf = (spec: Pick<Spec, "connections">): number => spec.connections ?? settings.connections

export const SPECS: ReadonlyArray<Spec> = [
  { name: "health", what: "GET /healthz", baselines: ["raw node:http"], target: 0.25 },
  {
    name: "create_thread",
    what: "POST /v1/threads",
    baselines: ["node:http + pg"],
    target: null
  },
  {
    name: "get_thread",
    what: `GET /v1/threads/{id} (API key, one indexed SELECT), round-robin over ${settings.getThreads} threads of one workspace`,
    baselines: ["node:http + pg"],
    target: 0.35,
    sameBody: (fixture) => ({
      path: `/v1/threads/${fixture.getThreadIds[0] ?? ""}`,
      headers: headersFor(fixture, false)
    })
  },
  {
    name: "append_message",
    what: "POST /v1/threads/{id}/messages, ~1 KB content, parent chained",
    baselines: ["pgbench INSERT", "node:http + pg"],
    target: 0.35,
    pgbenchScript: (fixture) => pgbenchScript(fixture.projectId)
  },
  {
    name: "append_one_thread",
    what: "POST /v1/threads/{id}/messages, every connection to ONE thread, parent chained",
    baselines: ["node:http + pg"],
    target: null
  },
  {
    name: "append_64_threads",
    what: `POST /v1/threads/{id}/messages, round-robin over ${settings.spreadThreads} threads, parent chained`,
    baselines: ["node:http + pg"],
    target: null
  },
  {
    name: "append_one_conn",
    what: "POST /v1/threads/{id}/messages from ONE connection (one thread), parent chained",
    baselines: ["node:http + pg"],
    target: null,
    connections: 1,
    p50AimMs: 1.5
  },
  {
    name: "list_messages",
    what: "GET /v1/threads/{id}/messages?limit=200 (250 in the thread)",
    baselines: ["node:http + pg"],
    target: 0.5,
    sameBody: (fixture) => ({
      path: `/v1/threads/${fixture.listThreadId}/messages?limit=200`,
      headers: headersFor(fixture, false)
    })
  },
  {
    name: "run_report",
    what: `POST /v1/runs, ${RUN_TOOL_CALLS} tool calls, ${Math.round(RUN_REPORT_BYTES / 1024)} KB body, over the seeded threads`,
    baselines: ["node:http + pg", "pgbench INSERT"],
    target: null,
    pgbenchScript: (fixture) => pgbenchRunScript(fixture.projectId)
  },
  {
    name: "list_runs",
    what: "GET /v1/projects/runs?limit=50 (BENCH_SEED_RUNS runs in the project)",
    baselines: ["node:http + pg"],
    target: null,
    sameBody: (fixture) => ({
      path: "/v1/projects/runs?limit=50",
      headers: { authorization: `Bearer ${fixture.runsProject.apiKey}` }
    })
  }
]

const pgbenchScript = (projectId: string): string =>
  [
    "\\set r random(1, 9000000000000000000)",
    "INSERT INTO bench_messages (project_id, thread_id, id, parent_id, user_id, height, format, content)",
    `VALUES ('${projectId}', 'thread_pgbench_' || :client_id,`,
    "  'msg_' || lpad(floor(extract(epoch FROM clock_timestamp()) * 1000000)::bigint::text, 17, '0') || '_' || :client_id || '_' || :r,",
    `  NULL, '${USER}', 0, '${FORMAT}', '${CONTENT_JSON}'::jsonb);`,
    ""
  ].join("\n")

/**
 * One row of the run_report workload's shape into bench_runs (`runs`' columns
 * and indexes, no foreign key): the same scalar columns, the same ~150 KB
 * detail as a jsonb literal, time-ordered ids.
 */
const pgbenchRunScript = (projectId: string): string => {
  const report = runReport("unused")
  const text = (value: string) => `'${value}'`
  return [
    "\\set r random(1, 9000000000000000000)",
    "INSERT INTO bench_runs (project_id, id, thread_id, workspace_id, user_id, message_id, status, outcome_type,",
    "  model_id, provider, provider_type, input_tokens, output_tokens, reasoning_tokens, cached_input_tokens,",
    "  duration_ms, first_token_ms, total_steps, tool_call_count, error, error_code, trace_id, tags,",
    "  environment, release, detail, idempotency_key, request_hash)",
    `VALUES ('${projectId}',`,
    "  'run_' || lpad(floor(extract(epoch FROM clock_timestamp()) * 1000000)::bigint::text, 17, '0') || '_' || :client_id || '_' || :r,",
    `  'thread_pgbench_' || :client_id, '${WORKSPACE}', '${USER}', NULL, ${text(report.status)}, NULL,`,
    `  ${text(report.model_id)}, ${text(report.provider)}, ${text(report.provider_type)},`,
    `  ${report.input_tokens}, ${report.output_tokens}, ${report.reasoning_tokens}, ${report.cached_input_tokens},`,
    `  ${report.duration_ms}, ${report.first_token_ms}, ${report.total_steps}, ${report.tool_calls.length}, NULL, NULL,`,
    `  ${text(report.trace_id)}, ARRAY[${report.tags.map(text).join(", ")}], ${text(report.environment)}, ${text(report.release)},`,
    `  '${pgbenchJson(runDetailJson())}'::jsonb, NULL, NULL);`,
    ""
  ].join("\n")
}
