/**
 * The MCP endpoint through the official SDK's Client over
 * StreamableHTTPClientTransport against a gateway on a real socket: every
 * tool and resource listed, every tool called and its structured result
 * (which the SDK checks against the tool's output schema) compared with what
 * was written through REST and OTLP; invalid input and another project's ids
 * for every tool; the transport's 401, 405 and host rules. Raw HTTP for what
 * the SDK client never sends: JSON-RPC batches and malformed params.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js"
import { CallToolResultSchema, ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { newMessage, newThread } from "../../support/helpers.js"
import { asUser, call, createProject, stores, type UserClient, useGateway } from "../../support/layers.js"
import { exportOf, jsonSpan, postJson, traceIdOf } from "../otlp/otlp.js"

const TOOLS = [
  "get_run",
  "get_thread",
  "get_trace",
  "list_runs",
  "list_scores",
  "list_threads",
  "list_topics",
  "list_traces",
  "search_threads",
  "usage_daily",
  "usage_period"
]

interface Written {
  readonly threadId: string
  readonly titledThreadId: string
  readonly messageIds: ReadonlyArray<string>
  readonly runId: string
  readonly scoreId: string
  readonly traceId: string
}

const write = async (client: UserClient, baseUrl: string, apiKey: string, n: number): Promise<Written> => {
  const threadId = await newThread(client)
  const titledThreadId = await newThread(client, { title: `Garden planning ${n}` })
  const messageIds: Array<string> = []
  for (let i = 0; i < 3; i++) {
    messageIds.push(
      await newMessage(client, threadId, {
        parent: messageIds.at(-1) ?? null,
        content: {
          role: i % 2 === 0 ? "user" : "assistant",
          content: [{ type: "text", text: `tomato note ${n}.${i}` }]
        }
      })
    )
  }
  const traceId = traceIdOf(700 + n)
  const run = await client("POST", "/runs", {
    body: { thread_id: threadId, status: "completed", model_id: "gpt-4o-mini", trace_id: traceId }
  })
  expect(run.status, run.text).toBe(201)
  const score = await client("POST", "/scores", {
    body: { data_type: "numeric", value: 0.8, name: "helpfulness", run_id: run.body.run_id }
  })
  expect(score.status, score.text).toBe(201)
  const exported = await postJson(
    baseUrl,
    apiKey,
    exportOf([
      jsonSpan({
        trace: 700 + n,
        span: 1,
        name: "chat gpt-4o-mini",
        attributes: {
          "gen_ai.operation.name": "chat",
          "gen_ai.request.model": "gpt-4o-mini",
          "gen_ai.usage.input_tokens": 10,
          "gen_ai.usage.output_tokens": 5
        }
      })
    ])
  )
  expect(exported.status, exported.text).toBe(200)
  return {
    threadId,
    titledThreadId,
    messageIds,
    runId: run.body.run_id,
    scoreId: score.body.score_id,
    traceId
  }
}

describe.each(stores)("MCP endpoint ($name)", (storeUnderTest) => {
  const gateway = useGateway(storeUnderTest)
  let apiKey: string
  let mine: Written
  let theirs: Written
  let client: Client

  const connect = async (key: string) => {
    const mcp = new Client({ name: "mcp-test", version: "1.0.0" })
    await mcp.connect(
      new StreamableHTTPClientTransport(new URL(`${gateway.current.baseUrl}/v1/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${key}` } }
      })
    )
    return mcp
  }
  const callTool = async (name: string, args: Record<string, unknown> = {}) => {
    const result = await client.callTool({ name, arguments: args })
    expect(result.isError, JSON.stringify(result.content)).toBeFalsy()
    return result.structuredContent as Record<string, any>
  }
  /** A raw POST to the endpoint: `payload` as JSON, or as the body itself when it is a string. */
  const rpc = async (
    payload: unknown,
    { protocolVersion = "2025-06-18", key = apiKey }: { protocolVersion?: string | null; key?: string } = {}
  ) => {
    const reply = await fetch(`${gateway.current.baseUrl}/v1/mcp`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        authorization: `Bearer ${key}`,
        ...(protocolVersion === null ? {} : { "mcp-protocol-version": protocolVersion })
      },
      body: typeof payload === "string" ? payload : JSON.stringify(payload)
    })
    const text = await reply.text()
    return { status: reply.status, text, body: text === "" ? undefined : JSON.parse(text) }
  }
  const rest = async (path: string) => {
    const reply = await call(gateway.current.baseUrl, "GET", `/v1/projects${path}`, {
      headers: { authorization: `Bearer ${apiKey}` }
    })
    expect(reply.status, reply.text).toBe(200)
    return reply.body
  }

  beforeAll(async () => {
    const project = await createProject(gateway.current, "mcp")
    apiKey = project.api_key
    const other = await createProject(gateway.current, "mcp-other")
    mine = await write(asUser(gateway.current, apiKey, "user-1", "ws-1"), gateway.current.baseUrl, apiKey, 1)
    theirs = await write(
      asUser(gateway.current, other.api_key, "user-9", "ws-9"),
      gateway.current.baseUrl,
      other.api_key,
      2
    )
    client = await connect(apiKey)
  })
  afterAll(async () => {
    await client?.close()
  })

  it("introduces itself with instructions, and lists every tool read-only with input and output schemas", async () => {
    expect(client.getServerVersion()?.name).toBe("svc-gateway")
    expect(client.getInstructions()).toContain("search_threads")
    const { tools } = await client.listTools()
    expect(tools.map((tool) => tool.name).sort()).toEqual(TOOLS)
    for (const tool of tools) {
      expect(tool.annotations?.readOnlyHint, tool.name).toBe(true)
      expect(tool.description?.length ?? 0, tool.name).toBeGreaterThan(40)
      expect(tool.inputSchema.type).toBe("object")
      expect(tool.outputSchema?.type, tool.name).toBe("object")
    }
    const listThreads = tools.find((tool) => tool.name === "list_threads")
    expect(listThreads?.inputSchema.properties?.limit).toMatchObject({ type: "integer", maximum: 100 })
  })

  it("list_threads and get_thread answer what REST answers, paged", async () => {
    const listed = await callTool("list_threads", { limit: 10 })
    const restThreads = (await rest("/threads?limit=10")).threads
    expect(listed.threads).toEqual(restThreads)
    expect(listed.threads.map((thread: { id: string }) => thread.id).sort()).toEqual(
      [mine.threadId, mine.titledThreadId].sort()
    )
    expect(listed.next_after).toBeNull()
    const firstPage = await callTool("list_threads", { limit: 1 })
    expect(firstPage.next_after).toBe(restThreads[0].id)
    const secondPage = await callTool("list_threads", { limit: 1, after: firstPage.next_after })
    expect(secondPage.threads).toEqual([restThreads[1]])

    const thread = await callTool("get_thread", { thread_id: mine.threadId, limit: 2 })
    expect(thread.thread.id).toBe(mine.threadId)
    expect(thread.messages).toEqual((await rest(`/threads/${mine.threadId}/messages?limit=2`)).messages)
    expect(thread.next_after).toBe(mine.messageIds[1])
    const rest2 = await callTool("get_thread", { thread_id: mine.threadId, after: thread.next_after })
    expect(rest2.messages.map((message: { id: string }) => message.id)).toEqual([mine.messageIds[2]])
    expect(rest2.next_after).toBeNull()
    const text = await client.callTool({ name: "get_thread", arguments: { thread_id: mine.threadId } })
    expect(JSON.stringify(text.content)).toContain("tomato note 1.0")
  })

  it("list_runs, get_run and list_scores answer what REST answers", async () => {
    const runs = await callTool("list_runs", {})
    expect(runs.runs).toEqual((await rest("/runs")).runs)
    expect(runs.runs.map((run: { id: string }) => run.id)).toContain(mine.runId)
    const byTrace = await callTool("list_runs", { trace_id: mine.traceId, status: "completed" })
    expect(byTrace.runs.length).toBeGreaterThanOrEqual(2) // the reported run and the span's
    const run = await callTool("get_run", { run_id: mine.runId })
    expect(run).toEqual(await rest(`/runs/${mine.runId}`))
    const scores = await callTool("list_scores", { name: "helpfulness" })
    expect(scores.scores).toEqual((await rest("/scores?name=helpfulness")).scores)
    expect(scores.scores.map((score: { id: string }) => score.id)).toEqual([mine.scoreId])
  })

  it("usage_daily and usage_period answer what REST answers", async () => {
    const today = new Date().toISOString().slice(0, 10)
    const daily = await callTool("usage_daily", { from: today, to: today })
    expect(daily).toEqual(await rest(`/usage/daily?from=${today}&to=${today}`))
    expect(daily.days[0].messages).toBe(3)
    const period = await callTool("usage_period", {})
    expect(period).toEqual(await rest("/usage/period"))
    expect(period.threads).toBe(2)
  })

  it("list_traces and get_trace answer what REST answers", async () => {
    const traces = await callTool("list_traces", { limit: 5 })
    const restTraces = await rest("/traces?limit=5")
    expect(traces.traces).toEqual(restTraces.traces)
    expect(traces.next_after).toBe(restTraces.next_after)
    const trace = await callTool("get_trace", { trace_id: mine.traceId })
    const restTrace = await rest(`/traces/${mine.traceId}`)
    expect(trace).toEqual({ ...restTrace, spans_omitted: 0 })
    expect(trace.runs.length).toBe(2)
  })

  it("search_threads finds by title and message text, with snippets", async () => {
    const found = await callTool("search_threads", { q: "tomato" })
    expect(found).toEqual(await rest("/search?q=tomato"))
    expect(found.results.map((hit: { thread: { id: string } }) => hit.thread.id)).toEqual([mine.threadId])
    const byTitle = await callTool("search_threads", { q: "garden", limit: 5 })
    expect(byTitle.results[0].thread.id).toBe(mine.titledThreadId)
    const text = await client.callTool({ name: "search_threads", arguments: { q: "tomato" } })
    expect(JSON.stringify(text.content)).toContain("«tomato»")
  })

  it("another project's ids are not found, never its data", async () => {
    const cases: ReadonlyArray<[string, Record<string, unknown>]> = [
      ["get_thread", { thread_id: theirs.threadId }],
      ["get_run", { run_id: theirs.runId }],
      ["get_trace", { trace_id: theirs.traceId }]
    ]
    for (const [name, args] of cases) {
      const result = await client.callTool({ name, arguments: args })
      expect(result.isError, name).toBe(true)
      expect(JSON.stringify(result.content)).toMatch(/not found in this project/)
      expect(result.structuredContent).toBeUndefined()
    }
    // Lists filtered by another project's ids answer nothing of it.
    expect((await callTool("list_runs", { thread_id: theirs.threadId })).runs).toEqual([])
    expect((await callTool("list_runs", { trace_id: theirs.traceId })).runs).toEqual([])
    expect((await callTool("list_scores", { run_id: theirs.runId })).scores).toEqual([])
    expect((await callTool("search_threads", { q: "tomato note 2" })).results).toEqual([])
    expect((await callTool("list_traces", {})).traces.map((trace: { trace_id: string }) => trace.trace_id)).toEqual([
      mine.traceId
    ])
    const usage = await callTool("usage_period", {})
    expect(usage.runs).toBe(2)
    // A cursor from another project is refused as input, not followed.
    await expect(client.callTool({ name: "list_threads", arguments: { after: theirs.threadId } })).rejects.toThrow()
  })

  it("a tools/call answered without the SDK's server is what its transport answers; what it refuses is still refused", async () => {
    const toolCall = (id: unknown, name: string, args: Record<string, unknown>, extra: object = {}) => ({
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: { name, arguments: args },
      ...extra
    })
    // The SDK's transport writes {result, jsonrpc, id} with the result its schema parsed, and errors
    // as {jsonrpc, id, error} with the McpError's "MCP error <code>: " message.
    for (const [id, name, args] of [
      [1, "list_threads", { limit: 2 }],
      ["call-2", "get_thread", { thread_id: mine.threadId, limit: 2 }],
      [0, "get_thread", { thread_id: theirs.threadId }],
      [4, "search_threads", { q: "tomato" }]
    ] as const) {
      const reply = await rpc(toolCall(id, name, args))
      expect(reply.status, name).toBe(200)
      expect(reply.body.result, reply.text.slice(0, 200)).toBeDefined()
      expect(reply.text, name).toBe(
        JSON.stringify({ result: CallToolResultSchema.parse(reply.body.result), jsonrpc: "2.0", id })
      )
    }
    const unknown = await rpc(toolCall(5, "no_such_tool", {}))
    expect(unknown.text).toBe(
      JSON.stringify({
        jsonrpc: "2.0",
        id: 5,
        error: { code: ErrorCode.InvalidParams, message: "MCP error -32602: no tool named no_such_tool" }
      })
    )
    const invalid = await rpc(toolCall(6, "list_threads", { limit: 0 }))
    expect(invalid.body.error.code).toBe(ErrorCode.InvalidParams)
    expect(invalid.body.error.message).toMatch(/^MCP error -32602: invalid arguments: limit/)
    // Without a protocol version header (2025-03-26), and with a media type parameter.
    expect((await rpc(toolCall(7, "list_threads", { limit: 1 }), { protocolVersion: null })).body.result).toBeDefined()
    // What the SDK's transport and server refuse, they still refuse.
    const post = (body: unknown, headers: Record<string, string> = {}) =>
      fetch(`${gateway.current.baseUrl}/v1/mcp`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          authorization: `Bearer ${apiKey}`,
          ...headers
        },
        body: JSON.stringify(body)
      })
    const plain = toolCall(8, "list_threads", { limit: 1 })
    expect((await post(plain, { "content-type": "application/json; charset=utf-8" })).status).toBe(200)
    expect((await post(plain, { accept: "application/json" })).status).toBe(406)
    const version = await post(plain, { "mcp-protocol-version": "1999-01-01" })
    expect(version.status).toBe(400)
    expect((await version.json()).error.message).toMatch(/Unsupported protocol version/)
    for (const [shape, body] of [
      ["a key JSON-RPC does not have", toolCall(9, "list_threads", {}, { extra: true })],
      ["a fractional id", toolCall(1.5, "list_threads", {})],
      ["an id past 2^53", toolCall(2 ** 60, "list_threads", {})],
      ["jsonrpc 1.0", { ...toolCall(10, "list_threads", {}), jsonrpc: "1.0" }]
    ] as const) {
      const reply = await post(body)
      expect(reply.status, shape).toBe(400)
      expect((await reply.json()).error.code, shape).toBe(-32700)
    }
    const task = await rpc({ ...toolCall(11, "list_threads", {}), params: { name: "list_threads", task: { ttl: 1 } } })
    expect(task.body.error.code).toBe(ErrorCode.InternalError)
    expect(task.body.error.message).toMatch(/task/)
    // A tools/call without an id is a notification: nothing to answer.
    expect((await post({ jsonrpc: "2.0", method: "tools/call", params: { name: "list_threads" } })).status).toBe(202)
  })

  it("invalid input is a JSON-RPC invalid-params error naming the field, for every tool", async () => {
    const cases: ReadonlyArray<[string, Record<string, unknown>, RegExp]> = [
      ["list_threads", { limit: 0 }, /limit/],
      ["list_threads", { is_archived: "maybe" }, /is_archived/],
      ["get_thread", {}, /thread_id/],
      ["get_thread", { thread_id: mine.threadId, limit: -1 }, /limit/],
      ["list_runs", { status: "exploded" }, /status/],
      ["list_runs", { from: "yesterday" }, /from/],
      ["get_run", { run_id: 42.5 }, /run_id/],
      ["list_scores", { limit: "ten" }, /limit/],
      ["usage_daily", { from: "2026-02-31" }, /from/],
      ["usage_period", { from: "2020-01-01", to: "2026-01-01" }, /366/],
      ["list_traces", { after: "nonsense" }, /after/],
      ["get_trace", { trace_id: ["x"] }, /trace_id/],
      ["search_threads", {}, /q/],
      ["search_threads", { q: "fine", surprise: true }, /surprise/]
    ]
    for (const [name, args, field] of cases) {
      const failure = await client.callTool({ name, arguments: args }).then(
        () => undefined,
        (error: unknown) => error
      )
      expect(failure, `${name} ${JSON.stringify(args)}`).toBeInstanceOf(McpError)
      expect((failure as McpError).code).toBe(ErrorCode.InvalidParams)
      expect((failure as McpError).message, name).toMatch(field)
    }
    const unknown = await client.callTool({ name: "drop_tables", arguments: {} }).then(
      () => undefined,
      (error: unknown) => error
    )
    expect((unknown as McpError).code).toBe(ErrorCode.InvalidParams)
  })

  it("argument validation failures are -32602 with a short readable message, whatever their shape", async () => {
    const depth = 10_000
    const deep = `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`
    const request = (id: number, method: string, params: string) =>
      `{"jsonrpc":"2.0","id":${id},"method":"${method}","params":${params}}`
    const toolCall = (id: number, params: string) => request(id, "tools/call", params)
    const many = Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`k${i}`, i]))
    const cases: ReadonlyArray<[string, string, RegExp]> = [
      ["a 10,000-deep argument", toolCall(1, `{"name":"get_thread","arguments":{"thread_id":${deep}}}`), /thread_id/],
      ["10,000-deep arguments", toolCall(2, `{"name":"get_thread","arguments":${deep}}`), /\ba\b/],
      ["arguments an array", toolCall(3, `{"name":"get_thread","arguments":["${mine.threadId}"]}`), /arguments/],
      ["arguments a string", toolCall(4, `{"name":"get_thread","arguments":"${mine.threadId}"}`), /arguments/],
      ["params an array", request(5, "tools/call", `["get_thread",{"thread_id":"${mine.threadId}"}]`), /params/],
      ["a deep tool name", toolCall(6, `{"name":${deep},"arguments":{}}`), /name/],
      ["an array for a number", toolCall(7, `{"name":"list_threads","arguments":{"limit":[1,2,3]}}`), /limit/],
      [
        "an object for a string",
        toolCall(8, `{"name":"get_thread","arguments":{"thread_id":{"id":"x"}}}`),
        /thread_id/
      ],
      ["20,000 unknown arguments", toolCall(9, JSON.stringify({ name: "list_threads", arguments: many })), /k0/],
      [
        "a 300,000-character date",
        toolCall(10, JSON.stringify({ name: "usage_daily", arguments: { from: "x".repeat(300_000) } })),
        /from/
      ],
      [
        "a 300,000-character tool name",
        toolCall(13, JSON.stringify({ name: "x".repeat(300_000), arguments: {} })),
        /no tool named x+…$/
      ],
      ["a deep resource uri", request(11, "resources/read", `{"uri":${deep}}`), /uri/],
      ["an object cursor", request(12, "tools/list", `{"cursor":{"after":"x"}}`), /cursor/]
    ]
    for (const [shape, body, field] of cases) {
      const reply = await rpc(body)
      // Soft: every shape is reported, not only the first that fails.
      expect.soft(reply.status, shape).toBe(200)
      expect.soft(reply.body?.error?.code, `${shape}: ${reply.text.slice(0, 200)}`).toBe(ErrorCode.InvalidParams)
      const message = String(reply.body?.error?.message)
      expect.soft(message, shape).toMatch(field)
      expect.soft(message.length, `${shape}: ${message.slice(0, 200)}`).toBeLessThanOrEqual(400)
      // Never a stack overflow's text, a validator's dump or the value echoed back.
      expect.soft(message, shape).not.toMatch(/call stack|\n|"code"|\{"|\[\{|x{64}/)
    }
  })

  it("a JSON-RPC batch runs its calls one at a time, and its whole answer stays within 1 MiB", async () => {
    // Six messages of 60 KB: get_thread cuts its page at 256 KB, so about four answers fill the batch's bound.
    // In a project of its own, so that the other tests' counts stay as they are.
    const project = await createProject(gateway.current, "mcp-batch")
    const user = asUser(gateway.current, project.api_key, "user-1", "ws-1")
    const big = await newThread(user)
    const written: Array<string> = []
    for (let i = 0; i < 6; i++) {
      written.push(
        await newMessage(user, big, {
          parent: written.at(-1) ?? null,
          content: { role: "user", content: [{ type: "text", text: `${i} ${"lorem ipsum ".repeat(5_000)}` }] }
        })
      )
    }
    const calls = Array.from({ length: 12 }, (_, id) => ({
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: { name: "get_thread", arguments: { thread_id: big } }
    }))
    const batch = [
      calls[0],
      { jsonrpc: "2.0", method: "notifications/initialized" },
      "not a message",
      { jsonrpc: "2.0", id: "unknown", method: "no/such/method" },
      { jsonrpc: "2.0", id: "odd", method: "ping", extra: true },
      ...calls.slice(1)
    ]
    // Without MCP-Protocol-Version: 2025-03-26, the revision that has batches.
    const reply = await rpc(batch, { protocolVersion: null, key: project.api_key })
    expect(reply.status, reply.text.slice(0, 300)).toBe(200)
    expect(Buffer.byteLength(reply.text)).toBeLessThanOrEqual(1024 * 1024 + 16 * 300)
    const answers = reply.body as Array<{ id: unknown; result?: any; error?: { code: number; message: string } }>
    // One answer per request, in order; none for the notification; -32600 with id null for what is not JSON-RPC.
    expect(answers.map((answer) => answer.id)).toEqual([
      0,
      null,
      "unknown",
      "odd",
      ...calls.slice(1).map((call) => call.id)
    ])
    expect(answers[1]?.error?.code).toBe(ErrorCode.InvalidRequest)
    expect(answers[2]?.error?.code).toBe(ErrorCode.MethodNotFound)
    expect(answers[3]?.error?.code).toBe(ErrorCode.InvalidRequest)
    const ran = answers.filter((answer) => typeof answer.id === "number" && answer.result !== undefined)
    const leftOut = answers.filter((answer) => typeof answer.id === "number" && answer.error !== undefined)
    expect(ran.length).toBeGreaterThanOrEqual(3)
    expect(leftOut.length).toBeGreaterThan(0)
    expect(ran.length + leftOut.length).toBe(calls.length)
    // The calls that ran are the first ones; each later one says why it did not and what to do.
    expect(ran.map((answer) => answer.id)).toEqual(calls.slice(0, ran.length).map((call) => call.id))
    expect(ran[0]?.result.structuredContent.messages.length).toBeGreaterThanOrEqual(3)
    // The answer that would pass the bound is left out, and the requests after it do not run.
    for (const answer of leftOut) expect(answer.error?.code).toBe(-32000)
    expect(leftOut[0]?.error?.message).toMatch(/^left out: .*1 MiB.*again/)
    for (const answer of leftOut.slice(1)) expect(answer.error?.message).toMatch(/^not run: .*1 MiB.*again/)
    // Read page by page, the large thread comes whole, each message once and in order, each page within 256 KB.
    const seen: Array<string> = []
    let after: string | null | undefined
    for (let page = 0; page < 6 && after !== null; page++) {
      const reply = await rpc(
        {
          jsonrpc: "2.0",
          id: page,
          method: "tools/call",
          params: { name: "get_thread", arguments: { thread_id: big, ...(after === undefined ? {} : { after }) } }
        },
        { key: project.api_key }
      )
      const structured = reply.body.result.structuredContent
      expect(Buffer.byteLength(JSON.stringify(structured))).toBeLessThanOrEqual(256 * 1024)
      seen.push(...structured.messages.map((message: { id: string }) => message.id))
      after = structured.next_after
    }
    expect(after).toBeNull()
    expect(seen).toEqual(written)
  })

  it("a batch that is empty, longer than 100 messages or carries initialize is refused whole: 400, -32600", async () => {
    const ping = (id: number) => ({ jsonrpc: "2.0", id, method: "ping" })
    const initialize = {
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: { protocolVersion: "2025-03-26", capabilities: {}, clientInfo: { name: "raw", version: "1" } }
    }
    for (const [shape, batch, message] of [
      ["empty", [], /empty/],
      ["101 messages", Array.from({ length: 101 }, (_, id) => ping(id)), /100/],
      ["initialize", [initialize, ping(1)], /initialize/]
    ] as const) {
      const reply = await rpc(batch, { protocolVersion: null })
      expect(reply.status, shape).toBe(400)
      expect(reply.body?.error?.code, `${shape}: ${reply.text}`).toBe(ErrorCode.InvalidRequest)
      expect(reply.body.error.message, shape).toMatch(message)
      expect(reply.body.id, shape).toBeNull()
    }
    // A batch of notifications only is accepted with nothing to answer; a small batch is answered whole.
    expect(
      (await rpc([{ jsonrpc: "2.0", method: "notifications/initialized" }], { protocolVersion: null })).status
    ).toBe(202)
    const small = await rpc([ping(1), { jsonrpc: "2.0", id: 2, method: "tools/list" }], { protocolVersion: null })
    expect(small.status).toBe(200)
    expect(small.body.map((answer: { id: number }) => answer.id)).toEqual([1, 2])
    expect(small.body[1].result.tools.length).toBe(TOOLS.length)
  })

  it("threads are resources: a template, a list, and a bounded transcript; another project's is not found", async () => {
    const { resourceTemplates } = await client.listResourceTemplates()
    expect(resourceTemplates.map((template) => template.uriTemplate)).toEqual(["svc://threads/{thread_id}"])
    const { resources } = await client.listResources()
    expect(resources.map((resource) => resource.uri).sort()).toEqual(
      [`svc://threads/${mine.threadId}`, `svc://threads/${mine.titledThreadId}`].sort()
    )
    const read = await client.readResource({ uri: `svc://threads/${mine.threadId}` })
    const text = (read.contents[0] as { text: string }).text
    expect(text).toContain("tomato note 1.2")
    expect(read.contents[0]?.mimeType).toBe("text/markdown")
    await expect(client.readResource({ uri: `svc://threads/${theirs.threadId}` })).rejects.toThrow(/no thread/)
    await expect(client.readResource({ uri: "svc://runs/x" })).rejects.toThrow(/no resource/)
  })

  it("the transport: 401 with WWW-Authenticate, 405 for GET and DELETE, 404 on the frontend host", async () => {
    const base = gateway.current.baseUrl
    const initialize = {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "1" } }
    }
    const headers = { "content-type": "application/json", accept: "application/json, text/event-stream" }
    const none = await fetch(`${base}/v1/mcp`, { method: "POST", headers, body: JSON.stringify(initialize) })
    expect(none.status).toBe(401)
    expect(none.headers.get("www-authenticate")).toMatch(/^Bearer/)
    const bad = await fetch(`${base}/v1/mcp`, {
      method: "POST",
      headers: { ...headers, authorization: "Bearer sk_nope" },
      body: JSON.stringify(initialize)
    })
    expect(bad.status).toBe(401)
    expect(bad.headers.get("www-authenticate")).toMatch(/invalid_token/)
    for (const method of ["GET", "DELETE"]) {
      const reply = await fetch(`${base}/v1/mcp`, { method, headers: { authorization: `Bearer ${apiKey}` } })
      expect(reply.status, method).toBe(405)
      expect(reply.headers.get("allow")).toBe("POST")
    }
    const ok = await fetch(`${base}/v1/mcp`, {
      method: "POST",
      headers: { ...headers, authorization: `Bearer ${apiKey}` },
      body: JSON.stringify(initialize)
    })
    expect(ok.status).toBe(200)
    expect(ok.headers.get("content-type")).toMatch(/application\/json/)
    expect((await ok.json()).result.serverInfo.name).toBe("svc-gateway")
    expect(ok.headers.get("mcp-session-id")).toBeNull()
    const notJson = await fetch(`${base}/v1/mcp`, {
      method: "POST",
      headers: { ...headers, "content-type": "text/plain", authorization: `Bearer ${apiKey}` },
      body: "hello"
    })
    expect(notJson.status).toBe(415)
    const garbage = await fetch(`${base}/v1/mcp`, {
      method: "POST",
      headers: { ...headers, authorization: `Bearer ${apiKey}` },
      body: "{not json"
    })
    expect(garbage.status).toBe(400)
  })
})
