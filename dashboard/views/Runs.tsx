/** The project's runs, filtered and paged by the gateway. */
import { client, run } from "../api.js"
import { formatCost, formatDuration } from "../format.js"
import { useLoad } from "../load.js"
import { type FilterField, Filters, Pager, param, readPaging } from "../paging.js"
import { href, type ViewProps } from "../router.js"
import { Clip, Empty, ShortId, Show, TableWrap, Time, useTitle } from "../ui.js"
import { RUN_STATUSES, RunStatus, tokens } from "./bits.js"

const FIELDS: ReadonlyArray<FilterField> = [
  { name: "model_id", label: "Model", type: "text" },
  { name: "status", label: "Status", type: "select", options: RUN_STATUSES },
  { name: "tag", label: "Tag", type: "text" },
  { name: "environment", label: "Environment", type: "text" },
  { name: "thread_id", label: "Thread", type: "text" },
  { name: "trace_id", label: "Trace", type: "text" }
]

const statusOf = (value: string | undefined) => RUN_STATUSES.find(([status]) => status === value)?.[0]

export const Runs = ({ projectId, query }: ViewProps) => {
  useTitle("Runs")
  const paging = readPaging(query)
  const status = statusOf(param(query, "status"))
  const urlParams = {
    limit: paging.limit,
    ...(paging.after ? { after: paging.after } : {}),
    ...(status ? { status } : {}),
    ...Object.fromEntries(
      (["model_id", "tag", "environment", "thread_id", "trace_id"] as const).flatMap((name) => {
        const value = param(query, name)
        return value ? [[name, value]] : []
      })
    )
  }
  const loaded = useLoad(`${projectId}?${query}`, (signal) =>
    run(client.dashboard.runs({ path: { project_id: projectId }, urlParams }), { signal })
  )
  return (
    <>
      <h1>Runs</h1>
      <Filters label="Filters" fields={FIELDS} query={query} />
      <Show loaded={loaded} what="runs">
        {({ runs }) => (
          <>
            {runs.length === 0 ? (
              <Empty>{paging.after ? "No more runs." : "No runs match these filters."}</Empty>
            ) : (
              <TableWrap label="Runs">
                <table>
                  <thead>
                    <tr>
                      <th scope="col">Run</th>
                      <th scope="col">Status</th>
                      <th scope="col">Model</th>
                      <th scope="col">Tokens</th>
                      <th scope="col" class="num">
                        Cost
                      </th>
                      <th scope="col" class="num">
                        Duration
                      </th>
                      <th scope="col">Tags</th>
                      <th scope="col">Thread</th>
                      <th scope="col">Trace</th>
                    </tr>
                  </thead>
                  <tbody>
                    {runs.map((each) => (
                      <tr key={each.id}>
                        <td>
                          <a href={href(projectId, "runs", each.id)}>
                            <Time at={each.created_at} />
                          </a>
                        </td>
                        <td>
                          <RunStatus status={each.status} />
                        </td>
                        <td>
                          <Clip text={each.model_id} />
                        </td>
                        <td>{tokens(each)}</td>
                        <td class="num">{formatCost(each.cost_usd)}</td>
                        <td class="num">{formatDuration(each.duration_ms)}</td>
                        <td>{each.tags.length > 0 ? each.tags.join(", ") : <span class="muted">—</span>}</td>
                        <td>
                          {each.thread_id ? (
                            <a href={href(projectId, "threads", each.thread_id)}>
                              <ShortId id={each.thread_id} />
                            </a>
                          ) : (
                            <span class="muted">—</span>
                          )}
                        </td>
                        <td>
                          {each.trace_id ? (
                            <a href={href(projectId, "traces", each.trace_id)}>
                              <ShortId id={each.trace_id} />
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
            <Pager
              paging={paging}
              label="Runs"
              next={runs.length === paging.limit ? runs[runs.length - 1]?.id : undefined}
            />
          </>
        )}
      </Show>
    </>
  )
}
