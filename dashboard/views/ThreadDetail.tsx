/** One thread: its conversation, and beside it the thread's runs and scores. */
import type { ComponentChildren } from "preact"
import type { Message } from "../../schema/Message.js"
import { client, run } from "../api.js"
import { formatCost, formatCount } from "../format.js"
import { type Loaded, useLoad } from "../load.js"
import { href, type ViewProps } from "../router.js"
import { Badge, Empty, Facts, ShortId, Show, Time, useTitle } from "../ui.js"
import { RunStatus, scoreValue } from "./bits.js"
import { Conversation } from "./Conversation.js"
import { Json } from "./MessageContent.js"

/** Runs and scores shown beside the conversation; the rest are a link away. */
const SIDE_ROWS = 10

/** A page of the messages route holds at most this many. */
const MESSAGE_PAGE = 200
/** Enough for any thread the page is meant for (1,000 messages and more), and a stop for a runaway cursor. */
const MESSAGE_PAGES_MAX = 100

const allMessages = async (projectId: string, threadId: string, signal: AbortSignal) => {
  const messages: Array<Message> = []
  let after: string | undefined
  for (let page = 0; page < MESSAGE_PAGES_MAX; page++) {
    const urlParams = { limit: MESSAGE_PAGE, ...(after ? { after } : {}) }
    const answer = await run(
      client.dashboard.messages({ path: { project_id: projectId, thread_id: threadId }, urlParams }),
      { signal }
    )
    messages.push(...answer.messages)
    const last = answer.messages[answer.messages.length - 1]
    if (answer.messages.length < MESSAGE_PAGE || !last) break
    after = last.id
  }
  return messages
}

type Side = { readonly projectId: string; readonly threadId: string }

/** One of the lists beside the conversation: its first rows, and a link to the whole list, filtered to the thread. */
const SideList = <A extends { readonly id: string }>(
  props: Side & {
    readonly section: "runs" | "scores"
    readonly loaded: Loaded<ReadonlyArray<A>>
    readonly item: (value: A) => ComponentChildren
  }
) => {
  const { section } = props
  const title = section === "runs" ? "Runs" : "Scores"
  const all = href(props.projectId, section, undefined, { thread_id: props.threadId })
  return (
    <section aria-labelledby={`thread-${section}`}>
      <h2 id={`thread-${section}`}>{title}</h2>
      <Show loaded={props.loaded} what={section}>
        {(rows) =>
          rows.length === 0 ? (
            <Empty>{`No ${section} for this thread.`}</Empty>
          ) : (
            <ul class="cards">
              {rows.map((row) => (
                <li key={row.id}>{props.item(row)}</li>
              ))}
            </ul>
          )
        }
      </Show>
      <p>
        <a href={all}>{`All ${section} of this thread`}</a>
      </p>
    </section>
  )
}

const Runs = (props: Side) => {
  const { projectId, threadId } = props
  const urlParams = { thread_id: threadId, limit: SIDE_ROWS }
  const loaded = useLoad(`${projectId}/${threadId}`, (signal) =>
    run(client.dashboard.runs({ path: { project_id: projectId }, urlParams }), { signal }).then(({ runs }) => runs)
  )
  return (
    <SideList
      {...props}
      section="runs"
      loaded={loaded}
      item={(each) => (
        <>
          <a href={href(projectId, "runs", each.id)}>{each.model_id ?? "Run"}</a> <RunStatus status={each.status} />
          <div class="muted">
            <Time at={each.created_at} /> · {formatCount((each.input_tokens ?? 0) + (each.output_tokens ?? 0))} tokens ·{" "}
            {formatCost(each.cost_usd)}
          </div>
        </>
      )}
    />
  )
}

const Scores = (props: Side) => {
  const { projectId, threadId } = props
  const urlParams = { thread_id: threadId, limit: SIDE_ROWS }
  const loaded = useLoad(`${projectId}/${threadId}`, (signal) =>
    run(client.dashboard.scores({ path: { project_id: projectId }, urlParams }), { signal }).then(
      ({ scores }) => scores
    )
  )
  return (
    <SideList
      {...props}
      section="scores"
      loaded={loaded}
      item={(score) => (
        <>
          <strong>{score.name}</strong>: {scoreValue(score)}
          {score.comment ? <div class="muted">{score.comment}</div> : null}
          <div class="muted">
            {score.run_id ? <a href={href(projectId, "runs", score.run_id)}>Run</a> : null}
            {score.message_id ? (
              <a href={href(projectId, "threads", threadId, { message: score.message_id })}> Message</a>
            ) : null}{" "}
            <Time at={score.created_at} />
          </div>
        </>
      )}
    />
  )
}

export const ThreadDetail = ({ projectId, query, threadId }: ViewProps & { readonly threadId: string }) => {
  const path = { project_id: projectId, thread_id: threadId }
  const detail = useLoad(`${projectId}/${threadId}`, (signal) => run(client.dashboard.thread({ path }), { signal }))
  const messages = useLoad(`${projectId}/${threadId}`, (signal) => allMessages(projectId, threadId, signal))
  const title = detail.state === "ok" ? detail.value.thread.title || "Untitled thread" : "Thread"
  useTitle(title)
  return (
    <>
      <p class="crumbs">
        <a href={href(projectId, "threads")}>Threads</a> /
      </p>
      <h1>{title}</h1>
      <Show loaded={detail} what="the thread">
        {({ thread }) => (
          <Facts
            items={[
              ["Id", <ShortId key="id" id={thread.id} />],
              ["User", thread.user_id],
              ["Workspace", thread.workspace_id],
              ["Messages", formatCount(thread.message_count)],
              ["Created", <Time key="c" at={thread.created_at} />],
              ["Last message", <Time key="l" at={thread.last_message_at} />],
              ["Archived", thread.is_archived ? <Badge key="a">Archived</Badge> : "No"],
              ...(thread.external_id ? [["External id", thread.external_id] as const] : [])
            ]}
          />
        )}
      </Show>
      <div class="split">
        <section class="primary" aria-labelledby="conversation">
          <h2 id="conversation">Conversation</h2>
          <Show loaded={messages} what="the messages">
            {(list) => (
              <Conversation
                messages={list}
                feedback={detail.state === "ok" ? detail.value.feedback : []}
                target={query.get("message") ?? undefined}
              />
            )}
          </Show>
        </section>
        <aside class="side" aria-label="Runs and scores">
          <Runs projectId={projectId} threadId={threadId} />
          <Scores projectId={projectId} threadId={threadId} />
        </aside>
      </div>
      {detail.state === "ok" && detail.value.thread.metadata != null ? (
        <details>
          <summary>Thread metadata</summary>
          <Json value={detail.value.thread.metadata} />
        </details>
      ) : null}
    </>
  )
}
