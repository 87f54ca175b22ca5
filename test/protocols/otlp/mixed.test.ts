/**
 * An export whose traces are partly new to the store and partly stored
 * before: the new ones go in one statement (src/traces/SpansRepo.ts
 * storeNew), the others under their trace's lock (store). Both halves of one
 * export come out as a single export would: every span kept once, each
 * trace's row counting its spans, the run of a stored trace completed by its
 * later tool span, the new trace's run made once, and a re-sent export
 * changing nothing.
 */
import { beforeAll, describe, expect, it } from "vitest"
import { call, createProject, type Reply, stores, useGateway } from "../../support/layers.js"
import { exportOf, jsonSpan, postJson, spanIdOf, traceIdOf } from "./otlp.js"

const chat = (trace: number) =>
  jsonSpan({
    trace,
    span: 2,
    parent: 1,
    name: "chat gpt-4o-mini",
    attributes: {
      "gen_ai.operation.name": "chat",
      "gen_ai.provider.name": "openai",
      "gen_ai.request.model": "gpt-4o-mini",
      "gen_ai.usage.input_tokens": 10,
      "gen_ai.usage.output_tokens": 5,
      "gen_ai.output.messages": JSON.stringify([
        { role: "assistant", parts: [{ type: "tool_call", id: "call_1", name: "search", arguments: { q: "x" } }] }
      ])
    }
  })

const tool = (trace: number) =>
  jsonSpan({
    trace,
    span: 3,
    parent: 1,
    startMs: 40,
    attributes: {
      "gen_ai.operation.name": "execute_tool",
      "gen_ai.tool.name": "search",
      "gen_ai.tool.call.id": "call_1",
      "gen_ai.tool.call.result": JSON.stringify({ found: trace })
    }
  })

describe.each(stores)("an export of new and stored traces ($name)", (storeUnderTest) => {
  const gateway = useGateway(storeUnderTest)
  let apiKey: string
  const read = (path: string): Promise<Reply> =>
    call(gateway.current.baseUrl, "GET", `/v1/projects${path}`, { headers: { authorization: `Bearer ${apiKey}` } })
  const runsOf = async (trace: number) => {
    const list = await read(`/runs?trace_id=${traceIdOf(trace)}`)
    expect(list.status, list.text).toBe(200)
    return list.body.runs as Array<{ id: string; span_id: string | null }>
  }

  beforeAll(async () => {
    apiKey = (await createProject(gateway.current, "mixed")).api_key
  })

  it("stores both halves as one export would, and a re-sent export changes nothing", async () => {
    const first = await postJson(
      gateway.current.baseUrl,
      apiKey,
      exportOf([jsonSpan({ trace: 11, span: 1, name: "agent eleven" }), chat(11)])
    )
    expect(first.text).toBe("{}")
    // Trace 11 is stored (its tool span comes now); trace 12 is new, whole.
    const mixed = exportOf([
      tool(11),
      jsonSpan({ trace: 12, span: 1, name: "agent twelve" }),
      chat(12),
      tool(12),
      jsonSpan({ trace: 12, span: 4, parent: 1, status: 2, statusMessage: "boom" })
    ])
    for (const attempt of ["sent", "re-sent"]) {
      const answer = await postJson(gateway.current.baseUrl, apiKey, mixed)
      expect(answer.text, attempt).toBe("{}")
      for (const [trace, name, spans, errors] of [
        [11, "agent eleven", 3, 0],
        [12, "agent twelve", 4, 1]
      ] as const) {
        const read_ = await read(`/traces/${traceIdOf(trace)}`)
        expect(read_.status, read_.text).toBe(200)
        expect(read_.body.trace).toMatchObject({
          name,
          service_name: "chat-app",
          span_count: spans,
          error_count: errors
        })
        expect(read_.body.spans).toHaveLength(spans)
        const runs = await runsOf(trace)
        expect(runs.map((run) => run.span_id)).toEqual([spanIdOf(2)])
        const run = await read(`/runs/${runs[0]?.id}`)
        expect(run.body.tool_calls).toEqual([
          expect.objectContaining({ tool_name: "search", tool_call_id: "call_1", tool_result: { found: trace } })
        ])
        expect(read_.body.spans[1].run_id).toBe(runs[0]?.id)
      }
    }
    const listed = await read("/traces")
    expect(listed.status, listed.text).toBe(200)
    expect(listed.body.traces.map((trace: { trace_id: string }) => trace.trace_id).sort()).toEqual(
      [traceIdOf(11), traceIdOf(12)].sort()
    )
  })
})
