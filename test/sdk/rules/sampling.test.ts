/**
 * docs/client-library.md "Building blocks" (wrapSamplingHandler, createSamplingCollector:
 * record model, usage and duration of MCP sampling calls without disturbing
 * the handler) and docs/decisions.md "Client building blocks (svc-client, issue 14)": plain
 * handlers under fake timers, and a real MCP client and server (the
 * installed @modelcontextprotocol/sdk) talking over its in-memory transport.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js"
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js"
import { CreateMessageRequestSchema, type CreateMessageResult } from "@modelcontextprotocol/sdk/types.js"
import * as Schema from "effect/Schema"
import {
  type AssistantCloudRunReport,
  createSamplingCollector,
  type McpSamplingRequest,
  type SamplingCallData,
  wrapSamplingHandler
} from "svc-client"
import { afterEach, describe, expect, it, vi } from "vitest"
import { SamplingCall } from "../../../schema/Run.js"
import { settle, useClock } from "./fakes.js"

afterEach(() => {
  vi.useRealTimers()
  vi.restoreAllMocks()
})

const request = (hints?: Array<{ name?: string }>) => ({
  method: "sampling/createMessage",
  params: {
    messages: [{ role: "user", content: { type: "text", text: "Hi" } }],
    maxTokens: 10,
    ...(hints === undefined ? {} : { modelPreferences: { hints } })
  }
})

/** The data recorded for one call answered with `response` to `req`. */
const recorded = async (response: object, req: McpSamplingRequest = request()): Promise<SamplingCallData> => {
  const calls: Array<SamplingCallData> = []
  await wrapSamplingHandler(
    async () => response,
    (data) => calls.push(data)
  )(req)
  expect(calls).toHaveLength(1)
  const [data] = calls
  if (data === undefined) throw new Error("no call recorded")
  return data
}

/** console.error, silenced and recorded. */
const consoleErrors = () => vi.spyOn(console, "error").mockImplementation(() => undefined)

