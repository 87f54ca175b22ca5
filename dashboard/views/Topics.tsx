/**
 * What the project's users talk about (docs/dashboard.md "Topics"): the
 * topics the `topics` job grouped the window's threads into, most threads
 * first, each with its threads per day; and one topic's threads, paged by
 * the gateway as the thread list is. Every session reads them.
 */
import { useMemo } from "preact/hooks"
import type { ProjectThread, Topic, TopicList } from "../../schema/Topic.js"
import { type CallError, client, run } from "../api.js"
import { formatCount, isoTime } from "../format.js"
import { type Load, type Loaded, useLoad } from "../load.js"
import { readPaging } from "../paging.js"
import { href, type ViewProps } from "../router.js"
import { type Column, KeysetTable, Table } from "../table.js"
import { Dash, Empty, ErrorText, Facts, ShortId, Show, Time, useTitle } from "../ui.js"
import { archived } from "./bits.js"
import { Chart, type Series } from "./Chart.js"

type TopicDay = Topic["daily"][number]

/** The largest topics drawn together as lines; every topic has its own bars in the table. */
const CHARTED = 5
/** "Lately", in a topic's summary: the window's last days. */
const RECENT_DAYS = 7

const loadTopics =
  (projectId: string): Load<TopicList> =>
  (signal) =>
    run(client.topics({ path: { project_id: projectId } }), { signal })

/** Most threads first (as the gateway sends them; kept so whatever the order). */
const byThreads = (topics: ReadonlyArray<Topic>): ReadonlyArray<Topic> =>
  [...topics].sort((a, b) => b.thread_count - a.thread_count)

/** A UTC day, kept on one line. */
const Day = ({ at }: { readonly at: Date }) => (
  <time class="day" dateTime={isoTime(at)}>
    {isoTime(at).slice(0, 10)}
  </time>
)

const threadsWord = (n: number): string => `${formatCount(n)} ${n === 1 ? "thread" : "threads"}`

/** A topic's name: its label, else its keywords (a link or a heading is never empty). */
const nameOf = (topic: Topic): string => topic.label || topic.keywords.join(", ") || "Unnamed topic"

/** The threads of a topic's last `RECENT_DAYS` days. */
const recent = (daily: ReadonlyArray<TopicDay>): number =>
  daily.slice(-RECENT_DAYS).reduce((sum, day) => sum + day.threads, 0)

/** A topic's days in words: the total, the busiest day, the last week. */
const daysInWords = (daily: ReadonlyArray<TopicDay>): string => {
  const total = daily.reduce((sum, day) => sum + day.threads, 0)
  const first = daily[0]
  const last = daily[daily.length - 1]
  if (!first || !last) return "no days"
  let peak = first
  for (const day of daily) if (day.threads > peak.threads) peak = day
  const busiest = total > 0 ? `, most on ${peak.date} (${formatCount(peak.threads)})` : ""
  return `${threadsWord(total)} started ${first.date} to ${last.date}${busiest}, ${formatCount(recent(daily))} in the last ${RECENT_DAYS} days`
}

/** A topic's threads per day as small bars, its figures in words (the label) and per bar (a tooltip). */
const Bars = ({ topic }: { readonly topic: Topic }) => {
  const { daily } = topic
  const most = Math.max(1, ...daily.map((day) => day.threads))
  const height = 24
  return (
    <svg
      class="bars"
      viewBox={`0 0 ${Math.max(daily.length, 1) * 4} ${height}`}
      preserveAspectRatio="none"
      role="img"
      aria-label={`Threads per day of ${nameOf(topic)}: ${daysInWords(daily)}`}
    >
      {daily.map((day, i) => {
        const tall = day.threads === 0 ? 0 : Math.max(2, (day.threads / most) * height)
        return (
          <rect key={day.date} x={i * 4 + 0.5} width={3} y={height - tall} height={tall}>
            <title>{`${day.date}: ${threadsWord(day.threads)}`}</title>
          </rect>
        )
      })}
    </svg>
  )
}

const topicColumns = (projectId: string): ReadonlyArray<Column<Topic>> => [
  {
    title: "Topic",
    wrap: "wide",
    cell: (topic) => <a href={href(projectId, "topics", topic.id)}>{nameOf(topic)}</a>
  },
  { title: "Keywords", wrap: "wide", cell: (topic) => topic.keywords.join(", ") },
  { title: "Threads", num: true, cell: (topic) => formatCount(topic.thread_count) },
  { title: `Last ${RECENT_DAYS} days`, num: true, cell: (topic) => formatCount(recent(topic.daily)) },
  { title: "Per day (UTC)", cell: (topic) => <Bars topic={topic} /> },
  {
    title: "Sample threads",
    wrap: "wide",
    cell: (topic) =>
      topic.sample_threads.length === 0 ? (
        <Dash />
      ) : (
        <ul class="samples">
          {topic.sample_threads.map((sample) => (
            <li key={sample.id}>
              <a href={href(projectId, "threads", sample.id)}>{sample.title || "Untitled thread"}</a>
            </li>
          ))}
        </ul>
      )
  }
]

