/**
 * Model-call spans become runs: one per span however often exported, with its
 * thread when it names one of the project, its tool calls (also from tool
 * spans exported later), counted in usage; reported runs with the trace id
 * are listed under the trace. Conventions: OpenTelemetry GenAI (current and
 * older names, messages as attributes or events), OpenInference.
 */
import { beforeAll, describe, expect, it } from "vitest"
import { asUser, call, createProject, type Reply, stores, useGateway } from "../../support/layers.js"
import { exportOf, jsonSpan, postJson, spanIdOf, traceIdOf } from "./otlp.js"

describe.each(stores)("runs from trace spans ($name)", (storeUnderTest) => {
  const gateway = useGateway(storeUnderTest)
  let apiKey: string
  let threadId: string
  const base = () => gateway.current.baseUrl
  const read = (path: string): Promise<Reply> =>
    call(base(), "GET", `/v1/projects${path}`, { headers: { authorization: `Bearer ${apiKey}` } })
  const runOfSpan = async (trace: number, span: number) => {
    const list = await read(`/runs?trace_id=${traceIdOf(trace)}`)
    expect(list.status, list.text).toBe(200)
    return (list.body.runs as Array<{ id: string; span_id: string | null }>).filter(
      (run) => run.span_id === spanIdOf(span)
    )
  }

  beforeAll(async () => {
    const project = await createProject(gateway.current, "trace-runs")
    apiKey = project.api_key
    const user = asUser(gateway.current, apiKey, "user-1", "ws-1")
    const thread = await user("POST", "/threads", { body: { last_message_at: new Date().toISOString() } })
    expect(thread.status, thread.text).toBe(201)
    threadId = thread.body.thread_id
  })

  it("a GenAI chat span becomes one run, once, linked to its thread, and counted in usage", async () => {
    const before = (await read("/usage/period")).body
    const chat = jsonSpan({
      trace: 1,
      span: 2,
      parent: 1,
      name: "chat gpt-4o-mini",
      durationMs: 1500,
      attributes: {
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": "openai",
        "gen_ai.request.model": "gpt-4o-mini",
        "gen_ai.response.model": "gpt-4o-mini-2024-07-18",
        "gen_ai.usage.input_tokens": 812,
        "gen_ai.usage.output_tokens": 164,
        "gen_ai.response.finish_reasons": ["tool_calls"],
        "gen_ai.conversation.id": threadId,
        "gen_ai.output.messages": JSON.stringify([
          {
            role: "assistant",
            parts: [
              { type: "text", content: "Let me look that up." },
              { type: "tool_call", id: "call_1", name: "search", arguments: { q: "weather" } }
            ]
          }
        ])
      }
    })
    const root = jsonSpan({
      trace: 1,
      span: 1,
      name: "invoke_agent",
      attributes: { "gen_ai.operation.name": "invoke_agent" }
    })
    for (let i = 0; i < 2; i++) expect((await postJson(base(), apiKey, exportOf([root, chat]))).text).toBe("{}")
    const runs = await runOfSpan(1, 2)
    expect(runs).toHaveLength(1)
    const run = await read(`/runs/${runs[0]?.id}`)
    expect(run.body).toMatchObject({
      thread_id: threadId,
      workspace_id: "ws-1",
      user_id: "user-1",
      status: "completed",
      model_id: "gpt-4o-mini-2024-07-18",
      provider: "openai",
      input_tokens: 812,
      output_tokens: 164,
      duration_ms: 1500,
      trace_id: traceIdOf(1),
      span_id: spanIdOf(2),
      output_text: "Let me look that up.",
      tool_call_count: 1,
      tool_calls: [{ tool_name: "search", tool_call_id: "call_1", tool_args: { q: "weather" } }],
      attributes: { source: "trace", convention: "gen_ai", finish_reason: "tool_calls" }
    })
    // The tool ran after the call that asked for it, and is exported later: the run takes its result.
    const tool = jsonSpan({
      trace: 1,
      span: 3,
      parent: 1,
      startMs: 1600,
      attributes: {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": "search",
        "gen_ai.tool.call.id": "call_1",
        "gen_ai.tool.call.result": JSON.stringify({ sunny: true })
      }
    })
    expect((await postJson(base(), apiKey, exportOf([tool]))).text).toBe("{}")
    const completed = await read(`/runs/${runs[0]?.id}`)
    expect(completed.body.tool_calls).toEqual([
      expect.objectContaining({ tool_name: "search", tool_call_id: "call_1", tool_result: { sunny: true } })
    ])
    expect(completed.body.tool_call_count).toBe(1)
    const trace = await read(`/traces/${traceIdOf(1)}`)
    expect(trace.body.spans.map((span: { role: string | null }) => span.role)).toEqual([
      null,
      "model_call",
      "tool_call"
    ])
    expect(trace.body.spans[1].run_id).toBe(runs[0]?.id)
    expect(trace.body.runs.map((listed: { id: string }) => listed.id)).toEqual([runs[0]?.id])
    const after = (await read("/usage/period")).body
    expect(after.runs - before.runs).toBe(1)
    expect(after.input_tokens - before.input_tokens).toBe(812)
    expect(after.output_tokens - before.output_tokens).toBe(164)
  })

  it("older GenAI names, messages on events, an error status, and a thread that is not the project's", async () => {
    const span = jsonSpan({
      trace: 2,
      span: 1,
      name: "openai.chat",
      status: 2,
      statusMessage: "rate limited upstream",
      attributes: {
        "gen_ai.system": "openai",
        "gen_ai.request.model": "gpt-4",
        "gen_ai.usage.prompt_tokens": 10,
        "gen_ai.usage.completion_tokens": 0,
        "svc.thread_id": "thread_of_someone_else"
      },
      events: [
        { name: "gen_ai.user.message", atMs: 1, attributes: { content: "hi" } },
        {
          name: "gen_ai.choice",
          atMs: 2,
          attributes: { message: JSON.stringify({ role: "assistant", content: "hello" }) }
        }
      ]
    })
    await postJson(base(), apiKey, exportOf([span]))
    const [run] = await runOfSpan(2, 1)
    const full = await read(`/runs/${run?.id}`)
    expect(full.body).toMatchObject({
      thread_id: null,
      workspace_id: null,
      user_id: null,
      status: "error",
      error: "rate limited upstream",
      model_id: "gpt-4",
      provider: "openai",
      input_tokens: 10,
      output_tokens: 0,
      output_text: "hello"
    })
    // The prompt stays on the span, which the run names.
    const spans = (await read(`/traces/${traceIdOf(2)}`)).body.spans
    expect(spans[0].events.map((event: { name: string }) => event.name)).toEqual([
      "gen_ai.user.message",
      "gen_ai.choice"
    ])
    const errors = await read(`/runs?status=error&trace_id=${traceIdOf(2)}`)
    expect(errors.body.runs).toHaveLength(1)
  })

  it("an OpenInference LLM span with flattened messages and a TOOL child becomes one run", async () => {
    const llm = jsonSpan({
      trace: 3,
      span: 1,
      name: "ChatCompletion",
      attributes: {
        "openinference.span.kind": "LLM",
        "llm.model_name": "claude-sonnet-4",
        "llm.provider": "anthropic",
        "llm.token_count.prompt": 50,
        "llm.token_count.completion": 7,
        "session.id": threadId,
        "llm.input_messages.0.message.role": "user",
        "llm.input_messages.0.message.content": "weather?",
        "llm.output_messages.0.message.role": "assistant",
        "llm.output_messages.0.message.content": "Checking.",
        "llm.output_messages.0.message.tool_calls.0.tool_call.id": "t1",
        "llm.output_messages.0.message.tool_calls.0.tool_call.function.name": "weather",
        "llm.output_messages.0.message.tool_calls.0.tool_call.function.arguments": '{"city":"Paris"}'
      }
    })
    const tool = jsonSpan({
      trace: 3,
      span: 2,
      parent: 1,
      attributes: { "openinference.span.kind": "TOOL", "tool.name": "weather", "output.value": "rain" }
    })
    const chain = jsonSpan({ trace: 3, span: 3, attributes: { "openinference.span.kind": "CHAIN" } })
    await postJson(base(), apiKey, exportOf([llm, tool, chain]))
    const [run] = await runOfSpan(3, 1)
    const full = await read(`/runs/${run?.id}`)
    expect(full.body).toMatchObject({
      thread_id: threadId,
      model_id: "claude-sonnet-4",
      provider: "anthropic",
      input_tokens: 50,
      output_tokens: 7,
      output_text: "Checking.",
      attributes: { convention: "openinference" }
    })
    // The TOOL span names no call id: it is the declared call of its tool, with the span's result.
    expect(full.body.tool_calls).toEqual([
      expect.objectContaining({
        tool_name: "weather",
        tool_call_id: "t1",
        tool_args: { city: "Paris" },
        tool_result: "rain"
      })
    ])
    const spans = (await read(`/traces/${traceIdOf(3)}`)).body.spans
    expect(
      spans.map((span: { convention: string | null; role: string | null }) => [span.convention, span.role])
    ).toEqual([
      ["openinference", "model_call"],
      ["openinference", "tool_call"],
      ["openinference", null]
    ])
  })

  it("a run report carrying the trace id is listed under the trace", async () => {
    const user = asUser(gateway.current, apiKey, "user-1", "ws-1")
    await postJson(base(), apiKey, exportOf([jsonSpan({ trace: 4, span: 1, name: "request" })]))
    const report = await user("POST", "/runs", {
      body: { thread_id: threadId, status: "completed", trace_id: traceIdOf(4), model_id: "m" }
    })
    expect(report.status, report.text).toBe(201)
    const trace = await read(`/traces/${traceIdOf(4)}`)
    expect(trace.body.runs.map((run: { id: string }) => run.id)).toEqual([report.body.run_id])
    expect(trace.body.trace.run_count).toBe(1)
  })
})
