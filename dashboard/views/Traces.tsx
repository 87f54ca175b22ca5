/** The project's traces, newest first, paged with the gateway's `next_after`. */
import { client, run } from "../api.js"
import { dayEnd, dayStart, formatCount, formatDuration } from "../format.js"
import { useLoad } from "../load.js"
import { type FilterField, Filters, Pager, param, readPaging } from "../paging.js"
import { href, type ViewProps } from "../router.js"
import { Badge, Clip, Empty, Show, TableWrap, Time, useTitle } from "../ui.js"

const FIELDS: ReadonlyArray<FilterField> = [
  { name: "service_name", label: "Service", type: "text" },
  {
    name: "has_error",
    label: "Errors",
    type: "select",
    options: [
      ["true", "With errors"],
      ["false", "Without errors"]
    ]
  },
  { name: "from", label: "Started from", type: "date" },
  { name: "to", label: "Started until", type: "date" }
]

export const Traces = ({ projectId, query }: ViewProps) => {
  useTitle("Traces")
  const paging = readPaging(query)
  const service = param(query, "service_name")
  const hasError = (["true", "false"] as const).find((value) => value === param(query, "has_error"))
  const from = dayStart(query.get("from") ?? "")
  const to = dayEnd(query.get("to") ?? "")
  const urlParams = {
    limit: paging.limit,
    ...(paging.after ? { after: paging.after } : {}),
    ...(service ? { service_name: service } : {}),
    ...(hasError ? { has_error: hasError } : {}),
    ...(from ? { from } : {}),
    ...(to ? { to } : {})
  }
  const loaded = useLoad(`${projectId}?${query}`, (signal) =>
    run(client.dashboard.traces({ path: { project_id: projectId }, urlParams }), { signal })
  )
  return (
    <>
      <h1>Traces</h1>
      <Filters label="Filters" fields={FIELDS} query={query} />
      <Show loaded={loaded} what="traces">
        {({ traces, next_after }) => (
          <>
            {traces.length === 0 ? (
              <Empty>{paging.after ? "No more traces." : "No traces match these filters."}</Empty>
            ) : (
              <TableWrap label="Traces">
                <table>
                  <thead>
                    <tr>
                      <th scope="col">Root span</th>
                      <th scope="col">Service</th>
                      <th scope="col">Start</th>
                      <th scope="col" class="num">
                        Duration
                      </th>
                      <th scope="col" class="num">
                        Spans
                      </th>
                      <th scope="col">Errors</th>
                      <th scope="col" class="num">
                        Runs
                      </th>
                    </tr>
                  </thead>
                  <tbody>
                    {traces.map((trace) => (
                      <tr key={trace.trace_id}>
                        <td class="wide">
                          <a href={href(projectId, "traces", trace.trace_id)}>{trace.name || trace.trace_id}</a>
                        </td>
                        <td>
                          <Clip text={trace.service_name} />
                        </td>
                        <td>
                          <Time at={trace.start_time} />
                        </td>
                        <td class="num">{formatDuration(trace.duration_ms)}</td>
                        <td class="num">{formatCount(trace.span_count)}</td>
                        <td>
                          {trace.error_count > 0 ? (
                            <Badge tone="bad">
                              {formatCount(trace.error_count)} {trace.error_count === 1 ? "error" : "errors"}
                            </Badge>
                          ) : (
                            "None"
                          )}
                        </td>
                        <td class="num">{formatCount(trace.run_count)}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </TableWrap>
            )}
            <Pager paging={paging} label="Traces" next={next_after ?? undefined} />
          </>
        )}
      </Show>
    </>
  )
}
