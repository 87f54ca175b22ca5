import type { AssistantCloud } from "./AssistantCloud.js"
import type { RunStreamBody } from "./runs.js"

/**
 * Streams `system/thread_title` for the thread, joins its text deltas and
 * trims them; a non-empty title is written to the thread and returned, an
 * empty one gives null and writes nothing.
 */
export const generateThreadTitle = async (
  cloud: AssistantCloud,
  { threadId, messages }: { readonly threadId: string; readonly messages: RunStreamBody["messages"] }
): Promise<string | null> => {
  const stream = await cloud.runs.stream({ thread_id: threadId, assistant_id: "system/thread_title", messages })
  const reader = stream.getReader()
  let text = ""
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    if (value.type === "text-delta") text += value.textDelta
  }
  const title = text.trim()
  if (title === "") return null
  await cloud.threads.update(threadId, { title })
  return title
}
