/** The runs made from a trace's model-call spans, each linked, with its span. */
import type { RunSummary } from "../../schema/Run.js"
import { href, withQuery } from "../router.js"
import { type Column, Table } from "../table.js"
import { IdLink } from "../ui.js"
import { runColumns } from "./bits.js"

const columns = (projectId: string): ReadonlyArray<Column<RunSummary>> => [
  { title: "Run", cell: (each) => <a href={href(projectId, "runs", each.id)}>{each.model_id ?? each.id}</a> },
  runColumns.status,
  runColumns.tokens,
  runColumns.cost,
  runColumns.duration,
  { title: "Span", cell: (each) => <IdLink id={each.span_id} to={(id) => withQuery({ span: id })} /> }
]

export const TraceRuns = ({
  projectId,
  runs
}: {
  readonly projectId: string
  readonly runs: ReadonlyArray<RunSummary>
}) => (
  <section aria-labelledby="trace-runs">
    <h2 id="trace-runs">Runs from this trace</h2>
    <Table
      label="Runs from this trace"
      columns={columns(projectId)}
      rows={runs}
      rowKey={(each) => each.id}
      empty="No runs were made from this trace."
    />
  </section>
)
