/**
 * The example's model: a local, deterministic stand-in for a real provider,
 * built on the AI SDK's own in-process model (`MockLanguageModelV3` from
 * `ai/test`), so the chat runs with no network and no key. It speaks the
 * provider protocol a real model does (a stream of text deltas, tool calls,
 * usage and a finish reason), so everything downstream (streamText, UI
 * messages, telemetry spans) is the AI SDK's real code path.
 *
 * What it answers:
 * - "weather in <city>" asks for the `get_weather` tool, then, given the
 *   tool's result, answers with it (two steps);
 * - anything else is echoed back.
 */
import { simulateReadableStream } from "ai"
import { MockLanguageModelV3 } from "ai/test"

export const MODEL_ID = "local-echo-1"

type Model = MockLanguageModelV3
type CallOptions = Parameters<Model["doStream"]>[0]
type StreamPart = Awaited<ReturnType<Model["doStream"]>>["stream"] extends ReadableStream<infer P> ? P : never

/** The text of a prompt message's parts (text parts only). */
const textOf = (content: CallOptions["prompt"][number]["content"]): string =>
  typeof content === "string" ? content : content.map((part) => (part.type === "text" ? part.text : "")).join("")

/** About four characters a token, as tokenizers of English average. */
const tokens = (text: string): number => Math.max(1, Math.ceil(text.length / 4))

const usage = (input: number, output: number) => ({
  inputTokens: { total: input, noCache: input, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: output, text: output, reasoning: 0 }
})

const textParts = (text: string): Array<StreamPart> => [
  { type: "text-start", id: "t1" },
  // word by word, as a provider streams
  ...text.split(/(?<= )/).map((delta): StreamPart => ({ type: "text-delta", id: "t1", delta })),
  { type: "text-end", id: "t1" }
]

/** What the model says to the conversation so far: tool call, tool answer or echo. */
const reply = (prompt: CallOptions["prompt"]): { parts: Array<StreamPart>; output: string; finish: string } => {
  const last = prompt[prompt.length - 1]
  if (last?.role === "tool") {
    const result = last.content.find((part) => part.type === "tool-result")
    const output = result?.output.type === "json" ? result.output.value : undefined
    const forecast = typeof output === "object" && output !== null && "forecast" in output ? output.forecast : "unknown"
    const text = `The forecast says: ${String(forecast)}.`
    return { parts: textParts(text), output: text, finish: "stop" }
  }
  const said = last === undefined ? "" : textOf(last.content)
  const city = /weather in ([\p{L} -]+)/iu.exec(said)?.[1]?.trim()
  if (city !== undefined) {
    const input = JSON.stringify({ city })
    const callId = `call_${prompt.length}`
    return {
      parts: [{ type: "tool-call", toolCallId: callId, toolName: "get_weather", input }],
      output: input,
      finish: "tool-calls"
    }
  }
  const text = `You said: ${said}`
  return { parts: textParts(text), output: text, finish: "stop" }
}

export const localModel = (): Model =>
  new MockLanguageModelV3({
    provider: "local",
    modelId: MODEL_ID,
    doStream: async (options) => {
      const { parts, output, finish } = reply(options.prompt)
      const input = tokens(options.prompt.map((message) => textOf(message.content)).join("\n"))
      return {
        stream: simulateReadableStream({
          chunkDelayInMs: 5,
          chunks: <Array<StreamPart>>[
            { type: "stream-start", warnings: [] },
            { type: "response-metadata", id: `resp_${Date.now()}`, modelId: MODEL_ID, timestamp: new Date() },
            ...parts,
            {
              type: "finish",
              finishReason: { unified: finish === "tool-calls" ? "tool-calls" : "stop", raw: finish },
              usage: usage(input, tokens(output))
            }
          ]
        })
      }
    }
  })
