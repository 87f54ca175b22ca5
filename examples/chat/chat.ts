/**
 * A small chat app wired to the gateway with svc-client, the way a real one
 * is: the AI SDK runs the model (a local fake, ./model.ts) with a tool; the
 * conversation is stored through `createFormattedPersistence` +
 * `aiSDKV6FormatAdapter` (and reloaded when the app restarts); each answer is
 * reported as a run (`extractAISDKRunTelemetry` + `CloudRunReporter`);
 * engagement events go through `CloudEngagementReporter`; the AI SDK's spans
 * are exported to the gateway's OTLP receiver through `svc-client/telemetry`;
 * the thread gets a generated title.
 *
 *   SVC_API_KEY=sk_... npm run example            # a scripted conversation
 *   SVC_API_KEY=sk_... npm run example -- --chat  # type your own (empty line ends)
 *
 * Environment: SVC_API_KEY (required, the key `npm start` printed),
 * SVC_BASE_URL (default http://127.0.0.1:8787), SVC_THREAD_ID (continue a
 * thread instead of starting one).
 */
import { createInterface } from "node:readline/promises"
import { context } from "@opentelemetry/api"
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks"
import { BasicTracerProvider } from "@opentelemetry/sdk-trace-base"
import {
  convertToModelMessages,
  generateId,
  readUIMessageStream,
  stepCountIs,
  streamText,
  type TextStreamPart,
  type ToolSet,
  tool,
  type UIMessage
} from "ai"
import {
  AssistantCloud,
  CloudAPIError,
  CloudEngagementReporter,
  CloudMessagePersistence,
  CloudRunReporter,
  createFormattedPersistence,
  generateThreadTitle
} from "svc-client"
import { aiSDKV6FormatAdapter, extractAISDKRunTelemetry } from "svc-client/ai-sdk"
import {
  assistantCloudTraceMetadata,
  createAssistantCloudSpanProcessor,
  createAssistantCloudTraceExporter,
  withAssistantCloudTraceMetadata
} from "svc-client/telemetry"
import { z } from "zod"
import { localModel, MODEL_ID } from "./model.js"

const SCRIPT = ["Hello there!", "What is the weather in Lisbon?", "Thanks. And the weather in Porto?"]

const apiKey = process.env.SVC_API_KEY ?? ""
const baseUrl = process.env.SVC_BASE_URL ?? "http://127.0.0.1:8787"
if (apiKey === "") {
  console.error("Set SVC_API_KEY to a project API key (npm start prints one on its first start).")
  process.exit(2)
}

// The client, acting as one user of one workspace (a back end holding the API key).
const cloud = new AssistantCloud({
  apiKey,
  baseUrl,
  userId: process.env.SVC_USER_ID ?? "example-user",
  workspaceId: "example-workspace",
  telemetry: { release: "example-chat@1.0.0", environment: "development", tags: ["example"] }
})
cloud.registerSdk({ name: "svc-example-chat", version: "1.0.0" })

// Traces: the AI SDK's spans, GenAI ones only, to the gateway's /v1/traces.
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable())
const tracerProvider = new BasicTracerProvider({
  spanProcessors: [createAssistantCloudSpanProcessor(createAssistantCloudTraceExporter({ apiKey, baseUrl }))]
})
const tracer = tracerProvider.getTracer("example-chat")

// Messages keep the AI SDK's ids in the app; the store maps them to the gateway's.
const stored = new CloudMessagePersistence(cloud)
const persistence = createFormattedPersistence(stored, aiSDKV6FormatAdapter)
const remoteId = async (id: string) => (await stored.getRemoteId(id)) ?? id
const runs = new CloudRunReporter(cloud)
// Events name messages by the gateway's ids too.
const engagement = new CloudEngagementReporter(cloud, async (threadId, messageId) =>
  messageId === undefined ? { thread_id: threadId } : { thread_id: threadId, message_id: await remoteId(messageId) }
)

const FORECASTS = ["sunny, 24 °C", "cloudy, 17 °C", "light rain, 14 °C", "windy, 19 °C"]
const tools = {
  get_weather: tool({
    description: "Today's forecast for a city",
    inputSchema: z.object({ city: z.string() }),
    // deterministic: the same city always gets the same forecast
    execute: async ({ city }) => ({
      city,
      forecast: FORECASTS[[...city].reduce((sum, char) => sum + char.charCodeAt(0), 0) % FORECASTS.length]
    })
  })
} satisfies ToolSet