describe("wrapSamplingHandler and createSamplingCollector (client library, sampling)", () => {
  it("wrapSamplingHandler(handler, onCall): the handler gets the same arguments and its answer comes back as it is", async () => {
    const response = { model: "m", role: "assistant", content: { type: "text", text: "hello" } }
    const handler = vi.fn(async (_request: McpSamplingRequest, _extra: { signal: AbortSignal }) => response)
    const onCall = vi.fn()
    const req = request()
    const extra = { signal: new AbortController().signal }
    const wrapped = wrapSamplingHandler(handler, onCall)
    expect(handler).not.toHaveBeenCalled()
    await expect(wrapped(req, extra)).resolves.toBe(response)
    expect(handler).toHaveBeenCalledTimes(1)
    expect(handler.mock.calls[0]?.[0]).toBe(req)
    expect(handler.mock.calls[0]?.[1]).toBe(extra)
    expect(onCall).toHaveBeenCalledTimes(1)
    // A handler answering synchronously works too (the wrapper answers a promise).
    await expect(wrapSamplingHandler(() => response, onCall)(req)).resolves.toBe(response)
  })

  it("model from response.model else the first model hint", async () => {
    const hinted = request([{ name: "claude-hint" }, { name: "second-hint" }])
    expect((await recorded({ model: "gpt-4o-mini" }, hinted)).model_id).toBe("gpt-4o-mini")
    expect((await recorded({}, hinted)).model_id).toBe("claude-hint")
    // An empty model counts as none (our choice: the hint is more useful than "").
    expect((await recorded({ model: "" }, hinted)).model_id).toBe("claude-hint")
    // No model and no usable hint: no model_id at all.
    expect(await recorded({}, request())).not.toHaveProperty("model_id")
    expect(await recorded({}, request([]))).not.toHaveProperty("model_id")
    expect(await recorded({}, request([{}, { name: "second-hint" }]))).not.toHaveProperty("model_id")
  })

  it("tokens inputTokens ?? promptTokens, outputTokens ?? completionTokens", async () => {
    const both = { inputTokens: 2, promptTokens: 20, outputTokens: 3, completionTokens: 30 }
    expect(await recorded({ usage: both })).toMatchObject({ input_tokens: 2, output_tokens: 3 })
    expect(await recorded({ usage: { promptTokens: 20, completionTokens: 30 } })).toMatchObject({
      input_tokens: 20,
      output_tokens: 30
    })
    // 0 is a count (not "missing"): ?? falls back only when absent.
    expect(await recorded({ usage: { inputTokens: 0, promptTokens: 5, outputTokens: 0 } })).toMatchObject({
      input_tokens: 0,
      output_tokens: 0
    })
    // Reasoning and cached input tokens are kept when given.
    expect(await recorded({ usage: { inputTokens: 9, reasoningTokens: 4, cachedInputTokens: 6 } })).toEqual({
      input_tokens: 9,
      reasoning_tokens: 4,
      cached_input_tokens: 6,
      duration_ms: expect.any(Number)
    })
    // No usage, or counts that are not numbers: no token fields.
    const none = await recorded({ usage: { inputTokens: "12", outputTokens: null } })
    expect(Object.keys(none)).toEqual(["duration_ms"])
  })

  it("duration_ms always", async () => {
    useClock()
    const calls: Array<SamplingCallData> = []
    const slow = wrapSamplingHandler(
      () => new Promise<object>((resolve) => setTimeout(() => resolve({}), 1_250)),
      (data) => calls.push(data)
    )
    const answered = slow(request())
    await vi.advanceTimersByTimeAsync(1_250)
    await answered
    // Even with nothing else to say, and 0 for an immediate answer.
    await wrapSamplingHandler(
      async () => ({}),
      (data) => calls.push(data)
    )(request())
    expect(calls).toEqual([{ duration_ms: 1_250 }, { duration_ms: 0 }])
  })

  it("a throwing callback is logged, never breaks the handler", async () => {
    const errors = consoleErrors()
    const response = { model: "m" }
    const failure = new Error("metrics unavailable")
    // Throwing at once, or rejecting later: the answer comes back, the error is logged.
    for (const onCall of [
      () => {
        throw failure
      },
      async () => {
        throw failure
      }
    ]) {
      await expect(wrapSamplingHandler(async () => response, onCall)(request())).resolves.toBe(response)
      await settle()
    }
    expect(errors.mock.calls).toEqual([
      ["[svc-client] onSamplingCall callback threw an error", failure],
      ["[svc-client] onSamplingCall callback threw an error", failure]
    ])
    // A callback that never settles is not awaited.
    await expect(
      wrapSamplingHandler(
        async () => response,
        () => new Promise<void>(() => {})
      )(request())
    ).resolves.toBe(response)
    // Even a console that throws does not reach the handler's caller.
    errors.mockImplementation(() => {
      throw new Error("logging failed")
    })
    await expect(wrapSamplingHandler(async () => response, onCallThrowing)(request())).resolves.toBe(response)
    expect(errors).toHaveBeenCalledTimes(3)
    // Nor does an answer the wrapper cannot read (logged, handed back as it is, the callback not called).
    errors.mockClear()
    errors.mockImplementation(() => undefined)
    const onCall = vi.fn()
    await expect(wrapSamplingHandler(async () => JSON.parse("null"), onCall)(request())).resolves.toBeNull()
    expect(onCall).not.toHaveBeenCalled()
    expect(errors).toHaveBeenCalledTimes(1)
    expect(errors.mock.calls[0]?.[1]).toBeInstanceOf(TypeError)
  })

  it("a handler that throws: the same error is thrown, and no call is recorded", async () => {
    const collector = createSamplingCollector()
    const failure = new Error("model failed")
    await expect(
      wrapSamplingHandler(async () => {
        throw failure
      }, collector.collect)(request())
    ).rejects.toBe(failure)
    const sync = wrapSamplingHandler(() => {
      throw failure
    }, collector.collect)
    await expect(sync(request())).rejects.toBe(failure)
    expect(collector.getCalls()).toEqual([])
  })

  it("createSamplingCollector() gives { collect, getCalls, reset }", async () => {
    const collector = createSamplingCollector()
    expect(Object.keys(collector).sort()).toEqual(["collect", "getCalls", "reset"])
    const wrapped = wrapSamplingHandler(async (req: McpSamplingRequest) => {
      const hint = req.params?.modelPreferences?.hints?.[0]?.name
      return { model: hint === "big" ? "big-1" : "small-1", usage: { inputTokens: 1, outputTokens: 2 } }
    }, collector.collect)
    await wrapped(request([{ name: "big" }]))
    await wrapped(request([{ name: "small" }]))
    const calls = collector.getCalls()
    expect(calls.map((call) => call.model_id)).toEqual(["big-1", "small-1"])
    // getCalls answers a copy: changing it changes nothing inside.
    calls.pop()
    expect(collector.getCalls()).toHaveLength(2)
    collector.reset()
    expect(collector.getCalls()).toEqual([])
    await wrapped(request([{ name: "small" }]))
    expect(collector.getCalls()).toEqual([
      { model_id: "small-1", input_tokens: 1, output_tokens: 2, duration_ms: expect.any(Number) }
    ])
  })

  it("sampling call data is what a run report's sampling_calls takes (schema/Run.ts SamplingCall)", async () => {
    const collector = createSamplingCollector()
    const wrapped = wrapSamplingHandler(
      async () => ({ model: "gpt-4o-mini", usage: { promptTokens: 12, completionTokens: 3, reasoningTokens: 1 } }),
      collector.collect
    )
    await wrapped(request())
    await wrapped(request([{ name: "hinted" }]))
    const decode = Schema.decodeUnknownSync(Schema.Array(SamplingCall))
    expect(decode(collector.getCalls())).toEqual(collector.getCalls())
    // And it types as the client's own run report body.
    const report: AssistantCloudRunReport = {
      thread_id: "t1",
      status: "completed",
      tool_calls: [{ tool_name: "search", tool_call_id: "call-1", sampling_calls: collector.getCalls() }],
      sampling_calls: collector.getCalls()
    }
    expect(report.tool_calls?.[0]?.sampling_calls).toHaveLength(2)
  })

  it("without disturbing the handler: on a real MCP client, a server's createMessage gets the handler's answer and the call is recorded", async () => {
    const collector = createSamplingCollector()
    const answer = {
      model: "local-model",
      role: "assistant",
      stopReason: "endTurn",
      content: { type: "text", text: "A short summary." },
      // Not in MCP's result schema, but a loose object there: hosts that add usage get it recorded and passed on.
      usage: { inputTokens: 42, outputTokens: 7 }
    } satisfies CreateMessageResult & { usage: object }
    const seen: Array<{ params: unknown; aborted: boolean }> = []

    const client = new Client({ name: "sampling-host", version: "1.0.0" }, { capabilities: { sampling: {} } })
    client.setRequestHandler(
      CreateMessageRequestSchema,
      wrapSamplingHandler(async (req, extra) => {
        seen.push({ params: req.params, aborted: extra.signal.aborted })
        if (req.params.maxTokens === 1) throw new Error("too few tokens")
        return answer
      }, collector.collect)
    )

    const server = new McpServer({ name: "tool-server", version: "1.0.0" })
    const received: Array<unknown> = []
    server.registerTool("summarize", { description: "Summarizes with the host's model" }, async () => {
      const result = await server.server.createMessage({
        messages: [{ role: "user", content: { type: "text", text: "Summarize this." } }],
        modelPreferences: { hints: [{ name: "claude-3-haiku" }] },
        maxTokens: 100
      })
      received.push(result)
      return { content: [{ type: "text", text: result.content.type === "text" ? result.content.text : "" }] }
    })

    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
    await Promise.all([server.connect(serverSide), client.connect(clientSide)])
    try {
      const result = await client.callTool({ name: "summarize", arguments: {} })
      expect(result.content).toEqual([{ type: "text", text: "A short summary." }])
      // The server got exactly what the handler answered.
      expect(received).toEqual([answer])
      expect(seen).toEqual([
        {
          params: {
            messages: [{ role: "user", content: { type: "text", text: "Summarize this." } }],
            modelPreferences: { hints: [{ name: "claude-3-haiku" }] },
            maxTokens: 100
          },
          aborted: false
        }
      ])
      expect(collector.getCalls()).toEqual([
        { model_id: "local-model", input_tokens: 42, output_tokens: 7, duration_ms: expect.any(Number) }
      ])

      // A failing handler fails the server's request with its message, and nothing is recorded.
      await expect(
        server.server.createMessage({
          messages: [{ role: "user", content: { type: "text", text: "x" } }],
          maxTokens: 1
        })
      ).rejects.toThrow("too few tokens")
      expect(collector.getCalls()).toHaveLength(1)
    } finally {
      await client.close()
      await server.close()
    }
  })
})

const onCallThrowing = () => {
  throw new Error("metrics failed")
}
