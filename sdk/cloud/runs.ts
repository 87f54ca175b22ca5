import { AssistantStream, type AssistantStreamChunk, PlainTextDecoder } from "assistant-stream"
import type { RunStreamRequest } from "../../schema/Title.js"
import { CloudResponseError } from "../core/errors.js"
import { discard, type Transport } from "../core/request.js"
import type { CloudRunReport } from "./misc.js"
import { idOf } from "./shapes.js"

/** A text chunk of the title stream (`{ type: "text-delta", textDelta }`, with the part's path). */
export type TextDeltaChunk = Extract<AssistantStreamChunk, { readonly type: "text-delta" }>

export type RunStreamBody = (typeof RunStreamRequest)["Encoded"]

export const makeRuns = (transport: Transport) => ({
  /**
   * Streams the thread title (assistant `system/thread_title`) as the streaming helper package's
   * `AssistantStream`, the type the original returns and assistant-ui's title generation reads
   * (docs/decisions.md "assistant-ui as the cloud client (issue 26)"): the plain-text answer
   * decoded by its `PlainTextDecoder` into a text part (`part-start`, `text-delta` chunks,
   * `part-finish`).
   */
  stream: async (body: RunStreamBody): Promise<AssistantStream> => {
    const response = await transport.raw("/runs/stream", { method: "POST", body, headers: { Accept: "text/plain" } })
    const type = response.headers.get("content-type") ?? ""
    if (response.body === null || !type.toLowerCase().startsWith("text/plain")) {
      discard(response)
      throw CloudResponseError.field("run stream", "a text/plain body")
    }
    return AssistantStream.fromResponse(response, new PlainTextDecoder())
  },
  report: (report: CloudRunReport): Promise<{ run_id: string }> =>
    transport.json("/runs", { method: "POST", body: report }).then((answer) => ({ run_id: idOf(answer, "run_id") }))
})
