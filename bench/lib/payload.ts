/** What the workloads send, shared by the gateway runs, the baselines and pgbench. */

export const FORMAT = "svc/v0"
export const LAST_MESSAGE_AT = "2026-11-22T10:15:30.123Z"

const FILLER = "The quick brown fox jumps over the lazy dog while the assistant drafts a reply. "

/**
 * A message content object of exactly `bytes` bytes once serialized (ASCII).
 * It holds no single quote (pgbench embeds it in a SQL literal) and no colon
 * before a letter or digit (pgbench would read it as a variable).
 */
export const messageContent = (bytes = 1024): Record<string, unknown> => {
  const shell = JSON.stringify({ role: "user", parts: [{ type: "text", text: "" }] })
  const room = Math.max(0, bytes - shell.length)
  let text = ""
  while (text.length < room) text += FILLER
  return { role: "user", parts: [{ type: "text", text: text.slice(0, room) }] }
}

export const CONTENT = messageContent()
export const CONTENT_JSON = JSON.stringify(CONTENT)

export const appendBody = (parentId: string | null): string =>
  `{"parent_id":${parentId === null ? "null" : JSON.stringify(parentId)},"format":"${FORMAT}","content":${CONTENT_JSON}}`

export const createThreadBody = JSON.stringify({ last_message_at: LAST_MESSAGE_AT })

// ---------------------------------------------------------------- run reports

/** Tool calls per run report in the `run_report` workload. */
export const RUN_TOOL_CALLS = 100

const TOOL_NAMES = ["web_search", "read_file", "run_query", "fetch_url", "lookup_customer", "create_ticket"] as const
const WORDS = (
  "the a of and to in for on with by from account region revenue renewal churn quarter growth customer order " +
  "ticket report result record match score north south east west team plan active archived updated total " +
  "average median rate share month year week daily weekly summary detail source page section table row " +
  "column value field status open closed pending resolved priority high low medium owner agent user " +
  "search query filter sort limit offset found returned missing error retry timeout cache hit miss"
).split(" ")

/**
 * Deterministic text of `length` characters drawn from WORDS (seeded), so
 * that every tool result differs and the stored detail compresses about as
 * much as prose does, not like one sentence repeated.
 */
export const prose = (seed: number, length: number): string => {
  let state = (seed * 2_654_435_761) >>> 0 || 1
  let text = ""
  while (text.length < length) {
    state ^= state << 13
    state ^= state >>> 17
    state ^= state << 5
    state >>>= 0
    const word = WORDS[state % WORDS.length] ?? "the"
    text += text === "" ? word : state % 11 === 0 ? `. ${word}` : ` ${word}`
  }
  return text.slice(0, length)
}

/**
 * A run report as an app would send it after an agent turn: 100 tool calls
 * (JSON-object arguments of ~300 bytes, string results of ~1 KB, sources and
 * timings), 4 steps, 3 sampling calls, usage figures, tags and ~2 KB of
 * output text. Every field is one `schema/Run.ts` accepts. No string holds a
 * colon or a single quote, so the serialized detail can go into the pgbench
 * script as a literal once `":` is spaced out (see `pgbenchJson`).
 */
export const runReport = (threadId: string) => {
  const toolCalls = Array.from({ length: RUN_TOOL_CALLS }, (_, i) => {
    const start = 1_200 + i * 95
    return {
      tool_name: TOOL_NAMES[i % TOOL_NAMES.length] ?? "web_search",
      tool_call_id: `call_${String(i).padStart(3, "0")}_Xk9Qm2LpRt7Vb4Nc`,
      tool_args: {
        query: `quarterly revenue by region for account ${1000 + i} including renewals and churn`,
        filters: { region: ["north", "south", "east"][i % 3], year: 2026, quarter: (i % 4) + 1, active: true },
        fields: ["account_id", "region", "revenue", "renewals", "churn_rate", "updated_at"],
        limit: 20,
        sort: { by: "revenue", order: "desc" },
        include_archived: false
      },
      tool_result: prose(i + 1, 1_024),
      tool_source: (["backend", "mcp", "frontend"] as const)[i % 3] ?? "backend",
      start_ms: start,
      end_ms: start + 80
    }
  })
  return {
    thread_id: threadId,
    status: "completed",
    model_id: "gpt-4o-2024-08-06",
    provider: "openai",
    provider_type: "chat",
    input_tokens: 48_210,
    output_tokens: 1_932,
    reasoning_tokens: 512,
    cached_input_tokens: 30_720,
    duration_ms: 11_840,
    first_token_ms: 640,
    total_steps: 4,
    trace_id: "4bf92f3577b34da6a3ce929d0e0e4736",
    tags: ["agent", "research", "prod-eu"],
    environment: "production",
    release: "web@2026.11.3",
    metadata: { feature: "research-assistant", plan: "team", experiment: "tools-v2" },
    steps: [0, 1, 2, 3].map((i) => ({
      input_tokens: 12_000 + i * 50,
      output_tokens: 480 + i,
      cached_input_tokens: 7_680,
      start_ms: i * 2_900,
      end_ms: i * 2_900 + 2_850,
      finish_reason: i === 3 ? "stop" : "tool-calls"
    })),
    tool_calls: toolCalls,
    sampling_calls: [0, 1, 2].map((i) => ({
      model_id: "gpt-4o-mini",
      input_tokens: 2_048 + i,
      output_tokens: 128,
      duration_ms: 410 + i
    })),
    output_text: prose(1_000, 2_048)
  }
}

const THREAD_PLACEHOLDER = "thread_PLACEHOLDER"

/** The run report body, serialized once; only `thread_id` changes between requests. */
const [REPORT_HEAD, REPORT_TAIL] = (() => {
  const json = JSON.stringify(runReport(THREAD_PLACEHOLDER))
  const at = json.indexOf(THREAD_PLACEHOLDER)
  return [json.slice(0, at), json.slice(at + THREAD_PLACEHOLDER.length)] as const
})()

export const runReportBody = (threadId: string): string => `${REPORT_HEAD}${threadId}${REPORT_TAIL}`
export const RUN_REPORT_BYTES = runReportBody(THREAD_PLACEHOLDER).length

/** What the gateway stores in `runs.detail` for that report (src/runs/Runs.ts builds it in this order). */
export const runDetailJson = (): string => {
  const report = runReport(THREAD_PLACEHOLDER)
  return JSON.stringify({
    metadata: report.metadata,
    steps: report.steps,
    tool_calls: report.tool_calls,
    sampling_calls: report.sampling_calls,
    output_text: report.output_text
  })
}

/**
 * JSON that can sit in a pgbench script as a SQL literal: pgbench reads
 * `:name` (digits included) as a variable, so every `":` gets a space after it
 * (jsonb drops the whitespace); nothing else may hold a colon or a quote.
 */
export const pgbenchJson = (json: string): string => {
  const spaced = json.replaceAll('":', '": ')
  if (/:[A-Za-z0-9_]/.test(spaced) || spaced.includes("'")) throw new Error("pgbenchJson: unsafe JSON for pgbench")
  return spaced
}
