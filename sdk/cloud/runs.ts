import { AssistantStream, type AssistantStreamChunk, PlainTextDecoder } from "assistant-stream"
import type { Transport } from "../core/request.js"
import type { CloudRunReport } from "./misc.js"
import { openRunStream, type RunStreamBody } from "./runStream.js"
import { idOf } from "./shapes.js"

/** A text chunk of the title stream (`{ type: "text-delta", textDelta }`, with the part's path). */
export type TextDeltaChunk = Extract<AssistantStreamChunk, { readonly type: "text-delta" }>

export type { RunStreamBody } from "./runStream.js"

export const makeRuns = (transport: Transport) => ({
  /**
   * Streams the thread title (assistant `system/thread_title`) as the streaming helper package's
   * `AssistantStream`, the type the original returns and assistant-ui's title generation reads
   * (docs/decisions.md "assistant-ui as the cloud client (issue 26)"): the plain-text answer
   * decoded by its `PlainTextDecoder` into a text part (`part-start`, `text-delta` chunks,
   * `part-finish`).
   */
  stream: async (body: RunStreamBody): Promise<AssistantStream> =>
    AssistantStream.fromResponse(await openRunStream(transport, body), new PlainTextDecoder()),
  report: (report: CloudRunReport): Promise<{ run_id: string }> =>
    transport.json("/runs", { method: "POST", body: report }).then((answer) => ({ run_id: idOf(answer, "run_id") }))
})