/** One turn: the user's message stored, the answer streamed, stored and reported. */
const turn = async (threadId: string, history: Array<UIMessage>, text: string): Promise<void> => {
  const user: UIMessage = { id: generateId(), role: "user", parts: [{ type: "text", text }] }
  await persistence.append(threadId, { parentId: history.at(-1)?.id ?? null, message: user })
  engagement.messageSent(threadId, { messageId: user.id, chars: text.length, attachments: 0 })
  history.push(user)

  // The turn as a GenAI agent span: the root of the turn's trace (the AI SDK's
  // spans are its children), and GenAI, so the span processor exports it.
  const agent = { "gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "example-chat" }
  const { assistant, traceId, durationMs, firstTokenMs } = await tracer.startActiveSpan(
    "invoke_agent example-chat",
    { attributes: { ...agent, "gen_ai.conversation.id": threadId } },
    async (span) => {
      try {
        return await answer(threadId, history)
      } finally {
        span.end()
      }
    }
  )

  await persistence.append(threadId, { parentId: user.id, message: assistant })
  history.push(assistant)
  const telemetry = extractAISDKRunTelemetry([assistant])
  if (telemetry !== null)
    await runs.report(
      {
        ...telemetry,
        threadId,
        messageId: await remoteId(assistant.id),
        userMessageId: await remoteId(user.id),
        provider: "local",
        traceId,
        durationMs,
        firstTokenMs
      },
      assistant.id
    )
}

/** The model's answer to the history, printed as it streams. */
const answer = async (threadId: string, history: ReadonlyArray<UIMessage>) => {
  engagement.runStarted(threadId)
  const started = performance.now()
  const result = streamText({
    model: localModel(),
    messages: await convertToModelMessages([...history], { tools }),
    tools,
    stopWhen: stepCountIs(3),
    // the gateway files the run it derives from these spans under this thread
    experimental_telemetry: {
      isEnabled: true,
      tracer,
      functionId: "example-chat",
      metadata: { "svc.thread_id": threadId }
    }
  })
  // What extractAISDKRunTelemetry reads: each step's usage and model, the
  // total usage; withAssistantCloudTraceMetadata adds the trace id at the start.
  const steps: Array<{ usage: unknown; response: { modelId: string } }> = []
  const stream = result.toUIMessageStream({
    originalMessages: [...history],
    generateMessageId: generateId,
    messageMetadata: withAssistantCloudTraceMetadata(({ part }: { part: TextStreamPart<ToolSet> }) => {
      if (part.type === "start") return { provider: "local", modelId: MODEL_ID }
      if (part.type === "finish-step") {
        steps.push({ usage: part.usage, response: { modelId: part.response.modelId } })
        return { steps: [...steps] }
      }
      if (part.type === "finish") return { usage: part.totalUsage }
      return undefined
    })
  })

  let assistant: UIMessage | undefined
  let firstTokenMs: number | undefined
  let printed = 0
  process.stdout.write("assistant: ")
  for await (const message of readUIMessageStream<UIMessage>({ stream })) {
    assistant = message
    const shown = message.parts.map((part) => (part.type === "text" ? part.text : "")).join("")
    if (shown.length > printed) {
      firstTokenMs ??= performance.now() - started
      process.stdout.write(shown.slice(printed))
      printed = shown.length
    }
  }
  process.stdout.write("\n")
  engagement.runEnded(threadId)
  if (assistant === undefined) throw new Error("the model gave no answer")
  return {
    assistant,
    traceId: assistantCloudTraceMetadata().traceId,
    durationMs: performance.now() - started,
    firstTokenMs
  }
}

const main = async () => {
  // A thread to continue, or a new one.
  let threadId = process.env.SVC_THREAD_ID
  const history: Array<UIMessage> = []
  if (threadId !== undefined) {
    const { messages } = await persistence.load(threadId)
    // The formatted load gives the oldest first (the store's load, newest first, reversed), as the model wants them
    history.push(...messages.map((item) => item.message))
    console.log(`continuing ${threadId} (${history.length} messages stored)`)
  } else {
    threadId = (await cloud.threads.create({ last_message_at: new Date() })).thread_id
    console.log(`thread ${threadId}`)
  }

  if (process.argv.includes("--chat")) {
    const terminal = createInterface({ input: process.stdin })
    process.stdout.write("you: ")
    for await (const line of terminal) {
      if (line.trim() === "") break
      if (!process.stdin.isTTY) console.log(line.trim()) // piped input: show what was read
      await turn(threadId, history, line.trim())
      process.stdout.write("you: ")
    }
    terminal.close()
  } else {
    for (const text of SCRIPT) {
      console.log(`you: ${text}`)
      await turn(threadId, history, text)
    }
  }

  const title = await generateThreadTitle(cloud, {
    threadId,
    messages: history.map((message) => ({ role: message.role, parts: message.parts }))
  })
  console.log(`title: ${title ?? "(none)"}`)

  // Everything buffered goes out before the process ends.
  await cloud.events.dispose()
  await tracerProvider.forceFlush()
  await tracerProvider.shutdown()

  // What the gateway now holds, through the project read API.
  const reloaded = await persistence.load(threadId)
  const { runs: listed } = await cloud.projects.runs.list({ thread_id: threadId })
  // Each answer is a run twice: the app's report, and the run the gateway
  // derives from the exported model-call span (it has a span_id).
  const reported = listed.filter((run) => run.span_id === null)
  console.log(
    JSON.stringify({
      thread_id: threadId,
      messages: reloaded.messages.length,
      runs_reported: reported.length,
      runs_from_traces: listed.length - reported.length,
      traces: new Set(listed.map((run) => run.trace_id).filter((id) => id !== null)).size,
      input_tokens: reported.reduce((sum, run) => sum + (run.input_tokens ?? 0), 0),
      output_tokens: reported.reduce((sum, run) => sum + (run.output_tokens ?? 0), 0)
    })
  )
}

main().catch((error: unknown) => {
  if (error instanceof CloudAPIError) console.error(`the gateway answered ${error.status}: ${error.message}`)
  else console.error(error)
  process.exit(1)
})
