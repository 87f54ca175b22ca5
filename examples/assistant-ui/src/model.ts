import type { ChatModelAdapter, ThreadMessage } from "@assistant-ui/react"

/** A message's text parts, joined. */
const textOf = (message: ThreadMessage): string =>
  message.content
    .map((part) => (part.type === "text" ? part.text : ""))
    .join("")
    .trim()

/**
 * The model: the app server's `/api/chat` (server.mjs), a local stand-in that streams a plain-text
 * answer; nothing leaves the machine. A real app points this at its model instead.
 */
export const localModel: ChatModelAdapter = {
  async *run({ messages, abortSignal }) {
    const response = await fetch("/api/chat", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ messages: messages.map((message) => ({ role: message.role, text: textOf(message) })) }),
      signal: abortSignal
    })
    if (!response.ok || response.body === null) throw new Error(`the model answered ${response.status}`)
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader()
    let text = ""
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      text += value
      yield { content: [{ type: "text", text }] }
    }
  }
}
