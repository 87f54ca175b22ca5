/** One thread: its conversation, and beside it the thread's runs and scores. */
import type { ComponentChildren } from "preact"
import { type ThreadDetailValue, thread } from "../data.js"
import { formatCost, formatCount } from "../format.js"
import { type Loaded, useLoad, useProgress } from "../load.js"
import { href, type ViewProps } from "../router.js"
import { Badge, Empty, Facts, ShortId, Show, Time, useTitle } from "../ui.js"
import { RunStatus, scoreValue } from "./bits.js"
import { Conversation } from "./Conversation.js"
import { Json } from "./MessageContent.js"

const NO_FEEDBACK: ThreadDetailValue["feedback"] = []

type Side = {
  readonly projectId: string
  readonly threadId: string
  /**
   * The conversation is all there: the lists beside it are asked for then,
   * not before, so that their calls do not queue before the messages' pages
   * (the embedded store answers one query at a time).
   */
  readonly ready: boolean
}

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
  const loaded = useLoad(props.ready ? thread.key(projectId, threadId) : undefined, thread.runs(projectId, threadId))
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
  const loaded = useLoad(props.ready ? thread.key(projectId, threadId) : undefined, thread.scores(projectId, threadId))
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
  const key = thread.key(projectId, threadId)
  const detail = useLoad(key, thread.detail(projectId, threadId), thread.early.detail)
  const messages = useProgress(key, thread.messages(projectId, threadId), thread.early.messages)
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
          <Show loaded={messages.loaded} what="the messages">
            {(list) => (
              <Conversation
                messages={list}
                complete={messages.done}
                feedback={detail.state === "ok" ? detail.value.feedback : NO_FEEDBACK}
                target={query.get("message") ?? undefined}
              />
            )}
          </Show>
        </section>
        <aside class="side" aria-label="Runs and scores">
          <Runs projectId={projectId} threadId={threadId} ready={messages.done} />
          <Scores projectId={projectId} threadId={threadId} ready={messages.done} />
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
