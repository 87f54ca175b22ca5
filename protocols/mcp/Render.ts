/**
 * Text renderings of tool results, and the bounds that keep one call from
 * flooding an agent's context: a result's structured part stays under
 * RESULT_MAX_BYTES (pages are cut there, with a cursor to read on) and a
 * text inside a rendering under TEXT_MAX_CHARS (cut with a note).
 */
import { messageText } from "../../src/platform/text/SearchText.js"

/** The serialized structured result, at most (UTF-8 bytes). */
export const RESULT_MAX_BYTES = 256 * 1024
/** A message or output text in a rendering, at most (characters). */
export const TEXT_MAX_CHARS = 2_000

/** The items that fit within `budget` bytes serialized (at least one, so a page always moves on). */
export const fitting = <A>(items: ReadonlyArray<A>, budget: number): Array<A> => {
  const kept: Array<A> = []
  let used = 0
  for (const item of items) {
    used += Buffer.byteLength(JSON.stringify(item), "utf8") + 1
    if (kept.length > 0 && used > budget) break
    kept.push(item)
  }
  return kept
}

/** A text cut at TEXT_MAX_CHARS, saying how much was left out and where the rest is. */
export const cut = (text: string, whereTheRestIs: string): string =>
  text.length <= TEXT_MAX_CHARS
    ? text
    : `${text.slice(0, TEXT_MAX_CHARS)}… [cut: ${text.length - TEXT_MAX_CHARS} more characters; ${whereTheRestIs}]`

export const nextPage = (tool: string, next: string | number | null, extra = ""): string =>
  next === null
    ? "Last page."
    : typeof next === "number"
      ? `More results: call ${tool} again with offset=${next}${extra}.`
      : `More: call ${tool} again with after="${next}"${extra}.`

interface ThreadLike {
  readonly id: string
  readonly title: string | null
  readonly workspace_id: string
  readonly last_message_at: string
  readonly is_archived: boolean
}

export const threadLine = (thread: ThreadLike): string =>
  `- ${thread.id} · ${thread.title === null || thread.title === "" ? "(untitled)" : JSON.stringify(thread.title)} · workspace ${thread.workspace_id} · last message ${thread.last_message_at}${thread.is_archived ? " · archived" : ""}`

interface MessageLike {
  readonly id: string
  readonly format: string
  readonly created_at: string
  readonly content: Readonly<Record<string, unknown>>
}

/** One message as a transcript entry: its role and text (or a note that its format has no text the gateway reads). */
export const messageEntry = (message: MessageLike, threadId: string): string => {
  const role = typeof message.content.role === "string" ? message.content.role : "message"
  const text = messageText(message.format, message.content)
  const body =
    text.trim() === ""
      ? `(${message.format} content; see structuredContent)`
      : cut(text, `get_thread with thread_id="${threadId}" has the whole message in structuredContent`)
  return `[${message.id} · ${role} · ${message.created_at}]\n${body}`
}

export const countsLine = (counts: Readonly<Record<string, unknown>>): string =>
  Object.entries(counts)
    .map(([key, value]) => `${key} ${String(value)}`)
    .join(", ")
