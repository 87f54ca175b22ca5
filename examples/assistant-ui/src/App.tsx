import {
  AssistantRuntimeProvider,
  ComposerPrimitive,
  MessagePrimitive,
  ThreadListItemPrimitive,
  ThreadListPrimitive,
  ThreadPrimitive,
  useLocalRuntime
} from "@assistant-ui/react"
import type { AssistantCloud } from "svc-client"
import { localModel } from "./model.js"

/** One message: who said it (read by screen readers as the article's name) and its parts. */
const Message = ({ who }: { readonly who: "You" | "Assistant" }) => (
  <MessagePrimitive.Root className={`message ${who === "You" ? "user" : "assistant"}`} role="article" aria-label={who}>
    <span className="who" aria-hidden="true">
      {who}
    </span>
    <div className="bubble">
      <MessagePrimitive.Parts />
    </div>
  </MessagePrimitive.Root>
)
const UserMessage = () => <Message who="You" />
const AssistantMessage = () => <Message who="Assistant" />

const ThreadListItem = () => (
  <ThreadListItemPrimitive.Root className="thread-item">
    <ThreadListItemPrimitive.Trigger className="thread-trigger">
      <ThreadListItemPrimitive.Title fallback="New chat" />
    </ThreadListItemPrimitive.Trigger>
  </ThreadListItemPrimitive.Root>
)

/**
 * The chat: assistant-ui's local runtime with the svc client as its cloud. The cloud gives the
 * thread list (the anonymous user's threads), stores every message, loads a thread's history when
 * it is opened, and names a thread from its first turn (the gateway's title stream).
 */
export const App = ({ cloud }: { readonly cloud: AssistantCloud }) => {
  const runtime = useLocalRuntime(localModel, { cloud })
  return (
    <AssistantRuntimeProvider runtime={runtime}>
      <div className="layout">
        <nav className="sidebar" aria-label="Threads">
          <ThreadListPrimitive.Root className="thread-list">
            <ThreadListPrimitive.New className="new-thread">New thread</ThreadListPrimitive.New>
            <ThreadListPrimitive.Items components={{ ThreadListItem }} />
          </ThreadListPrimitive.Root>
        </nav>
        <main className="chat">
          <h1 className="visually-hidden">Chat</h1>
          <ThreadPrimitive.Root className="thread">
            <ThreadPrimitive.Viewport className="viewport" role="log" aria-label="Messages">
              <ThreadPrimitive.Empty>
                <p className="empty">Ask anything: the answers come from a local stand-in model.</p>
              </ThreadPrimitive.Empty>
              <ThreadPrimitive.Messages components={{ UserMessage, AssistantMessage }} />
            </ThreadPrimitive.Viewport>
            <ComposerPrimitive.Root className="composer">
              <ComposerPrimitive.Input className="input" aria-label="Message" placeholder="Write a message" />
              <ComposerPrimitive.Send className="send">Send</ComposerPrimitive.Send>
            </ComposerPrimitive.Root>
          </ThreadPrimitive.Root>
        </main>
      </div>
    </AssistantRuntimeProvider>
  )
}
