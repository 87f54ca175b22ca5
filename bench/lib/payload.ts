/** What the workloads send, shared by the gateway runs, the baselines and pgbench. */

export const FORMAT = "svc/v0"
export const LAST_MESSAGE_AT = "2026-11-22T10:15:30.123Z"

const FILLER = "The quick brown fox jumps over the lazy dog while the assistant drafts a reply. "

/**
 * A message content object of exactly `bytes` bytes once serialized (ASCII).
 * It holds no single quote (pgbench embeds it in a SQL literal) and no colon
 * before a letter or digit (pgbench would read it as a variable).
 */
export const messageContent = (bytes = 1024): Record<string, unknown> => {
  const shell = JSON.stringify({ role: "user", parts: [{ type: "text", text: "" }] })
  const room = Math.max(0, bytes - shell.length)
  let text = ""
  while (text.length < room) text += FILLER
  return { role: "user", parts: [{ type: "text", text: text.slice(0, room) }] }
}

export const CONTENT = messageContent()
export const CONTENT_JSON = JSON.stringify(CONTENT)

export const appendBody = (parentId: string | null): string =>
  `{"parent_id":${parentId === null ? "null" : JSON.stringify(parentId)},"format":"${FORMAT}","content":${CONTENT_JSON}}`

export const createThreadBody = JSON.stringify({ last_message_at: LAST_MESSAGE_AT })
