/** The runs made from a trace's model-call spans, each linked, with its span. */
import type { RunSummary } from "../../schema/Run.js"
import { formatCost, formatDuration } from "../format.js"
import { href, withQuery } from "../router.js"
import { Empty, ShortId, TableWrap } from "../ui.js"
import { RunStatus, tokens } from "./bits.js"

export const TraceRuns = ({
  projectId,
  runs
}: {
  readonly projectId: string
  readonly runs: ReadonlyArray<RunSummary>
}) => (
  <section aria-labelledby="trace-runs">
    <h2 id="trace-runs">Runs from this trace</h2>
    {runs.length === 0 ? (
      <Empty>No runs were made from this trace.</Empty>
    ) : (
      <TableWrap label="Runs from this trace">
        <table>
          <thead>
            <tr>
              <th scope="col">Run</th>
              <th scope="col">Status</th>
              <th scope="col">Tokens</th>
              <th scope="col" class="num">
                Cost
              </th>
              <th scope="col" class="num">
                Duration
              </th>
              <th scope="col">Span</th>
            </tr>
          </thead>
          <tbody>
            {runs.map((each) => (
              <tr key={each.id}>
                <td>
                  <a href={href(projectId, "runs", each.id)}>{each.model_id ?? each.id}</a>
                </td>
                <td>
                  <RunStatus status={each.status} />
                </td>
                <td>{tokens(each)}</td>
                <td class="num">{formatCost(each.cost_usd)}</td>
                <td class="num">{formatDuration(each.duration_ms)}</td>
                <td>
                  {each.span_id ? (
                    <a href={withQuery({ span: each.span_id })}>
                      <ShortId id={each.span_id} />
                    </a>
                  ) : (
                    <span class="muted">—</span>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableWrap>
    )}
  </section>
)
