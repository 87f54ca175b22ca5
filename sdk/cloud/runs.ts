import type { RunStreamRequest } from "../../schema/Title.js"
import { CloudResponseError } from "../core/errors.js"
import { discard, type Transport } from "../core/request.js"
import type { CloudRunReport } from "./misc.js"
import { idOf } from "./shapes.js"

/** A chunk of the title stream: the original client's text-delta chunk. */
export interface TextDeltaChunk {
  readonly type: "text-delta"
  readonly textDelta: string
}

export type RunStreamBody = (typeof RunStreamRequest)["Encoded"]

/** The text/plain answer as a stream of text deltas (one per decoded chunk). */
const textDeltas = (body: ReadableStream<Uint8Array>): ReadableStream<TextDeltaChunk> => {
  const decoder = new TextDecoder()
  return body.pipeThrough(
    new TransformStream<Uint8Array, TextDeltaChunk>({
      transform(bytes, controller) {
        const text = decoder.decode(bytes, { stream: true })
        if (text !== "") controller.enqueue({ type: "text-delta", textDelta: text })
      },
      flush(controller) {
        const text = decoder.decode()
        if (text !== "") controller.enqueue({ type: "text-delta", textDelta: text })
      }
    })
  )
}

export const makeRuns = (transport: Transport) => ({
  /** Streams the thread title (assistant `system/thread_title`) as text deltas. */
  stream: async (body: RunStreamBody): Promise<ReadableStream<TextDeltaChunk>> => {
    const response = await transport.raw("/runs/stream", { method: "POST", body, headers: { Accept: "text/plain" } })
    const type = response.headers.get("content-type") ?? ""
    if (response.body === null || !type.toLowerCase().startsWith("text/plain")) {
      discard(response)
      throw CloudResponseError.field("run stream", "a text/plain body")
    }
    return textDeltas(response.body)
  },
  report: (report: CloudRunReport): Promise<{ run_id: string }> =>
    transport.json("/runs", { method: "POST", body: report }).then((answer) => ({ run_id: idOf(answer, "run_id") }))
})
