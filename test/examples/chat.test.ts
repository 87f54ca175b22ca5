/**
 * The example app (examples/chat) as a user runs it: `npm run example` in a
 * child process against a gateway this test starts (each store), then what it
 * left in the gateway read back: the stored conversation (AI SDK messages in
 * order, parents linked), the reported runs with their tokens, steps, tool
 * calls and trace ids, the runs derived from the exported spans, the
 * engagement events under the gateway's message ids, the SDK identity and the
 * title. A second run continues the thread from stdin (`--chat`), reloading
 * the history first.
 */
import { spawn } from "node:child_process"
import { describe, expect, it } from "vitest"
import { eventsOf, expectSdkClients, useSdkGateway } from "../sdk/gateway-helpers.js"
import { asUser, clientStores, createProject } from "../support/layers.js"

const ROOT = new URL("../../", import.meta.url).pathname

interface Ran {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

/** `npm run example -- <args>`, with `stdin` piped in. */
const runExample = (env: Record<string, string>, args: ReadonlyArray<string> = [], stdin = ""): Promise<Ran> =>
  new Promise((resolve, reject) => {
    const child = spawn("npm", ["run", "-s", "example", "--", ...args], {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ["pipe", "pipe", "pipe"]
    })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString("utf8")
    })
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8")
    })
    child.on("error", reject)
    child.on("close", (code) => resolve({ code, stdout, stderr }))
    child.stdin.end(stdin)
  })

/** The summary line the example prints last. */
const summaryOf = (ran: Ran) => {
  const last = ran.stdout.trim().split("\n").at(-1) ?? ""
  return JSON.parse(last) as Record<string, unknown>
}

interface Message {
  readonly id: string
  readonly parent_id: string | null
  readonly format: string
  readonly content: {
    readonly role: string
    readonly parts: ReadonlyArray<{ readonly type: string; readonly text?: string }>
  }
}
interface RunRow {
  readonly id: string
  readonly span_id: string | null
  readonly trace_id: string | null
  readonly message_id: string | null
  readonly status: string
  readonly model_id: string | null
  readonly input_tokens: number | null
  readonly output_tokens: number | null
  readonly total_steps: number | null
  readonly tool_call_count: number
  readonly tags: ReadonlyArray<string>
  readonly environment: string | null
  readonly release: string | null
}

const textOf = (message: Message) =>
  message.content.parts
    .filter((part) => part.type === "text")
    .map((part) => part.text)
    .join("")

for (const store of clientStores)
  describe(`the example chat app against a gateway (${store.name})`, () => {
    const { handle, errors } = useSdkGateway(store)

    it("npm run example: stores the conversation, reports its runs, exports its traces, sends its events", async () => {
      const gateway = handle.current
      const project = await createProject(gateway, "example")
      const env = { SVC_API_KEY: project.api_key, SVC_BASE_URL: gateway.baseUrl }
      const ran = await runExample(env)
      expect(ran.stderr, ran.stdout).toBe("")
      expect(ran.code).toBe(0)
      expect(ran.stdout).toContain("you: What is the weather in Lisbon?\nassistant: The forecast says:")
      const summary = summaryOf(ran)
      expect(summary).toMatchObject({ messages: 6, runs_reported: 3, runs_from_traces: 3, traces: 3 })
      const threadId = String(summary.thread_id)

      const user = asUser(gateway, project.api_key, "example-user", "example-workspace")
      // The conversation: six AI SDK messages, each the child of the one before.
      const listed = await user("GET", `/threads/${threadId}/messages`)
      const messages = listed.body.messages as ReadonlyArray<Message>
      expect(messages.map((message) => message.content.role)).toEqual([
        "user",
        "assistant",
        "user",
        "assistant",
        "user",
        "assistant"
      ])
      expect(messages.every((message) => message.format === "ai-sdk/v6")).toBe(true)
      expect(messages.map((message) => message.parent_id)).toEqual([null, ...messages.slice(0, -1).map((m) => m.id)])
      expect(textOf(messages[1] as Message)).toBe("You said: Hello there!")
      // The tool's turn: a tool part, then the answer built from its result.
      const weather = messages[3] as Message
      expect(weather.content.parts.map((part) => part.type)).toContain("tool-get_weather")
      expect(textOf(weather)).toMatch(/^The forecast says: .+\.$/)
      expect((await user("GET", `/threads/${threadId}`)).body.title).toBe("Hello there")

      // Runs: three reported (one per answer) and three derived from the spans, pairwise on one trace.
      const runs = (await user("GET", `/projects/runs?thread_id=${threadId}`)).body.runs as ReadonlyArray<RunRow>
      const reported = runs.filter((run) => run.span_id === null)
      const derived = runs.filter((run) => run.span_id !== null)
      expect(reported).toHaveLength(3)
      expect(derived).toHaveLength(3)
      const answers = messages.filter((message) => message.content.role === "assistant").map((message) => message.id)
      expect(new Set(reported.map((run) => run.message_id))).toEqual(new Set(answers))
      for (const run of reported) {
        const twin = derived.find((other) => other.trace_id === run.trace_id)
        expect(run.trace_id).toMatch(/^[0-9a-f]{32}$/)
        expect(twin, `the derived run of trace ${run.trace_id}`).toBeDefined()
        expect(run).toMatchObject({
          status: "completed",
          model_id: "local-echo-1",
          tags: ["example"],
          environment: "development",
          release: "example-chat@1.0.0",
          input_tokens: twin?.input_tokens,
          output_tokens: twin?.output_tokens
        })
      }
      const toolTurns = reported.filter((run) => run.tool_call_count === 1)
      expect(toolTurns).toHaveLength(2)
      expect(toolTurns.every((run) => run.total_steps === 2)).toBe(true)
      const detail = (await user("GET", `/projects/runs/${toolTurns[0]?.id}?full=true`)).body
      expect(detail.tool_calls).toMatchObject([{ tool_name: "get_weather" }])

      // Events: a message_sent per user message, under the gateway's ids; the SDK identity.
      const sent = (await eventsOf(gateway, project.project_id, threadId)).filter((row) => row.kind === "message_sent")
      expect(sent.map((row) => row.message_id)).toEqual(
        messages.filter((message) => message.content.role === "user").map((message) => message.id)
      )
      await expectSdkClients(gateway, project.project_id, ["svc-example-chat/1.0.0"])

      // Continued from stdin: the history reloads in order, the new message follows the last answer.
      const more = await runExample({ ...env, SVC_THREAD_ID: threadId }, ["--chat"], "and the weather in Oslo?\n\n")
      expect(more.stderr, more.stdout).toBe("")
      expect(more.code).toBe(0)
      expect(more.stdout).toContain(`continuing ${threadId} (6 messages stored)`)
      expect(summaryOf(more)).toMatchObject({ messages: 8, runs_reported: 4, runs_from_traces: 4 })
      const after = (await user("GET", `/threads/${threadId}/messages`)).body.messages as ReadonlyArray<Message>
      expect(after[6]?.parent_id).toBe(messages[5]?.id)
      expect(textOf(after[7] as Message)).toMatch(/^The forecast says: .+\.$/)
      expect(errors).toEqual([])
    }, 120_000)

    it("without SVC_API_KEY it says what to set and exits 2", async () => {
      const ran = await runExample({ SVC_API_KEY: "", SVC_BASE_URL: handle.current.baseUrl })
      expect(ran.code).toBe(2)
      expect(ran.stderr).toContain("Set SVC_API_KEY")
    }, 60_000)
  })
