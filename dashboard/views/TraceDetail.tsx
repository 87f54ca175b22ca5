/**
 * One trace as a waterfall: a row per span on the trace's time axis, nested
 * by parent; the selected span (`?span=`) opens under its row.
 */
import { Component } from "preact"
import { useEffect, useMemo } from "preact/hooks"
import { trace } from "../data.js"
import { formatCount, formatDuration } from "../format.js"
import { useLoad } from "../load.js"
import { href, navigate, type ViewProps, withQuery } from "../router.js"
import { useSettled } from "../settle.js"
import { Badge, Empty, Facts, Show, Time, useTitle } from "../ui.js"
import { SpanDetail } from "./SpanDetail.js"
import { TraceRuns } from "./TraceRuns.js"
import { axisTicks, type Row, waterfall } from "./waterfall.js"

/** Deeper spans stop indenting here, so the names keep room. */
const INDENT_MAX = 16

/** The row in words, for a screen reader: "name · model · tokens". */
const rowLabel = (row: Row): string => {
  const parts = [row.span.name]
  if (row.genAi) {
    parts.push(row.genAi.model ?? "model call")
    if (row.genAi.inputTokens !== undefined || row.genAi.outputTokens !== undefined) {
      parts.push(
        `${formatCount(row.genAi.inputTokens ?? 0)} in / ${formatCount(row.genAi.outputTokens ?? 0)} out tokens`
      )
    }
  }
  return parts.join(" · ")
}

interface SpanRowProps {
  readonly row: Row
  readonly selected: boolean
  /** Laid out when in view, until the list settles (settle.ts). */
  readonly later: boolean
}

/** A span's row in the URL: selected, or none (`?span=`). */
const select = (spanId: string | undefined) => navigate(withQuery({ span: spanId }), { replace: true })

/** A row, drawn again only when what it shows changed (a trace may have thousands; the list settles in steps). */
class SpanRow extends Component<SpanRowProps> {
  override shouldComponentUpdate(next: SpanRowProps): boolean {
    const now = this.props
    return next.row !== now.row || next.selected !== now.selected || next.later !== now.later
  }

  override render() {
    const { row, selected, later } = this.props
    const { span } = row
    const failed = span.status_code === "error"
    return (
      <li class={`span-row${selected ? " selected" : ""}${failed ? " failed" : ""}${later ? " later" : ""}`}>
        <button
          type="button"
          class="span-button"
          id={`span-${span.span_id}`}
          aria-expanded={selected}
          onClick={() => select(selected ? undefined : span.span_id)}
        >
          {/* Drawn for the eye; the row's name says it once, in words (rowLabel). */}
          <span
            class="span-name"
            aria-hidden="true"
            style={{ paddingLeft: `${Math.min(row.depth, INDENT_MAX) * 0.75}rem` }}
          >
            <span class="text">{span.name}</span>
            {row.genAi ? <span class="badge ai">{row.genAi.model ?? span.convention ?? "GenAI"}</span> : null}
            {row.genAi && (row.genAi.inputTokens !== undefined || row.genAi.outputTokens !== undefined) ? (
              <span class="tokens">
                {formatCount(row.genAi.inputTokens ?? 0)}→{formatCount(row.genAi.outputTokens ?? 0)} tok
              </span>
            ) : null}
            {failed ? <span class="badge bad">error</span> : null}
          </span>
          <span class="track" aria-hidden="true">
            <span class="bar" style={{ left: `${row.left}%`, width: `max(2px, ${row.width}%)` }} />
          </span>
          <span class="span-time">
            <span class="sr-only">
              {rowLabel(row)}
              {failed ? ", error" : ""},{" "}
            </span>
            {formatDuration(span.duration_ms)}
          </span>
        </button>
      </li>
    )
  }
}

const Axis = ({ totalMs }: { readonly totalMs: number }) => (
  <div class="axis" aria-hidden="true">
    <span class="span-name">Span</span>
    <span class="track">
      {axisTicks(totalMs).map((at) => (
        // A tick near the right edge ends there, so its label stays inside the track.
        <span
          key={at}
          class={at > totalMs * 0.9 ? "tick end" : "tick"}
          style={{ left: `${totalMs > 0 ? (at / totalMs) * 100 : 0}%` }}
        >
          {formatDuration(at)}
        </span>
      ))}
    </span>
    <span class="span-time">Duration</span>
  </div>
)

export const TraceDetail = ({ projectId, query, traceId }: ViewProps & { readonly traceId: string }) => {
  const loaded = useLoad(trace.key(projectId, traceId), trace.load(projectId, traceId), trace.early)
  const drawn = useMemo(() => (loaded.state === "ok" ? waterfall(loaded.value.spans) : undefined), [loaded])
  const settled = useSettled(drawn?.rows.length ?? 0, drawn !== undefined)
  const selected = query.get("span") ?? undefined
  useTitle(loaded.state === "ok" ? `Trace ${loaded.value.trace.name}` : "Trace")
  useEffect(() => {
    // A row clicked is already in view ("nearest" leaves it); a linked one is brought into view.
    if (drawn && selected) document.getElementById(`span-${selected}`)?.scrollIntoView({ block: "nearest" })
  }, [drawn, selected])

  return (
    <>
      <p class="crumbs">
        <a href={href(projectId, "traces")}>Traces</a> /
      </p>
      <h1>Trace{loaded.state === "ok" ? `: ${loaded.value.trace.name}` : ""}</h1>
      <Show loaded={loaded} what="the trace">
        {({ trace, runs }) => (
          <>
            <Facts
              items={[
                ["Trace id", <code key="t">{trace.trace_id}</code>],
                ["Service", trace.service_name ?? "—"],
                ["Start", <Time key="s" at={trace.start_time} />],
                ["Duration", formatDuration(trace.duration_ms)],
                ["Spans", formatCount(trace.span_count)],
                [
                  "Errors",
                  trace.error_count > 0 ? (
                    <Badge key="e" tone="bad">
                      {formatCount(trace.error_count)}
                    </Badge>
                  ) : (
                    "None"
                  )
                ]
              ]}
            />
            <section aria-labelledby="trace-spans">
              <h2 id="trace-spans">Spans</h2>
              {!drawn || drawn.rows.length === 0 ? (
                <Empty>This trace has no spans.</Empty>
              ) : (
                <div class="waterfall">
                  <Axis totalMs={drawn.totalMs} />
                  <ol class="span-list">
                    {drawn.rows.flatMap((row, i) => {
                      const isSelected = row.span.span_id === selected
                      const item = (
                        <SpanRow key={row.span.span_id} row={row} selected={isSelected} later={i >= settled} />
                      )
                      return isSelected
                        ? [
                            item,
                            <li key={`${row.span.span_id}-detail`} class="span-open">
                              <SpanDetail projectId={projectId} row={row} />
                            </li>
                          ]
                        : [item]
                    })}
                  </ol>
                </div>
              )}
            </section>
            <TraceRuns projectId={projectId} runs={runs} />
          </>
        )}
      </Show>
    </>
  )
}
