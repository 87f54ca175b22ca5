/** The project's runs, filtered and paged by the gateway. */
import type { RunSummary } from "../../schema/Run.js"
import { client, run } from "../api.js"
import { type FilterField, Filters, optionOf, param, textParams } from "../filters.js"
import { useLoad } from "../load.js"
import { pageParams, readPaging } from "../paging.js"
import { href, type ViewProps } from "../router.js"
import { type Column, KeysetTable } from "../table.js"
import { Clip, Dash, IdLink, Show, Time, useTitle } from "../ui.js"
import { RUN_STATUSES, runColumns } from "./bits.js"

const FIELDS: ReadonlyArray<FilterField> = [
  { name: "model_id", label: "Model", type: "text" },
  { name: "status", label: "Status", type: "select", options: RUN_STATUSES },
  { name: "tag", label: "Tag", type: "text" },
  { name: "environment", label: "Environment", type: "text" },
  { name: "thread_id", label: "Thread", type: "text" },
  { name: "trace_id", label: "Trace", type: "text" }
]

const columns = (projectId: string): ReadonlyArray<Column<RunSummary>> => [
  {
    title: "Run",
    cell: (each) => (
      <a href={href(projectId, "runs", each.id)}>
        <Time at={each.created_at} />
      </a>
    )
  },
  runColumns.status,
  { title: "Model", cell: (each) => <Clip text={each.model_id} /> },
  runColumns.tokens,
  runColumns.cost,
  runColumns.duration,
  { title: "Tags", cell: (each) => (each.tags.length > 0 ? each.tags.join(", ") : <Dash />) },
  { title: "Thread", cell: (each) => <IdLink id={each.thread_id} to={(id) => href(projectId, "threads", id)} /> },
  { title: "Trace", cell: (each) => <IdLink id={each.trace_id} to={(id) => href(projectId, "traces", id)} /> }
]

export const Runs = ({ projectId, query }: ViewProps) => {
  useTitle("Runs")
  const paging = readPaging(query)
  const status = optionOf(RUN_STATUSES, param(query, "status"))
  const urlParams = {
    ...pageParams(paging),
    ...(status ? { status } : {}),
    ...textParams(query, ["model_id", "tag", "environment", "thread_id", "trace_id"])
  }
  const loaded = useLoad(`${projectId}?${query}`, (signal) =>
    run(client.runs({ path: { project_id: projectId }, urlParams }), { signal })
  )
  const more = (after: string, signal: AbortSignal) =>
    run(client.runs({ path: { project_id: projectId }, urlParams: { ...urlParams, limit: 1, after } }), {
      signal
    }).then((page) => page.runs.length > 0)
  return (
    <>
      <h1>Runs</h1>
      <Filters label="Filters" fields={FIELDS} query={query} />
      <Show loaded={loaded} what="runs">
        {({ runs }) => (
          <KeysetTable
            label="Runs"
            columns={columns(projectId)}
            rows={runs}
            paging={paging}
            more={more}
            moreKey={`${projectId}?${query}`}
          />
        )}
      </Show>
    </>
  )
}
