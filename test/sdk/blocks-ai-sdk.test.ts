/**
 * `svc-client/ai-sdk` end to end (issue 14, "Done when"): a conversation of
 * AI SDK v6 `UIMessage`s made by the real `ai` package (streamText over
 * `ai/test`'s MockLanguageModelV3, a server-side tool and an MCP-style
 * dynamic tool that samples, several steps, usage and model in the message
 * metadata; `toUIMessageStream` + `readUIMessageStream`, as a chat app's
 * route and client do) is stored through
 * `createFormattedPersistence(new CloudMessagePersistence(cloud), aiSDKV6FormatAdapter)`
 * on a real gateway, on every store and in each auth mode. It is reloaded
 * (by a fresh persistence, as after a page reload) newest first, as docs/client-library.md
 * "Building blocks" orders a load, equal to what
 * was stored under the server's ids, valid for the AI SDK, and the second
 * turn is generated from the reloaded history. Each turn's run report
 * (`extractAISDKRunTelemetry` into `CloudRunReporter.report`) reads back
 * through the project API with its tokens, steps and tool calls.
 */
import {
  convertToModelMessages,
  dynamicTool,
  readUIMessageStream,
  stepCountIs,
  streamText,
  type TextStreamPart,
  type ToolSet,
  tool,
  type UIMessage,
  validateUIMessages
} from "ai"
import { convertArrayToReadableStream, MockLanguageModelV3 } from "ai/test"
import {
  AssistantCloud,
  CloudMessagePersistence,
  CloudRunReporter,
  createFormattedPersistence,
  createSamplingCollector,
  type SamplingCallData,
  wrapSamplingHandler
} from "svc-client"
import { aiSDKV6FormatAdapter, extractAISDKRunTelemetry } from "svc-client/ai-sdk"
import { beforeAll, describe, expect, it } from "vitest"
import { z } from "zod"
import { clientStores } from "../support/layers.js"
import {
  apiKeyConfig,
  clientsByMode,
  eventually,
  MODES,
  type Mode,
  makeFixture,
  useSdkGateway
} from "./gateway-helpers.js"

// ---------------------------------------------------------------------------
// The app: a chat route on the real AI SDK, with a scripted local model

/** What the fake model streams for one step. */
type StepScript =
  | {
      readonly toolCalls: ReadonlyArray<{ id: string; name: string; input: unknown }>
      readonly usage: [number, number]
    }
  | { readonly text: ReadonlyArray<string>; readonly usage: [number, number] }

const usageOf = ([input, output]: [number, number]) => ({
  inputTokens: { total: input, noCache: input, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: output, text: output, reasoning: undefined }
})

/** A MockLanguageModelV3 answering one scripted stream per step (its calls are kept in `doStreamCalls`). */
const scriptedModel = (steps: ReadonlyArray<StepScript>) =>
  new MockLanguageModelV3({
    provider: "mock-provider",
    modelId: "mock-model-1",
    doStream: steps.map((step, index) => ({
      stream: convertArrayToReadableStream([
        { type: "stream-start" as const, warnings: [] },
        {
          type: "response-metadata" as const,
          id: `resp-${index}`,
          modelId: "mock-model-1-2025-01",
          timestamp: new Date(0)
        },
        ...("text" in step
          ? [
              { type: "text-start" as const, id: "t" },
              ...step.text.map((delta) => ({ type: "text-delta" as const, id: "t", delta })),
              { type: "text-end" as const, id: "t" }
            ]
          : step.toolCalls.map((call) => ({
              type: "tool-call" as const,
              toolCallId: call.id,
              toolName: call.name,
              input: JSON.stringify(call.input)
            }))),
        {
          type: "finish" as const,
          finishReason:
            "text" in step
              ? { unified: "stop" as const, raw: "stop" }
              : { unified: "tool-calls" as const, raw: "tool_calls" },
          usage: usageOf(step.usage)
        }
      ])
    }))
  })

/** A base64 PNG-ish payload, as an MCP tool returns images inline (500 characters). */
const IMAGE = "iVBORw0KGgo".padEnd(500, "A")

/**
 * The app's tools: `weather`, a server-side tool (a `tool-weather` part), and
 * `search`, an MCP tool (a `dynamic-tool` part) whose server asks the host to
 * sample a model once; the sampling handler is wrapped, and the calls are
 * kept per tool call id for the message metadata.
 */
