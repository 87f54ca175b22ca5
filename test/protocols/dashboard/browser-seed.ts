/**
 * The data the dashboard's browser suites look for, made as an app makes it:
 * threads, messages, feedback, a run report and scores through the project
 * API, and one 500-span trace through the OTLP receiver (OTLP/JSON).
 */
import { asUser, call, createProject, type Gateway, type UserClient } from "../../support/layers.js"
import { planTrace, spanId, TRACE_ID, traceExport } from "./browser-trace.js"

export { spanId, TRACE_ID } from "./browser-trace.js"

export interface Seeded {
  readonly projectId: string
  readonly apiKey: string
  readonly threads: { readonly branched: string; readonly tools: string; readonly searched: string }
  readonly runId: string
  /** The trace's spans by number: each step's chat span, the failed tool span. */
  readonly trace: { readonly chats: ReadonlyMap<number, number>; readonly errorSpan: number }
  /** Runs in all: the reported one and one per GenAI span. */
  readonly runs: number
  readonly messages: number
  readonly scores: number
}

const expectCreated = (reply: { status: number; text: string }, what: string) => {
  if (reply.status !== 201) throw new Error(`${what}: ${reply.status} ${reply.text}`)
}

const newThread = async (user: UserClient, title: string): Promise<string> => {
  const reply = await user("POST", "/threads", { body: { title, last_message_at: new Date().toISOString() } })
  expectCreated(reply, "thread")
  return reply.body.thread_id
}

const say = async (
  user: UserClient,
  thread: string,
  parent: string | null,
  format: "svc/v0" | "ai-sdk/v6",
  content: Record<string, unknown>
): Promise<string> => {
  const reply = await user("POST", `/threads/${thread}/messages`, { body: { parent_id: parent, format, content } })
  expectCreated(reply, "message")
  return reply.body.message_id
}

const text = (role: string, words: string) => ({ role, content: [{ type: "text", text: words }] })

export const seed = async (gateway: Gateway, name = "Browser views"): Promise<Seeded> => {
  const project = await createProject(gateway, name)
  const alice = asUser(gateway, project.api_key, "alice", "ws-north")
  const bob = asUser(gateway, project.api_key, "bob", "ws-south")

  // A branch: two assistant replies to one user message; the later one is shown first.
  const branched = await newThread(alice, "Weather in Paris")
  const question = await say(alice, branched, null, "svc/v0", text("user", "What is the weather in Paris?"))
  await say(alice, branched, question, "svc/v0", text("assistant", "First answer: sunny and warm."))
  const second = await say(alice, branched, question, "svc/v0", text("assistant", "Second answer: light rain."))
  const liked = await alice("POST", `/threads/${branched}/messages/${second}/feedback`, {
    body: { type: "positive", comment: "Spot on" }
  })
  if (liked.status >= 300) throw new Error(`feedback: ${liked.status} ${liked.text}`)

  // ai-sdk/v6 parts: a tool call with its arguments and result.
  const tools = await newThread(bob, "Tool use")
  const ask = await say(bob, tools, null, "ai-sdk/v6", { role: "user", parts: [{ type: "text", text: "Weather?" }] })
  await say(bob, tools, ask, "ai-sdk/v6", {
    role: "assistant",
    parts: [
      { type: "step-start" },
      {
        type: "tool-getWeather",
        toolCallId: "call_weather_1",
        state: "output-available",
        input: { city: "Lyon" },
        output: { celsius: 21, sky: "clear" }
      },
      { type: "text", text: "It is 21 degrees in Lyon." }
    ]
  })

  const searched = await newThread(alice, "Notes")
  await say(alice, searched, null, "svc/v0", text("user", "The aardvark notebook is on the top shelf"))

  const plan = planTrace()
  const traced = await call(gateway.baseUrl, "POST", "/v1/traces", {
    raw: JSON.stringify(traceExport(plan.spans)),
    headers: { authorization: `Bearer ${project.api_key}`, "content-type": "application/json" }
  })
  if (traced.status !== 200 || traced.text !== "{}") throw new Error(`OTLP: ${traced.status} ${traced.text}`)

  const run = await alice("POST", "/runs", {
    body: {
      thread_id: branched,
      status: "completed",
      model_id: "gpt-browser",
      provider: "openai",
      input_tokens: 150,
      output_tokens: 57,
      cost_usd: 0.0042,
      duration_ms: 2100,
      tags: ["beta", "eu"],
      environment: "production",
      trace_id: TRACE_ID,
      root_span_id: spanId(1),
      total_steps: 2,
      steps: [
        {
          input_tokens: 120,
          output_tokens: 45,
          finish_reason: "tool_calls",
          tool_calls: [
            { tool_name: "lookup_weather", tool_call_id: "call_w1", tool_args: { city: "Paris" }, tool_result: "rain" }
          ]
        },
        { input_tokens: 30, output_tokens: 12, finish_reason: "stop" }
      ],
      output_text: "Second answer: light rain."
    }
  })
  expectCreated(run, "run")
  const runId: string = run.body.run_id

  const scores = [
    ...[0.2, 0.5, 0.9].map((value) => ({ name: "quality", data_type: "numeric", value, run_id: runId })),
    ...["billing", "billing", "weather"].map((value) => ({
      name: "topic",
      data_type: "categorical",
      string_value: value,
      thread_id: branched
    })),
    ...[true, true, false].map((value) => ({ name: "helpful", data_type: "boolean", value, message_id: second }))
  ]
  for (const body of scores) expectCreated(await alice("POST", "/scores", { body }), "score")

  return {
    projectId: project.project_id,
    apiKey: project.api_key,
    threads: { branched, tools, searched },
    runId,
    trace: { chats: plan.chats, errorSpan: plan.errorSpan },
    runs: 1 + plan.chatSpans.length,
    messages: 6,
    scores: scores.length
  }
}
