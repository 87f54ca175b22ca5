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
import { chatSpan, exportOf, jsonSpan, postJson, spanIdOf, T0, traceIdOf } from "./otlp.js"

const chat = (trace: number) =>
  chatSpan(trace, {
    attributes: {
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

  it("keeps a trace's row as its services export their spans apart: name, service, times and counts", async () => {
    const iso = (ms: number) => new Date(Number(T0 / 1_000_000n) + ms).toISOString()
    const summary = async () => {
      const got = await read(`/traces/${traceIdOf(21)}`)
      expect(got.status, got.text).toBe(200)
      return got.body.trace
    }
    const send = async (service: string, spans: ReadonlyArray<unknown>) => {
      const answer = await postJson(gateway.current.baseUrl, apiKey, exportOf(spans, service))
      expect(answer.text).toBe("{}")
    }
    // A child span first: the trace is named after it.
    await send("db", [jsonSpan({ trace: 21, span: 5, parent: 1, name: "query", startMs: 50, durationMs: 10 })])
    expect(await summary()).toMatchObject({
      name: "query",
      service_name: "db",
      start_time: iso(50),
      end_time: iso(60),
      span_count: 1,
      error_count: 0
    })
    // An earlier child (and a later one with an error) from another service: named after the earliest.
    await send("cache", [
      jsonSpan({ trace: 21, span: 4, parent: 1, name: "lookup", startMs: 30, durationMs: 5 }),
      jsonSpan({ trace: 21, span: 6, parent: 1, name: "miss", startMs: 70, durationMs: 40, status: 2 })
    ])
    expect(await summary()).toMatchObject({
      name: "lookup",
      service_name: "cache",
      start_time: iso(30),
      end_time: iso(110),
      span_count: 3,
      error_count: 1
    })
    // The root span, though not the earliest: it names the trace from now on.
    await send("api", [jsonSpan({ trace: 21, span: 1, name: "GET /answer", startMs: 40, durationMs: 100 })])
    expect(await summary()).toMatchObject({
      name: "GET /answer",
      service_name: "api",
      start_time: iso(30),
      end_time: iso(140),
      span_count: 4,
      error_count: 1
    })
    // A still earlier child moves the start, not the name; a re-sent span counts once.
    await send("edge", [
      jsonSpan({ trace: 21, span: 7, parent: 1, name: "tls", startMs: 10, durationMs: 5, status: 2 }),
      jsonSpan({ trace: 21, span: 5, parent: 1, name: "query", startMs: 50, durationMs: 10 })
    ])
    expect(await summary()).toMatchObject({
      name: "GET /answer",
      service_name: "api",
      start_time: iso(10),
      end_time: iso(140),
      span_count: 5,
      error_count: 2
    })
    const spans = (await read(`/traces/${traceIdOf(21)}`)).body.spans as Array<{ name: string; service_name: string }>
    expect(spans.map((span) => [span.name, span.service_name])).toEqual([
      ["tls", "edge"],
      ["lookup", "cache"],
      ["GET /answer", "api"],
      ["query", "db"],
      ["miss", "cache"]
    ])
  })
})