const makeTools = (samplingCalls: Record<string, Array<SamplingCallData>>) => {
  const sample = async (_request: { params: { modelPreferences: { hints: Array<{ name: string }> } } }) => ({
    role: "assistant",
    content: { type: "text", text: "two fjords" },
    model: "mock-sampler",
    usage: { inputTokens: 5, outputTokens: 2 }
  })
  return {
    weather: tool({
      description: "The weather in a city",
      inputSchema: z.object({ city: z.string() }),
      execute: async ({ city }) => ({ city, sky: city === "Paris" ? "sunny" : "grey", celsius: city.length })
    }),
    search: dynamicTool({
      description: "Search (an MCP tool)",
      inputSchema: z.object({ q: z.string() }),
      execute: async (_input, { toolCallId }) => {
        const collector = createSamplingCollector()
        await wrapSamplingHandler(
          sample,
          collector.collect
        )({
          params: { modelPreferences: { hints: [{ name: "hinted-model" }] } }
        })
        samplingCalls[toolCallId] = collector.getCalls()
        return [
          { type: "text", text: "Found 2 fjords" },
          { type: "image", data: IMAGE, mimeType: "image/png" }
        ]
      }
    })
  } satisfies ToolSet
}

/**
 * One turn of the chat route: the history to the model, the answer streamed
 * as UI message chunks (with the metadata the extractor reads: provider at
 * start, each step's usage and response model as steps end, the total usage
 * and the sampling calls at the finish) and read back into the assistant
 * `UIMessage`, as the AI SDK's chat client does.
 */
const runTurn = async (history: Array<UIMessage>, steps: ReadonlyArray<StepScript>, assistantId: string) => {
  const model = scriptedModel(steps)
  const samplingCalls: Record<string, Array<SamplingCallData>> = {}
  const tools = makeTools(samplingCalls)
  const result = streamText({
    model,
    messages: await convertToModelMessages(history, { tools }),
    tools,
    stopWhen: stepCountIs(5)
  })
  const stepMetadata: Array<{ usage: unknown; response: { modelId: string }; finishReason: string }> = []
  const stream = result.toUIMessageStream({
    originalMessages: history,
    generateMessageId: () => assistantId,
    messageMetadata: ({ part }: { part: TextStreamPart<ToolSet> }) => {
      if (part.type === "start") return { provider: model.provider }
      if (part.type === "finish-step") {
        stepMetadata.push({
          usage: part.usage,
          response: { modelId: part.response.modelId },
          finishReason: part.finishReason
        })
        return { steps: [...stepMetadata] }
      }
      if (part.type === "finish") return { usage: part.totalUsage, samplingCalls }
      return undefined
    }
  })
  let assistant: UIMessage | undefined
  for await (const message of readUIMessageStream<UIMessage>({ stream })) assistant = message
  if (assistant === undefined) return expect.fail("the stream gave no message")
  return { assistant, model }
}

/** The user's message. */
const userMessage = (id: string, text: string): UIMessage => ({ id, role: "user", parts: [{ type: "text", text }] })

const TURN_1: ReadonlyArray<StepScript> = [
  { toolCalls: [{ id: "call-1", name: "weather", input: { city: "Paris" } }], usage: [11, 7] },
  { text: ["It is sunny ", "in Paris."], usage: [25, 9] }
]

const TURN_2: ReadonlyArray<StepScript> = [
  {
    toolCalls: [
      { id: "call-2", name: "weather", input: { city: "Oslo" } },
      { id: "call-3", name: "search", input: { q: "fjords near Oslo" } }
    ],
    usage: [40, 12]
  },
  { text: ["Grey in Oslo; ", "two fjords nearby."], usage: [70, 15] }
]

// ---------------------------------------------------------------------------

