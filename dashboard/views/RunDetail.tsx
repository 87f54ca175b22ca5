/** One run: what it cost and took, its steps and tool calls, its error, and links to its thread and trace. */
import type { Run } from "../../schema/Run.js"
import { client, run } from "../api.js"
import { formatCost, formatCount, formatDuration } from "../format.js"
import { useLoad } from "../load.js"
import { href, type ViewProps } from "../router.js"
import { Badge, Code, Empty, Facts, ShortId, Show, Time, useTitle } from "../ui.js"
import { RunStatus } from "./bits.js"
import { Json } from "./MessageContent.js"
import { Steps, ToolCalls } from "./RunParts.js"

const Links = ({ projectId, value }: { readonly projectId: string; readonly value: Run }) => (
  <ul class="links">
    {value.thread_id ? (
      <li>
        <a href={href(projectId, "threads", value.thread_id, { message: value.message_id ?? undefined })}>
          Open its thread
        </a>
      </li>
    ) : null}
    {value.trace_id ? (
      <li>
        <a href={href(projectId, "traces", value.trace_id, { span: value.span_id ?? value.root_span_id ?? undefined })}>
          Open its trace
        </a>
      </li>
    ) : null}
    <li>
      <a href={href(projectId, "scores", undefined, { run_id: value.id })}>Its scores</a>
    </li>
  </ul>
)

const Summary = ({ value }: { readonly value: Run }) => (
  <Facts
    items={[
      ["Status", <RunStatus key="s" status={value.status} />],
      ...(value.outcome_type ? [["Outcome", value.outcome_type] as const] : []),
      ["Model", value.model_id ?? "—"],
      ["Provider", [value.provider, value.provider_type].filter(Boolean).join(" · ") || "—"],
      ["Created", <Time key="c" at={value.created_at} />],
      ["Duration", formatDuration(value.duration_ms)],
      ["First token", formatDuration(value.first_token_ms)],
      ["Input tokens", formatCount(value.input_tokens)],
      ["Output tokens", formatCount(value.output_tokens)],
      ["Reasoning tokens", formatCount(value.reasoning_tokens)],
      ["Cached input tokens", formatCount(value.cached_input_tokens)],
      ["Cost", formatCost(value.cost_usd)],
      ["Steps", formatCount(value.total_steps ?? value.steps.length)],
      ["Tool calls", formatCount(value.tool_call_count)],
      ["Environment", value.environment ?? "—"],
      ["Release", value.release ?? "—"],
      [
        "Tags",
        value.tags.length > 0 ? (
          <span key="t" class="tags">
            {value.tags.map((tag) => (
              <Badge key={tag}>{tag}</Badge>
            ))}
          </span>
        ) : (
          "—"
        )
      ],
      ["Run id", <ShortId key="r" id={value.id} />],
      ...(value.message_id ? [["Message", <ShortId key="m" id={value.message_id} />] as const] : []),
      ...(value.user_id ? [["User", value.user_id] as const] : [])
    ]}
  />
)

const Extra = ({ title, value }: { readonly title: string; readonly value: unknown }) =>
  value == null || (typeof value === "object" && Object.keys(value).length === 0) ? null : (
    <details>
      <summary>{title}</summary>
      <Json value={value} />
    </details>
  )

export const RunDetail = ({ projectId, runId }: ViewProps & { readonly runId: string }) => {
  const loaded = useLoad(`${projectId}/${runId}`, (signal) =>
    run(client.run({ path: { project_id: projectId, run_id: runId } }), { signal })
  )
  useTitle(loaded.state === "ok" ? `Run ${loaded.value.model_id ?? runId}` : "Run")
  return (
    <>
      <p class="crumbs">
        <a href={href(projectId, "runs")}>Runs</a> /
      </p>
      <h1>Run{loaded.state === "ok" && loaded.value.model_id ? `: ${loaded.value.model_id}` : ""}</h1>
      <Show loaded={loaded} what="the run">
        {(value) => (
          <>
            <Links projectId={projectId} value={value} />
            {value.error || value.error_code ? (
              <section class="problem" aria-labelledby="run-error">
                <h2 id="run-error">Error{value.error_code ? ` (${value.error_code})` : ""}</h2>
                <Code text={value.error ?? value.error_code ?? ""} />
              </section>
            ) : null}
            <Summary value={value} />
            <section aria-labelledby="run-steps">
              <h2 id="run-steps">Steps</h2>
              {value.steps.length === 0 ? <Empty>The run reported no steps.</Empty> : <Steps steps={value.steps} />}
            </section>
            <section aria-labelledby="run-tools">
              <h2 id="run-tools">Tool calls</h2>
              {value.tool_calls.length === 0 ? (
                <Empty>No tool calls outside the steps.</Empty>
              ) : (
                <ToolCalls calls={value.tool_calls} />
              )}
            </section>
            {value.output_text ? (
              <section aria-labelledby="run-output">
                <h2 id="run-output">Output</h2>
                <Code text={value.output_text} />
              </section>
            ) : null}
            <Extra title="Sampling calls" value={value.sampling_calls.length > 0 ? value.sampling_calls : null} />
            <Extra title="Cost details" value={value.cost_details} />
            <Extra title="Attributes" value={value.attributes} />
            <Extra title="Metadata" value={value.metadata} />
          </>
        )}
      </Show>
    </>
  )
}