/** When and over what the topics were made; before the first run, what there is to say yet. */
const About = ({ value }: { readonly value: TopicList }) => {
  const inTopics = value.topics.reduce((sum, topic) => sum + topic.thread_count, 0)
  const made = value.computed_at !== null
  return (
    <Facts
      items={[
        ["Computed", value.computed_at ? <Time key="c" at={value.computed_at} /> : "Not yet"],
        [
          "Window (UTC)",
          <>
            <Day at={value.window_from} /> to <Day at={value.window_to} />
          </>
        ],
        ["Topic ceiling", `at most ${formatCount(value.ceiling)}`],
        ...(made
          ? ([
              ["Topics", formatCount(value.topics.length)],
              ["Threads in topics", formatCount(inTopics)]
            ] as const)
          : []),
        ["Threads in no topic", formatCount(value.unassigned)]
      ]}
    />
  )
}

const TopicsShown = ({
  projectId,
  value,
  admin
}: ViewProps & { readonly value: TopicList; readonly admin: boolean }) => {
  const topics = useMemo(() => byThreads(value.topics), [value])
  // Made once per answer: the chart redraws only when its figures change.
  const chart = useMemo(() => {
    const top = topics.slice(0, CHARTED)
    return {
      days: (top[0]?.daily ?? []).map((day) => day.date),
      series: top.map(
        (topic): Series => ({
          label: nameOf(topic),
          values: topic.daily.map((day) => day.threads),
          format: formatCount
        })
      )
    }
  }, [topics])
  if (value.computed_at === null) {
    return (
      <>
        <Empty>
          No topics yet: the topics job has not grouped this project's threads. It runs on its own;{" "}
          {admin ? (
            <>
              an admin can run it now in <a href={href(projectId, "jobs")}>Jobs</a>.
            </>
          ) : (
            "an admin can run it now."
          )}
        </Empty>
        <About value={value} />
      </>
    )
  }
  return (
    <>
      <section aria-labelledby="topics-about">
        <h2 id="topics-about" class="sr-only">
          About these topics
        </h2>
        <About value={value} />
      </section>
      {topics.length === 0 ? (
        <Empty>
          {value.unassigned === 0
            ? "No topics: the window had no threads to group."
            : `No topics: the job found none among the window's ${threadsWord(value.unassigned)}, which are in no topic.`}
        </Empty>
      ) : (
        <>
          <section aria-labelledby="topics-by-day">
            <h2 id="topics-by-day">By day</h2>
            <div class="charts single">
              <Chart
                title={topics.length > CHARTED ? `Threads of the ${CHARTED} largest topics` : "Threads per topic"}
                days={chart.days}
                series={chart.series}
              />
            </div>
          </section>
          <section aria-labelledby="topics-all">
            <h2 id="topics-all">All topics, most threads first</h2>
            <Table
              label="Topics"
              columns={topicColumns(projectId)}
              rows={topics}
              rowKey={(topic) => topic.id}
              empty="No topics."
            />
          </section>
        </>
      )}
    </>
  )
}

const TopicOverview = (props: ViewProps) => {
  useTitle("Topics")
  const loaded = useLoad(props.projectId, loadTopics(props.projectId))
  return (
    <>
      <h1>Topics</h1>
      <p class="hint">
        What the project's users talk about: the topics job groups the window's threads by the words of their users'
        messages, each topic named by its most distinctive words.
      </p>
      <Show loaded={loaded} what="the topics">
        {(value) => <TopicsShown {...props} value={value} admin={props.sessionKind === "admin"} />}
      </Show>
    </>
  )
}

/** One topic's threads: a page of them, and whether a thread follows a cursor (KeysetTable's `more`). */
const topicThreads = {
  key: (projectId: string, topicId: string, query: URLSearchParams) => `${projectId}/${topicId}?${query}`,
  load:
    (projectId: string, topicId: string, query: URLSearchParams): Load<ReadonlyArray<ProjectThread>> =>
    (signal) => {
      const paging = readPaging(query)
      const urlParams = { limit: paging.limit, ...(paging.after ? { after: paging.after } : {}) }
      const path = { project_id: projectId, topic_id: topicId }
      return run(client.topicThreads({ path, urlParams }), { signal }).then(({ threads }) => threads)
    },
  more:
    (projectId: string, topicId: string) =>
    (after: string, signal: AbortSignal): Promise<boolean> => {
      const path = { project_id: projectId, topic_id: topicId }
      return run(client.topicThreads({ path, urlParams: { limit: 1, after } }), { signal }).then(
        ({ threads }) => threads.length > 0
      )
    }
}

