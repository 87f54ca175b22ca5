/**
 * The text of a conversation as the client sends it to the title route. The
 * messages are read leniently (svc/v0 and AI-SDK-like shapes): only roles and
 * text parts count; anything else is ignored.
 */

import { isPlainObject } from "../../schema/Common.js"

export interface Turn {
  readonly role: string
  readonly text: string
}

const partText = (part: unknown): string | undefined => {
  if (typeof part === "string") return part
  if (!isPlainObject(part)) return undefined
  if ((part.type === "text" || part.type === undefined) && typeof part.text === "string") return part.text
  return undefined
}

const contentText = (content: unknown): string => {
  if (typeof content === "string") return content
  if (Array.isArray(content)) {
    const texts: Array<string> = []
    for (const part of content) {
      const text = partText(part)
      if (text !== undefined) texts.push(text)
    }
    return texts.join("\n")
  }
  return ""
}

/** A message's text: `content` (string or parts), else `parts` (AI SDK), else a nested `{ content: message }`. */
const messageText = (message: Record<string, unknown>): string => {
  const direct = contentText(message.content)
  if (direct.trim() !== "") return direct
  const parts = contentText(message.parts)
  if (parts.trim() !== "") return parts
  // A stored message row ({ format, content: { role, content } }) carries the message one level down.
  return isPlainObject(message.content)
    ? contentText(message.content.content) || contentText(message.content.parts)
    : ""
}

const messageRole = (message: Record<string, unknown>): string => {
  if (typeof message.role === "string") return message.role
  if (isPlainObject(message.content) && typeof message.content.role === "string") return message.content.role
  return "user"
}

/** The turns that carry text, in order. */
export const toTurns = (messages: ReadonlyArray<Record<string, unknown>>): Array<Turn> => {
  const turns: Array<Turn> = []
  for (const message of messages) {
    const text = messageText(message)
    if (text.trim() !== "") turns.push({ role: messageRole(message), text })
  }
  return turns
}
