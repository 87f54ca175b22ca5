/** A thread's conversation: one branch of its message tree, with a switcher wherever a message has siblings. */
import { Component } from "preact"
import { useEffect, useMemo, useRef, useState } from "preact/hooks"
import type { MessageFeedback } from "../../schema/Dashboard.js"
import type { Message } from "../../schema/Message.js"
import { formatCount } from "../format.js"
import { useSettled } from "../settle.js"
import { Badge, Empty, Loading, ShortId, Time } from "../ui.js"
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

interface MessageProps {
  readonly turn: Turn
  readonly feedback: ReadonlyArray<Feedback>
  readonly target: boolean
  /** Laid out when in view, until the list settles (settle.ts). */
  readonly later: boolean
  readonly onPick: (turn: Turn, index: number) => void
}

/**
 * A message, drawn again only when what it shows changed: the conversation is
 * drawn again as each page of a long thread comes, and the messages already
 * there stay as they are. A long thread draws a thousand of these at once, so
 * the small pieces inside (time, badge, id, content) are called as functions,
 * not made components of their own: the same elements, with less work each.
 */
class MessageItem extends Component<MessageProps> {
  override shouldComponentUpdate(next: MessageProps): boolean {
    const now = this.props
    return (
      next.turn.message !== now.turn.message ||
      next.turn.index !== now.turn.index ||
      next.turn.count !== now.turn.count ||
      next.feedback !== now.feedback ||
      next.target !== now.target ||
      next.later !== now.later ||
      next.onPick !== now.onPick
    )
  }

  override render() {
    const { turn, feedback, target, later, onPick } = this.props
    const { message } = turn
    const role = roleOf(message.content) ?? "message"
    return (
      <article
        id={`message-${message.id}`}
        class={`message role-${role.replace(/[^a-z]/g, "")}${target ? " target" : ""}${later ? " later" : ""}`}
        aria-label={`${role} message`}
      >
        <header class="message-head">
          <strong class="role">{role}</strong>
          {Time({ at: message.created_at })}
          {Badge({ children: message.format })}
          {ShortId({ id: message.id })}
          {turn.count > 1 ? <Switcher turn={turn} onPick={(index) => onPick(turn, index)} /> : null}
        </header>
        {MessageContent({ format: message.format, content: message.content })}
        {feedback.length > 0 ? <FeedbackList items={feedback} /> : null}
      </article>
    )
  }
}

const NO_FEEDBACK: ReadonlyArray<Feedback> = []

export const Conversation = (props: {
  readonly messages: ReadonlyArray<Message>
  /** False while more pages of the thread are on their way. */
  readonly complete: boolean
  readonly feedback: ReadonlyArray<Feedback>
  /** A message to show (its branch chosen) and scroll to, from the URL. */
  readonly target: string | undefined
}) => {
  const tree = useMemo(() => buildTree(props.messages), [props.messages])
  // The branch chosen at each fork. A link to another message of this thread (`target` changing) adds the
  // choices that lead to it, once that message has come (`found`); they are kept during this render, so
  // that it shows the message's branch already.
  const found = props.target !== undefined && tree.byId.has(props.target)
  const [choice, setChoice] = useState(() => ({
    target: props.target,
    found,
    chosen: pathTo(tree, found ? props.target : undefined)
  }))
  const arrived = choice.target !== props.target || (found && !choice.found)
  const chosen = arrived
    ? new Map([...choice.chosen, ...pathTo(tree, found ? props.target : undefined)])
    : choice.chosen
  if (arrived) setChoice({ target: props.target, found, chosen })
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
    if (props.target && found) document.getElementById(`message-${props.target}`)?.scrollIntoView({ block: "center" })
  }, [props.target, found])

  // One function for every message (the tree it looks in kept current), so that a message is not drawn
  // again for a new one.
  const treeNow = useRef(tree)
  treeNow.current = tree
  const [pick] = useState(() => (turn: Turn, index: number) => {
    const sibling = treeNow.current.children.get(turn.fork)?.[index]
    if (sibling) setChoice((now) => ({ ...now, chosen: new Map(now.chosen).set(turn.fork, sibling.id) }))
  })

  const settled = useSettled(turns.length, props.complete)

  if (turns.length === 0) {
    return props.complete ? <Empty>This thread has no messages.</Empty> : <Loading what="the messages" />
  }
  return (
    <div class="conversation">
      {turns.map((turn, i) => (
        // Keyed by the fork: switching a branch keeps the switcher (and its focus) in place.
        <MessageItem
          key={turn.fork}
          turn={turn}
          feedback={feedback.get(turn.message.id) ?? NO_FEEDBACK}
          target={turn.message.id === props.target}
          later={i >= settled}
          onPick={pick}
        />
      ))}
      {props.complete ? (
        <p class="muted">
          {turns.length} of {props.messages.length} messages shown (this branch).
        </p>
      ) : (
        <Loading what={`more messages (${formatCount(props.messages.length)} so far)`} />
      )}
    </div>
  )
}
