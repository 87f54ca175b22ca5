import type { UIMessage } from "ai"
import type { MessageFormatAdapter } from "../blocks/persistence.js"

/** How an AI SDK message is stored under `ai-sdk/v6`: the message without its id (the row's id replaces it). */
export type AISDKStorageFormat = Omit<UIMessage, "id">

/**
 * The `ai-sdk/v6` message format: `encode` stores a `UIMessage` without its
 * `id`; `decode` gives it back under the server's id, with the row's parent.
 */
export const aiSDKV6FormatAdapter: MessageFormatAdapter<UIMessage, AISDKStorageFormat> = {
  format: "ai-sdk/v6",
  encode: ({ message: { id: _id, ...stored } }) => stored,
  decode: ({ id, parent_id, content }) => ({ parentId: parent_id, message: { id, ...content } }),
  getId: (message) => message.id
}
