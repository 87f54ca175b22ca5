/**
 * A run's steps and tool calls as reported (schema/Run.ts Step and ToolCall),
 * read defensively: the run answer carries them as JSON.
 */
import { formatCount, formatDuration, prettyText } from "../format.js"
import { Code } from "../ui.js"

type Bag = Readonly<Record<string, unknown>>
const isBag = (value: unknown): value is Bag => typeof value === "object" && value !== null && !Array.isArray(value)
const num = (value: unknown): number | undefined => (typeof value === "number" ? value : undefined)
const str = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined)

const timing = (bag: Bag): string | undefined => {
  const start = num(bag.start_ms)
  const end = num(bag.end_ms)
  if (start === undefined && end === undefined) return undefined
  const took = start !== undefined && end !== undefined ? `, took ${formatDuration(end - start)}` : ""
  return start !== undefined ? `at ${formatDuration(start)}${took}` : `ended at ${formatDuration(end)}`
}

const tokenText = (bag: Bag): string | undefined => {
  const parts = (
    [
      ["input", bag.input_tokens],
      ["output", bag.output_tokens],
      ["reasoning", bag.reasoning_tokens],
      ["cached input", bag.cached_input_tokens]
    ] as const
  ).flatMap(([label, value]) => (typeof value === "number" ? [`${formatCount(value)} ${label}`] : []))
  return parts.length > 0 ? `${parts.join(", ")} tokens` : undefined
}

const Text = ({ label, value }: { readonly label: string; readonly value: unknown }) =>
  value === undefined ? null : (
    <>
      <p class="label">{label}</p>
      <Code text={prettyText(value)} />
    </>
  )

const ToolCall = ({ call }: { readonly call: unknown }) => {
  if (!isBag(call)) return <Code text={prettyText(call)} />
  const facts = [str(call.tool_source) ? `from ${call.tool_source}` : undefined, timing(call)].filter(Boolean)
  const sampling = Array.isArray(call.sampling_calls) ? call.sampling_calls.length : 0
  return (
    <div class="part tool">
      <p class="part-head">
        <span class="kind">Tool call</span> <strong>{str(call.tool_name) ?? "tool"}</strong>{" "}
        {str(call.tool_call_id) ? <code class="id">{str(call.tool_call_id)}</code> : null}
        {facts.length > 0 ? <span class="muted"> · {facts.join(" · ")}</span> : null}
        {sampling > 0 ? <span class="muted"> · {sampling} sampling calls</span> : null}
      </p>
      <Text label="Arguments" value={call.tool_args} />
      <Text label="Result" value={call.tool_result} />
      {call.tool_result === undefined ? <p class="muted">No result reported</p> : null}
    </div>
  )
}

export const ToolCalls = ({ calls }: { readonly calls: ReadonlyArray<unknown> }) => (
  <div class="stack">
    {calls.map((call, i) => (
      <ToolCall key={i} call={call} />
    ))}
  </div>
)

export const Steps = ({ steps }: { readonly steps: ReadonlyArray<unknown> }) => (
  <ol class="steps">
    {steps.map((step, i) => {
      const bag = isBag(step) ? step : {}
      const calls = Array.isArray(bag.tool_calls) ? bag.tool_calls : []
      const facts = [tokenText(bag), timing(bag), str(bag.finish_reason) && `finished: ${bag.finish_reason}`]
      return (
        <li key={i} class="step-item">
          <h3>Step {i + 1}</h3>
          <p class="muted">{facts.filter(Boolean).join(" · ") || "No figures reported"}</p>
          {bag.input !== undefined ? (
            <details>
              <summary>Input</summary>
              <Code text={prettyText(bag.input)} />
            </details>
          ) : null}
          {calls.length > 0 ? <ToolCalls calls={calls} /> : null}
          {isBag(step) ? null : <Code text={prettyText(step)} />}
        </li>
      )
    })}
  </ol>
)
