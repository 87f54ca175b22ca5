/** One span in full: its figures, attributes, events, links, resource and scope. */
import type { Span } from "../../schema/Trace.js"
import { formatCount, formatDuration, prettyText } from "../format.js"
import { href } from "../router.js"
import { Empty, Facts, ShortId, Time } from "../ui.js"
import type { Row } from "./waterfall.js"

const nanosBetween = (from: string, to: string): number => {
  try {
    return Number(BigInt(to) - BigInt(from)) / 1e6
  } catch {
    return 0
  }
}

const Attributes = ({ label, values }: { readonly label: string; readonly values: Span["attributes"] }) => {
  const entries = Object.entries(values)
  if (entries.length === 0) return <p class="muted">No {label.toLowerCase()}.</p>
  return (
    <dl class="attributes">
      {entries
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([key, value]) => (
          <div key={key}>
            <dt>{key}</dt>
            <dd>{typeof value === "string" ? value : prettyText(value)}</dd>
          </div>
        ))}
    </dl>
  )
}

export const SpanDetail = ({ projectId, row }: { readonly projectId: string; readonly row: Row }) => {
  const { span, genAi } = row
  return (
    <div class="span-detail">
      <Facts
        items={[
          ["Span id", <ShortId key="s" id={span.span_id} />],
          ["Parent", span.parent_span_id ? <ShortId key="p" id={span.parent_span_id} /> : "None (root)"],
          ["Kind", span.kind],
          ["Service", span.service_name ?? "—"],
          ["Start", <Time key="t" at={span.start_time} />],
          ["Offset", `+${formatDuration(row.offsetMs)}`],
          ["Duration", formatDuration(span.duration_ms)],
          ["Status", span.status_message ? `${span.status_code}: ${span.status_message}` : span.status_code],
          ["Convention", span.convention ?? "none recognised"],
          ["Role", span.role ?? "—"],
          ...(genAi?.model ? [["Model", genAi.model] as const] : []),
          ...(genAi?.inputTokens !== undefined ? [["Input tokens", formatCount(genAi.inputTokens)] as const] : []),
          ...(genAi?.outputTokens !== undefined ? [["Output tokens", formatCount(genAi.outputTokens)] as const] : []),
          ...(span.run_id
            ? [
                [
                  "Run",
                  <a key="r" href={href(projectId, "runs", span.run_id)}>
                    Open the run made from this span
                  </a>
                ] as const
              ]
            : [])
        ]}
      />
      <h3>Attributes</h3>
      <Attributes label="Attributes" values={span.attributes} />
      <h3>Events</h3>
      {span.events.length === 0 ? (
        <Empty>No events.</Empty>
      ) : (
        <ol class="events">
          {span.events.map((event, i) => (
            <li key={i}>
              <strong>{event.name}</strong>{" "}
              <span class="muted">
                +{formatDuration(nanosBetween(span.start_time_unix_nano, event.time_unix_nano))}
              </span>
              <Attributes label="Event attributes" values={event.attributes} />
            </li>
          ))}
        </ol>
      )}
      <h3>Links</h3>
      {span.links.length === 0 ? (
        <Empty>No links.</Empty>
      ) : (
        <ul class="events">
          {span.links.map((link) => (
            <li key={`${link.trace_id}/${link.span_id}`}>
              <a href={href(projectId, "traces", link.trace_id, { span: link.span_id })}>
                Span {link.span_id} of trace {link.trace_id}
              </a>
              <Attributes label="Link attributes" values={link.attributes} />
            </li>
          ))}
        </ul>
      )}
      <h3>Resource</h3>
      <Attributes label="Resource" values={span.resource} />
      <h3>Scope</h3>
      <p>
        {span.scope.name || "—"} {span.scope.version}
      </p>
      {Object.keys(span.scope.attributes).length > 0 ? (
        <Attributes label="Scope attributes" values={span.scope.attributes} />
      ) : null}
    </div>
  )
}