for (const store of clientStores)
  describe(`svc-client/ai-sdk: AI SDK messages stored and reported on a real gateway (${store.name})`, () => {
    const { handle, errors } = useSdkGateway(store)
    let clouds: Record<Mode, AssistantCloud>
    /** The project read API (API key). */
    let reader: AssistantCloud

    beforeAll(async () => {
      const fixture = await makeFixture(handle.current, "sdk-ai-sdk")
      clouds = clientsByMode(fixture)
      reader = new AssistantCloud(apiKeyConfig(fixture, "reader", "ws-r"))
    })

    it.each(MODES)(
      "%s mode: a two-turn conversation with tools is stored, reloaded in order, continued, and its runs read back",
      async (mode) => {
        const cloud = clouds[mode]
        const { thread_id: threadId } = await cloud.threads.create({ last_message_at: new Date() })
        const persistence = new CloudMessagePersistence(cloud)
        const messages = createFormattedPersistence(persistence, aiSDKV6FormatAdapter)
        const reporter = new CloudRunReporter(cloud)

        /** What the app does when a turn ends: store the answer, report the run (keyed by the message). */
        const finishTurn = async (parentId: string, assistant: UIMessage) => {
          await messages.append(threadId, { parentId, message: assistant })
          const telemetry = extractAISDKRunTelemetry([assistant])
          if (telemetry === null) return expect.fail("no assistant message")
          const { assistantMessageId, metadata, ...report } = telemetry
          await reporter.report(
            {
              threadId,
              ...report,
              messageId: persistence.getResolvedRemoteId(assistant.id),
              provider: typeof metadata?.provider === "string" ? metadata.provider : undefined
            },
            `${threadId}:${assistantMessageId}`
          )
        }

        // Turn 1, in one page session: local ids, the parent a local id too.
        const u1 = userMessage("local-u1", "Weather in Paris?")
        await messages.append(threadId, { parentId: null, message: u1 })
        const turn1 = await runTurn([u1], TURN_1, "local-a1")
        const a1 = turn1.assistant
        expect(a1.parts.map((part) => part.type)).toEqual(["step-start", "tool-weather", "step-start", "text"])
        await finishTurn(u1.id, a1)
        const u1Id = persistence.getResolvedRemoteId(u1.id)
        const a1Id = persistence.getResolvedRemoteId(a1.id)
        expect(u1Id).toMatch(/^msg_/)
        expect(a1Id).toMatch(/^msg_/)

        // Stored as ai-sdk/v6 content without the local id, under the server's parent id.
        const raw = (await cloud.threads.messages.list(threadId)).messages
        expect(raw.map((row) => [row.id, row.parent_id, row.format]).sort()).toEqual(
          [
            [u1Id, null, "ai-sdk/v6"],
            [a1Id, u1Id, "ai-sdk/v6"]
          ].sort()
        )
        for (const row of raw) expect(Object.keys(row.content)).not.toContain("id")

        // A page reload: a fresh persistence loads the thread under the server's ids. The persistence loads
        // newest first and the helper reverses (docs/decisions.md "assistant-ui as the cloud client (issue 26)"):
        // oldest first, as a model takes it.
        const reloaded = await createFormattedPersistence(
          new CloudMessagePersistence(cloud),
          aiSDKV6FormatAdapter
        ).load(threadId)
        expect(reloaded.messages).toEqual([
          { parentId: null, message: { ...u1, id: u1Id } },
          { parentId: u1Id, message: { ...a1, id: a1Id } }
        ])
        const history = await validateUIMessages<UIMessage>({
          messages: reloaded.messages.map((item) => item.message)
        })

        // Turn 2, continued from the reloaded history by a new session (its parent is a server id).
        const session = new CloudMessagePersistence(cloud)
        const messages2 = createFormattedPersistence(session, aiSDKV6FormatAdapter)
        const u2 = userMessage("local-u2", "And in Oslo? Any fjords?")
        await messages2.append(threadId, { parentId: a1Id ?? null, message: u2 })
        const turn2 = await runTurn([...history, u2], TURN_2, "local-a2")
        const a2 = turn2.assistant
        expect(a2.parts.map((part) => part.type)).toEqual([
          "step-start",
          "tool-weather",
          "dynamic-tool",
          "step-start",
          "text"
        ])
        // The model saw the reloaded first turn, its tool call and result included.
        const prompt = JSON.stringify(turn2.model.doStreamCalls[0]?.prompt)
        expect(prompt).toContain("Weather in Paris?")
        expect(prompt).toContain('"sky":"sunny"')
        expect(prompt).toContain("It is sunny in Paris.")
        await messages2.append(threadId, { parentId: u2.id, message: a2 })
        const u2Id = session.getResolvedRemoteId(u2.id)
        const a2Id = session.getResolvedRemoteId(a2.id)
        const telemetry2 = extractAISDKRunTelemetry([a2])
        if (telemetry2 === null) return expect.fail("no telemetry")
        const { assistantMessageId: _a2, metadata: metadata2, ...report2 } = telemetry2
        await new CloudRunReporter(cloud).report(
          {
            threadId,
            ...report2,
            messageId: a2Id,
            provider: typeof metadata2?.provider === "string" ? metadata2.provider : undefined
          },
          `${threadId}:${a2.id}`
        )

        // The whole conversation reloads in order, equal to what was stored.
        const all = await createFormattedPersistence(new CloudMessagePersistence(cloud), aiSDKV6FormatAdapter).load(
          threadId
        )
        expect(all.messages).toEqual([
          { parentId: null, message: { ...u1, id: u1Id } },
          { parentId: u1Id, message: { ...a1, id: a1Id } },
          { parentId: a1Id, message: { ...u2, id: u2Id } },
          { parentId: u2Id, message: { ...a2, id: a2Id } }
        ])
        await validateUIMessages<UIMessage>({ messages: all.messages.map((item) => item.message) })

        // The runs, through the project API: tokens, steps and tool calls of each turn.
        const runs = await eventually(async () => {
          const listed = (await reader.projects.runs.list({ thread_id: threadId })).runs
          expect(listed).toHaveLength(2)
          return listed
        })
        const byMessage = new Map(runs.map((run) => [run.message_id, run.id]))
        const run1 = await reader.projects.runs.get(byMessage.get(a1Id ?? "") ?? "")
        expect(run1).toMatchObject({
          thread_id: threadId,
          message_id: a1Id,
          status: "completed",
          model_id: "mock-model-1-2025-01",
          provider: "mock-provider",
          input_tokens: 36,
          output_tokens: 16,
          total_steps: 2,
          tool_call_count: 1,
          output_text: "It is sunny in Paris.",
          steps: [
            {
              input_tokens: 11,
              output_tokens: 7,
              finish_reason: "tool-calls",
              tool_calls: [expect.objectContaining({ tool_name: "weather", tool_call_id: "call-1" })]
            },
            { input_tokens: 25, output_tokens: 9 }
          ],
          tool_calls: [
            {
              tool_name: "weather",
              tool_call_id: "call-1",
              tool_source: "frontend",
              tool_args: '{"city":"Paris"}',
              tool_result: '{"city":"Paris","sky":"sunny","celsius":5}'
            }
          ]
        })
        const run2 = await reader.projects.runs.get(byMessage.get(a2Id ?? "") ?? "")
        expect(run2).toMatchObject({
          thread_id: threadId,
          message_id: a2Id,
          status: "completed",
          model_id: "mock-model-1-2025-01",
          input_tokens: 110,
          output_tokens: 27,
          total_steps: 2,
          tool_call_count: 2,
          output_text: "Grey in Oslo; two fjords nearby.",
          steps: [
            {
              input_tokens: 40,
              output_tokens: 12,
              finish_reason: "tool-calls",
              tool_calls: [
                expect.objectContaining({ tool_call_id: "call-2" }),
                expect.objectContaining({ tool_call_id: "call-3" })
              ]
            },
            { input_tokens: 70, output_tokens: 15 }
          ],
          tool_calls: [
            {
              tool_name: "weather",
              tool_call_id: "call-2",
              tool_source: "frontend",
              tool_args: '{"city":"Oslo"}',
              tool_result: '{"city":"Oslo","sky":"grey","celsius":4}'
            },
            {
              tool_name: "search",
              tool_call_id: "call-3",
              tool_source: "mcp",
              tool_args: '{"q":"fjords near Oslo"}',
              // the inline base64 image is summarized by its size
              tool_result:
                '[{"type":"text","text":"Found 2 fjords"},{"type":"image","data":"[image: 0.4KB]","mimeType":"image/png"}]',
              sampling_calls: [
                { model_id: "mock-sampler", input_tokens: 5, output_tokens: 2, duration_ms: expect.any(Number) }
              ]
            }
          ]
        })
        expect(errors).toEqual([])
      }
    )
  })
