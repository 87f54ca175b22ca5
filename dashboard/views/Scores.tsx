/** The project's scores: per name its distribution, then the scores themselves, filtered and paged. */
import type { ScoreSummaryQuery } from "../../schema/Dashboard.js"
import type { Score, ScoreListQuery } from "../../schema/Score.js"
import { client, run } from "../api.js"
import { type FilterField, Filters, optionOf, param, textParams } from "../filters.js"
import { useLoad } from "../load.js"
import { pageParams, readPaging } from "../paging.js"
import { href, type ViewProps } from "../router.js"
import { type Column, KeysetTable } from "../table.js"
import { Badge, Clip, Empty, OptionalLink, Show, Time, useTitle } from "../ui.js"
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

/** What a score is of, from links elsewhere: the list narrows to them (the distributions cannot). */
const TARGETS = ["thread_id", "message_id", "run_id"] as const

const summaryQuery = (query: URLSearchParams): ScoreSummaryQuery => {
  const dataType = optionOf(DATA_TYPES, param(query, "data_type"))
  const source = optionOf(SOURCES, param(query, "source"))
  return { ...textParams(query, ["name"]), ...(dataType ? { data_type: dataType } : {}), ...(source ? { source } : {}) }
}

/** Where a score leads: its run, else its message or thread. */
const scoredLink = (projectId: string, score: Score): string | undefined => {
  if (score.run_id) return href(projectId, "runs", score.run_id)
  if (score.thread_id) return href(projectId, "threads", score.thread_id, { message: score.message_id ?? undefined })
  return undefined
}

const columns = (projectId: string): ReadonlyArray<Column<Score>> => [
  { title: "Name", cell: (score) => score.name },
  { title: "Value", cell: (score) => <strong>{scoreValue(score)}</strong> },
  { title: "Type", cell: (score) => <Badge>{score.data_type}</Badge> },
  { title: "Comment", cell: (score) => <Clip text={score.comment} /> },
  {
    title: "Of",
    cell: (score) => (
      <OptionalLink to={scoredLink(projectId, score)}>
        {score.run_id ? "Run" : score.message_id ? "Message" : "Thread"}
      </OptionalLink>
    )
  },
  { title: "User", cell: (score) => <Clip text={score.user_id} /> },
  { title: "Created", cell: (score) => <Time at={score.created_at} /> }
]

const Summary = ({ projectId, query }: ViewProps) => {
  // The list's filters, the scored thread, message or run included: the distributions are of the scores listed.
  const urlParams: ScoreSummaryQuery = { ...summaryQuery(query), ...textParams(query, TARGETS) }
  const loaded = useLoad(`${projectId}?${JSON.stringify(urlParams)}`, (signal) =>
    run(client.scoreSummary({ path: { project_id: projectId }, urlParams }), { signal })
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

export const Scores = (props: ViewProps) => {
  const { projectId, query } = props
  useTitle("Scores")
  const paging = readPaging(query)
  const urlParams: ScoreListQuery = { ...pageParams(paging), ...summaryQuery(query), ...textParams(query, TARGETS) }
  const loaded = useLoad(`${projectId}?${query}`, (signal) =>
    run(client.scores({ path: { project_id: projectId }, urlParams }), { signal })
  )
  const more = (after: string, signal: AbortSignal) =>
    run(client.scores({ path: { project_id: projectId }, urlParams: { ...urlParams, limit: 1, after } }), {
      signal
    }).then((page) => page.scores.length > 0)
  const narrowed = TARGETS.filter((name) => param(query, name))
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
      <Summary {...props} />
      <section aria-labelledby="score-list">
        <h2 id="score-list">Scores</h2>
        <Show loaded={loaded} what="scores">
          {({ scores }) => (
            <KeysetTable
              label="Scores"
              columns={columns(projectId)}
              rows={scores}
              paging={paging}
              more={more}
              moreKey={`${projectId}?${query}`}
            />
          )}
        </Show>
      </section>
    </>
  )
}
