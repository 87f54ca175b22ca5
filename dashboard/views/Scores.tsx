/** The project's scores: per name its distribution, then the scores themselves, filtered and paged. */
import type { ScoreSummaryQuery } from "../../schema/Dashboard.js"
import type { ScoreListQuery } from "../../schema/Score.js"
import { client, run } from "../api.js"
import { useLoad } from "../load.js"
import { type FilterField, Filters, Pager, param, readPaging } from "../paging.js"
import { href, type ViewProps } from "../router.js"
import { Badge, Clip, Empty, Show, TableWrap, Time, useTitle } from "../ui.js"
import { scoreValue } from "./bits.js"
import { Distribution } from "./Distribution.js"

const DATA_TYPES = [
  ["numeric", "Numeric"],
  ["categorical", "Categorical"],
  ["boolean", "Boolean"]
] as const
const SOURCES = [
  ["api", "API"],
  ["evaluator", "Evaluator"]
] as const

const FIELDS: ReadonlyArray<FilterField> = [
  { name: "name", label: "Name", type: "text" },
  { name: "data_type", label: "Data type", type: "select", options: DATA_TYPES },
  { name: "source", label: "Source", type: "select", options: SOURCES }
]

const pick = <T extends string>(choices: ReadonlyArray<readonly [T, string]>, value: string | undefined) =>
  choices.find(([choice]) => choice === value)?.[0]

const summaryQuery = (query: URLSearchParams): ScoreSummaryQuery => {
  const name = param(query, "name")
  const dataType = pick(DATA_TYPES, param(query, "data_type"))
  const source = pick(SOURCES, param(query, "source"))
  return { ...(name ? { name } : {}), ...(dataType ? { data_type: dataType } : {}), ...(source ? { source } : {}) }
}

const Summary = ({ projectId, query }: ViewProps) => {
  const urlParams = summaryQuery(query)
  const loaded = useLoad(`${projectId}?${JSON.stringify(urlParams)}`, (signal) =>
    run(client.dashboard.scoreSummary({ path: { project_id: projectId }, urlParams }), { signal })
  )
  return (
    <section aria-labelledby="score-distributions">
      <h2 id="score-distributions">Distributions</h2>
      <Show loaded={loaded} what="the distributions">
        {({ names }) =>
          names.length === 0 ? (
            <Empty>No scores to summarise.</Empty>
          ) : (
            <div class="distributions">
              {names.map((each) => (
                <Distribution key={`${each.name}/${each.data_type}`} value={each} />
              ))}
            </div>
          )
        }
      </Show>
    </section>
  )
}

export const Scores = ({ projectId, query }: ViewProps) => {
  useTitle("Scores")
  const paging = readPaging(query)
  const urlParams: ScoreListQuery = {
    limit: paging.limit,
    ...(paging.after ? { after: paging.after } : {}),
    ...summaryQuery(query),
    ...Object.fromEntries(
      (["thread_id", "message_id", "run_id"] as const).flatMap((name) => {
        const value = param(query, name)
        return value ? [[name, value]] : []
      })
    )
  }
  const loaded = useLoad(`${projectId}?${query}`, (signal) =>
    run(client.dashboard.scores({ path: { project_id: projectId }, urlParams }), { signal })
  )
  const narrowed = (["thread_id", "message_id", "run_id"] as const).filter((name) => param(query, name))
  return (
    <>
      <h1>Scores</h1>
      <Filters label="Filters" fields={FIELDS} query={query} />
      {narrowed.length > 0 ? (
        <p class="hint">
          Only the scores of {narrowed.map((name) => `${name.replace("_id", "")} ${query.get(name)}`).join(", ")}.{" "}
          <a href={href(projectId, "scores")}>Show every score</a>
        </p>
      ) : null}
      <Summary projectId={projectId} query={query} />
      <section aria-labelledby="score-list">
        <h2 id="score-list">Scores</h2>
        <Show loaded={loaded} what="scores">
          {({ scores }) => (
            <>
              {scores.length === 0 ? (
                <Empty>{paging.after ? "No more scores." : "No scores match these filters."}</Empty>
              ) : (
                <TableWrap label="Scores">
                  <table>
                    <thead>
                      <tr>
                        <th scope="col">Name</th>
                        <th scope="col">Value</th>
                        <th scope="col">Type</th>
                        <th scope="col">Comment</th>
                        <th scope="col">Of</th>
                        <th scope="col">User</th>
                        <th scope="col">Created</th>
                      </tr>
                    </thead>
                    <tbody>
                      {scores.map((score) => (
                        <tr key={score.id}>
                          <td>{score.name}</td>
                          <td>
                            <strong>{scoreValue(score)}</strong>
                          </td>
                          <td>
                            <Badge>{score.data_type}</Badge>
                          </td>
                          <td>
                            <Clip text={score.comment} />
                          </td>
                          <td>
                            {score.run_id ? (
                              <a href={href(projectId, "runs", score.run_id)}>Run</a>
                            ) : score.thread_id ? (
                              <a
                                href={href(projectId, "threads", score.thread_id, {
                                  message: score.message_id ?? undefined
                                })}
                              >
                                {score.message_id ? "Message" : "Thread"}
                              </a>
                            ) : (
                              <span class="muted">—</span>
                            )}
                          </td>
                          <td>
                            <Clip text={score.user_id} />
                          </td>
                          <td>
                            <Time at={score.created_at} />
                          </td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                </TableWrap>
              )}
              <Pager
                paging={paging}
                label="Scores"
                next={scores.length === paging.limit ? scores[scores.length - 1]?.id : undefined}
              />
            </>
          )}
        </Show>
      </section>
    </>
  )
}
