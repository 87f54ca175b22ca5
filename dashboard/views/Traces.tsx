/** The project's traces, newest first, paged with the gateway's `next_after`. */
import type { TraceSummary } from "../../schema/Trace.js"
import { client, run } from "../api.js"
import { dayRange, type FilterField, Filters, optionOf, param, textParams } from "../filters.js"
import { formatCount, formatDuration } from "../format.js"
import { useLoad } from "../load.js"
import { pageParams, readPaging } from "../paging.js"
import { href, type ViewProps } from "../router.js"
import { type Column, noneText, PagedTable } from "../table.js"
import { Badge, Clip, Show, Time, useTitle } from "../ui.js"

const WITH_ERRORS = [
  ["true", "With errors"],
  ["false", "Without errors"]
] as const

const FIELDS: ReadonlyArray<FilterField> = [
  { name: "service_name", label: "Service", type: "text" },
  { name: "has_error", label: "Errors", type: "select", options: WITH_ERRORS },
  { name: "from", label: "Started from", type: "date" },
  { name: "to", label: "Started until", type: "date" }
]

const columns = (projectId: string): ReadonlyArray<Column<TraceSummary>> => [
  {
    title: "Root span",
    wrap: "wide",
    cell: (trace) => <a href={href(projectId, "traces", trace.trace_id)}>{trace.name || trace.trace_id}</a>
  },
  { title: "Service", cell: (trace) => <Clip text={trace.service_name} /> },
  { title: "Start", cell: (trace) => <Time at={trace.start_time} /> },
  { title: "Duration", num: true, cell: (trace) => formatDuration(trace.duration_ms) },
  { title: "Spans", num: true, cell: (trace) => formatCount(trace.span_count) },
  {
    title: "Errors",
    cell: (trace) =>
      trace.error_count > 0 ? (
        <Badge tone="bad">
          {formatCount(trace.error_count)} {trace.error_count === 1 ? "error" : "errors"}
        </Badge>
      ) : (
        "None"
      )
  },
  { title: "Runs", num: true, cell: (trace) => formatCount(trace.run_count) }
]

export const Traces = ({ projectId, query }: ViewProps) => {
  useTitle("Traces")
  const paging = readPaging(query)
  const hasError = optionOf(WITH_ERRORS, param(query, "has_error"))
  const urlParams = {
    ...pageParams(paging),
    ...textParams(query, ["service_name"]),
    ...(hasError ? { has_error: hasError } : {}),
    ...dayRange(query)
  }
  const loaded = useLoad(`${projectId}?${query}`, (signal) =>
    run(client.traces({ path: { project_id: projectId }, urlParams }), { signal })
  )
  return (
    <>
      <h1>Traces</h1>
      <Filters label="Filters" fields={FIELDS} query={query} />
      <Show loaded={loaded} what="traces">
        {({ traces, next_after }) => (
          <PagedTable
            label="Traces"
            columns={columns(projectId)}
            rows={traces}
            rowKey={(trace) => trace.trace_id}
            empty={noneText(paging, "traces")}
            paging={paging}
            next={next_after ?? undefined}
          />
        )}
      </Show>
    </>
  )
}
