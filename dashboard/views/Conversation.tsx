/** A thread's conversation: one branch of its message tree, with a switcher wherever a message has siblings. */
import { useEffect, useMemo, useState } from "preact/hooks"
import type { MessageFeedback } from "../../schema/Dashboard.js"
import type { Message } from "../../schema/Message.js"
import { Badge, Empty, ShortId, Time } from "../ui.js"
import { MessageContent, roleOf } from "./MessageContent.js"
import { buildTree, pathTo, type Turn, visiblePath } from "./tree.js"

type Feedback = typeof MessageFeedback.Type

const Switcher = (props: { readonly turn: Turn; readonly onPick: (index: number) => void }) => {
  const { index, count } = props.turn
  return (
    <fieldset class="branches">
      <legend class="sr-only">Branches</legend>
      <button type="button" class="icon" disabled={index === 0} onClick={() => props.onPick(index - 1)}>
        <span aria-hidden="true">‹</span>
        <span class="sr-only">Previous branch</span>
      </button>
      <span class="count">
        {index + 1} / {count}
      </span>
      <button type="button" class="icon" disabled={index === count - 1} onClick={() => props.onPick(index + 1)}>
        <span aria-hidden="true">›</span>
        <span class="sr-only">Next branch</span>
      </button>
    </fieldset>
  )
}

const FeedbackList = ({ items }: { readonly items: ReadonlyArray<Feedback> }) => (
  <ul class="feedback" aria-label="Feedback">
    {items.map((item, i) => (
      <li key={i}>
        <Badge tone={item.type === "positive" ? "good" : "bad"}>
          {item.type === "positive" ? "Positive feedback" : "Negative feedback"}
        </Badge>{" "}
        {item.comment ? <q>{item.comment}</q> : null} <span class="muted">by {item.user_id}, </span>
        <Time at={item.created_at} />
      </li>
    ))}
  </ul>
)

const MessageView = (props: {
  readonly turn: Turn
  readonly feedback: ReadonlyArray<Feedback>
  readonly target: boolean
  readonly onPick: (index: number) => void
}) => {
  const { message } = props.turn
  const role = roleOf(message.content) ?? "message"
  return (
    <article
      id={`message-${message.id}`}
      class={`message role-${role.replace(/[^a-z]/g, "")}${props.target ? " target" : ""}`}
      aria-label={`${role} message`}
    >
      <header class="message-head">
        <strong class="role">{role}</strong>
        <Time at={message.created_at} />
        <Badge>{message.format}</Badge>
        <ShortId id={message.id} />
        {props.turn.count > 1 ? <Switcher turn={props.turn} onPick={props.onPick} /> : null}
      </header>
      <MessageContent format={message.format} content={message.content} />
      {props.feedback.length > 0 ? <FeedbackList items={props.feedback} /> : null}
    </article>
  )
}

export const Conversation = (props: {
  readonly messages: ReadonlyArray<Message>
  readonly feedback: ReadonlyArray<Feedback>
  /** A message to show (its branch chosen) and scroll to, from the URL. */
  readonly target: string | undefined
}) => {
  const tree = useMemo(() => buildTree(props.messages), [props.messages])
  // The branch chosen at each fork. A link to another message of this thread (`target` changing) adds the
  // choices that lead to it; they are kept during this render, so that it shows the message's branch already.
  const [choice, setChoice] = useState(() => ({ target: props.target, chosen: pathTo(tree, props.target) }))
  const chosen =
    choice.target === props.target ? choice.chosen : new Map([...choice.chosen, ...pathTo(tree, props.target)])
  if (choice.target !== props.target) setChoice({ target: props.target, chosen })
  const turns = useMemo(() => visiblePath(tree, chosen), [tree, chosen])
  const feedback = useMemo(() => {
    const byMessage = new Map<string, Array<Feedback>>()
    for (const item of props.feedback) {
      const list = byMessage.get(item.message_id)
      if (list) list.push(item)
      else byMessage.set(item.message_id, [item])
    }
    return byMessage
  }, [props.feedback])

  useEffect(() => {
    if (props.target) document.getElementById(`message-${props.target}`)?.scrollIntoView({ block: "center" })
  }, [props.target])

  if (turns.length === 0) return <Empty>This thread has no messages.</Empty>
  const pick = (turn: Turn, index: number) => {
    const sibling = tree.children.get(turn.fork)?.[index]
    if (sibling) setChoice((now) => ({ target: now.target, chosen: new Map(now.chosen).set(turn.fork, sibling.id) }))
  }
  return (
    <div class="conversation">
      {turns.map((turn) => (
        // Keyed by the fork: switching a branch keeps the switcher (and its focus) in place.
        <MessageView
          key={turn.fork}
          turn={turn}
          feedback={feedback.get(turn.message.id) ?? []}
          target={turn.message.id === props.target}
          onPick={(index) => pick(turn, index)}
        />
      ))}
      <p class="muted">
        {turns.length} of {props.messages.length} messages shown (this branch).
      </p>
    </div>
  )
}
