import type { RunStreamRequest } from "../../schema/Title.js"
import { CloudResponseError } from "../core/errors.js"
import { discard, type Transport } from "../core/request.js"

export type RunStreamBody = (typeof RunStreamRequest)["Encoded"]

/**
 * The title stream's response (assistant `system/thread_title`), checked to
 * be a plain-text body: the promise client wraps it in an `AssistantStream`
 * (runs.ts), the Effect client reads its text as it is. Apart from runs.ts
 * so that the Effect entry does not carry the `assistant-stream` package.
 */
export const openRunStream = async (transport: Transport, body: RunStreamBody): Promise<Response> => {
  const response = await transport.raw("/runs/stream", { method: "POST", body, headers: { Accept: "text/plain" } })
  const type = response.headers.get("content-type") ?? ""
  if (response.body === null || !type.toLowerCase().startsWith("text/plain")) {
    discard(response)
    throw CloudResponseError.field("run stream", "a text/plain body")
  }
  return response
}