const threadColumns = (projectId: string): ReadonlyArray<Column<ProjectThread>> => [
  {
    title: "Title",
    wrap: "wide",
    cell: (thread) => <a href={href(projectId, "threads", thread.id)}>{thread.title || "Untitled thread"}</a>
  },
  { title: "Id", cell: (thread) => <ShortId id={thread.id} /> },
  { title: "Workspace", cell: (thread) => thread.workspace_id },
  { title: "Created", cell: (thread) => <Time at={thread.created_at} /> },
  { title: "Last message", cell: (thread) => <Time at={thread.last_message_at} /> },
  { title: "Archived", cell: (thread) => archived(thread.is_archived) }
]

/** A failure of the topic's threads: a topic this project does not have (now) is said as such. */
const ThreadsFailed = ({ error, projectId }: { readonly error: CallError; readonly projectId: string }) =>
  error.status === 404 ? (
    <p class="state error" role="alert">
      Not found: this project has no topic with this id. The topics may have been grouped again since this link was
      made; see <a href={href(projectId, "topics")}>the project's topics</a>.
    </p>
  ) : (
    <ErrorText error={error} what="the topic's threads" />
  )

const TopicFacts = ({ topic }: { readonly topic: Topic }) => {
  const days = useMemo(() => topic.daily.map((day) => day.date), [topic])
  const series = useMemo(
    (): ReadonlyArray<Series> => [
      { label: "Threads", values: topic.daily.map((day) => day.threads), format: formatCount }
    ],
    [topic]
  )
  return (
    <>
      <div class="topic-facts">
        <Facts
          items={[
            ["Keywords", topic.keywords.join(", ") || "—"],
            ["Threads", formatCount(topic.thread_count)],
            [`Last ${RECENT_DAYS} days`, formatCount(recent(topic.daily))],
            ["Id", <ShortId key="id" id={topic.id} />]
          ]}
        />
      </div>
      {days.length > 0 ? (
        <div class="charts single">
          <Chart title="Threads of this topic" days={days} series={series} />
        </div>
      ) : null}
    </>
  )
}

const TopicDetail = ({ projectId, query, topicId }: ViewProps & { readonly topicId: string }) => {
  const topics = useLoad(projectId, loadTopics(projectId))
  const threads = useLoad(topicThreads.key(projectId, topicId, query), topicThreads.load(projectId, topicId, query))
  const topic = topics.state === "ok" ? topics.value.topics.find((each) => each.id === topicId) : undefined
  const title = topic ? nameOf(topic) : "Topic"
  useTitle(title)
  return (
    <>
      <p class="crumbs">
        <a href={href(projectId, "topics")}>Topics</a> /
      </p>
      <h1>{title}</h1>
      <TopicHead topics={topics} topic={topic} />
      <section aria-labelledby="topic-threads">
        <h2 id="topic-threads">Threads of this topic</h2>
        <TopicThreadList projectId={projectId} topicId={topicId} query={query} threads={threads} />
      </section>
    </>
  )
}

const TopicHead = ({ topics, topic }: { readonly topics: Loaded<TopicList>; readonly topic: Topic | undefined }) => {
  if (topics.state === "error") return <ErrorText error={topics.error} what="the topic" />
  if (topics.state === "loading" || topic === undefined) return null
  return <TopicFacts topic={topic} />
}

const TopicThreadList = (props: {
  readonly projectId: string
  readonly topicId: string
  readonly query: URLSearchParams
  readonly threads: Loaded<ReadonlyArray<ProjectThread>>
}) => {
  const { projectId, topicId, query, threads } = props
  if (threads.state === "error") return <ThreadsFailed error={threads.error} projectId={projectId} />
  return (
    <Show loaded={threads} what="the topic's threads">
      {(rows) => (
        <KeysetTable
          label="Threads"
          columns={threadColumns(projectId)}
          rows={rows}
          paging={readPaging(query)}
          more={topicThreads.more(projectId, topicId)}
          moreKey={topicThreads.key(projectId, topicId, query)}
        />
      )}
    </Show>
  )
}

/** The topics, or (`itemId`) one topic's threads. */
export const Topics = (props: ViewProps & { readonly itemId: string | undefined }) =>
  props.itemId === undefined ? <TopicOverview {...props} /> : <TopicDetail {...props} topicId={props.itemId} />
