/**
 * POST /v1/runs (docs/api-and-auth.md "Run reports, scores and events", "Errors"; docs/decisions.md
 * "Run reports"):
 * strict run reports, every size limit just inside and just outside,
 * Idempotency-Key, tenancy, and the 4 MiB body cap. Stored runs are read
 * back through the project API.
 */
import { beforeAll, describe, expect, it } from "vitest"
import {
  asAnonymous,
  asJwtUser,
  asProject,
  expectError,
  inBatches,
  newThread,
  rawRequest
} from "../../support/helpers.js"
import { asUser, call, createProject, type Reply, stores, type UserClient, useGateway } from "../../support/layers.js"

const x = (n: number) => "x".repeat(n)
const TRACE = "0123456789abcdef0123456789abcdef"
const SPAN = "0123456789abcdef"
const tags = (count: number, length: number) =>
  Array.from({ length: count }, (_, i) => `${String(i).padStart(2, "0")}${x(length - 2)}`)
/** `{"a":"xx…"}` of exactly `bytes` bytes serialized. */
const objectOfBytes = (bytes: number) => ({ a: x(bytes - 8) })
const toolCall = (i: number, extra: Record<string, unknown> = {}) => ({
  tool_name: "search",
  tool_call_id: `call_${i}`,
  ...extra
})

/** A limit: a report part just inside it (stored as sent) and one just outside (400 naming `path`). */
interface LimitCase {
  readonly name: string
  readonly inside: Record<string, unknown>
  readonly outside: Record<string, unknown>
  readonly path: string
}

const LIMITS: ReadonlyArray<LimitCase> = [
  { name: "error 2,048", inside: { error: x(2048) }, outside: { error: x(2049) }, path: "error" },
  { name: "error_code 64", inside: { error_code: x(64) }, outside: { error_code: x(65) }, path: "error_code" },
  { name: "tags: 20", inside: { tags: tags(20, 64) }, outside: { tags: tags(21, 10) }, path: "tags" },
  { name: "tag length 64", inside: { tags: [x(64)] }, outside: { tags: ["ok", x(65)] }, path: "tags" },
  { name: "environment 64", inside: { environment: x(64) }, outside: { environment: x(65) }, path: "environment" },
  { name: "release 255", inside: { release: x(255) }, outside: { release: x(256) }, path: "release" },
  {
    name: "attributes 16 KB",
    inside: { attributes: objectOfBytes(16 * 1024) },
    outside: { attributes: objectOfBytes(16 * 1024 + 1) },
    path: "attributes"
  },
  {
    name: "attributes 16 KB counted in UTF-8 bytes",
    inside: { attributes: { a: "é".repeat((16 * 1024 - 8) / 2) } },
    outside: { attributes: { a: "é".repeat((16 * 1024 - 8) / 2 + 1) } },
    path: "attributes"
  },
  {
    name: "steps 1,000",
    inside: { steps: Array.from({ length: 1000 }, () => ({ input_tokens: 1 })) },
    outside: { steps: Array.from({ length: 1001 }, () => ({ input_tokens: 1 })) },
    path: "steps"
  },
  {
    name: "tool_calls 1,000",
    inside: { tool_calls: Array.from({ length: 1000 }, (_, i) => toolCall(i)) },
    outside: { tool_calls: Array.from({ length: 1001 }, (_, i) => toolCall(i)) },
    path: "tool_calls"
  },
  {
    name: "sampling_calls 1,000",
    inside: { sampling_calls: Array.from({ length: 1000 }, () => ({ model_id: "m" })) },
    outside: { sampling_calls: Array.from({ length: 1001 }, () => ({ model_id: "m" })) },
    path: "sampling_calls"
  },
  {
    name: "a step's tool_calls 1,000",
    inside: { steps: [{ tool_calls: Array.from({ length: 1000 }, (_, i) => toolCall(i)) }] },
    outside: { steps: [{ tool_calls: Array.from({ length: 1001 }, (_, i) => toolCall(i)) }] },
    path: "steps.0.tool_calls"
  },
  {
    name: "output_text 50,000",
    inside: { output_text: x(50_000) },
    outside: { output_text: x(50_001) },
    path: "output_text"
  },
  {
    name: "tool_args 50,000 (string)",
    inside: { tool_calls: [toolCall(0, { tool_args: x(50_000) })] },
    outside: { tool_calls: [toolCall(0, { tool_args: x(50_001) })] },
    path: "tool_calls.0.tool_args"
  },
  {
    name: "tool_args 50,000 (JSON serialized)",
    inside: { tool_calls: [toolCall(0, { tool_args: objectOfBytes(50_000) })] },
    outside: { tool_calls: [toolCall(0, { tool_args: objectOfBytes(50_001) })] },
    path: "tool_calls.0.tool_args"
  },
  {
    name: "tool_result 50,000",
    inside: { tool_calls: [toolCall(0, { tool_result: x(50_000) })] },
    outside: { tool_calls: [toolCall(0, { tool_result: x(50_001) })] },
    path: "tool_calls.0.tool_result"
  },
  {
    name: "step input 50,000",
    inside: { steps: [{ input: x(50_000) }] },
    outside: { steps: [{ input: x(50_001) }] },
    path: "steps.0.input"
  },
  {
    name: "input_tokens 100,000,000",
    inside: { input_tokens: 100_000_000 },
    outside: { input_tokens: 100_000_001 },
    path: "input_tokens"
  },
  {
    name: "output_tokens 100,000,000",
    inside: { output_tokens: 100_000_000 },
    outside: { output_tokens: 100_000_001 },
    path: "output_tokens"
  },
  {
    name: "reasoning and cached tokens 100,000,000",
    inside: { reasoning_tokens: 100_000_000, cached_input_tokens: 100_000_000 },
    outside: { reasoning_tokens: 100_000_000, cached_input_tokens: 100_000_001 },
    path: "cached_input_tokens"
  },
  {
    name: "token counts are non-negative integers",
    inside: { input_tokens: 0 },
    outside: { input_tokens: -1 },
    path: "input_tokens"
  },
  {
    name: "token counts are integers",
    inside: { output_tokens: 2 },
    outside: { output_tokens: 1.5 },
    path: "output_tokens"
  },
  {
    name: "a step's token counts",
    inside: { steps: [{ output_tokens: 100_000_000 }] },
    outside: { steps: [{ output_tokens: 100_000_001 }] },
    path: "steps.0.output_tokens"
  },
  {
    name: "a sampling call's token counts",
    inside: { sampling_calls: [{ input_tokens: 100_000_000 }] },
    outside: { sampling_calls: [{ input_tokens: 100_000_001 }] },
    path: "sampling_calls.0.input_tokens"
  },
  {
    name: "trace_id: 32 lowercase hex",
    inside: { trace_id: TRACE },
    outside: { trace_id: TRACE.toUpperCase() },
    path: "trace_id"
  },
  { name: "trace_id: 33 digits", inside: { trace_id: TRACE }, outside: { trace_id: `${TRACE}0` }, path: "trace_id" },
  { name: "trace_id: 31 digits", inside: { trace_id: TRACE }, outside: { trace_id: TRACE.slice(1) }, path: "trace_id" },
  {
    name: "status",
    inside: { status: "incomplete", outcome_type: "length" },
    outside: { status: "done" },
    path: "status"
  },
  {
    name: "unknown field at top level",
    inside: { provider: "openai" },
    outside: { provider: "openai", temperature: 0.7 },
    path: "temperature"
  },
  {
    name: "cost_usd: 0 to 1,000,000",
    inside: { cost_usd: 1_000_000 },
    outside: { cost_usd: 1_000_000.01 },
    path: "cost_usd"
  },
  { name: "cost_usd: not negative", inside: { cost_usd: 0 }, outside: { cost_usd: -0.01 }, path: "cost_usd" },
  { name: "cost_usd: a number", inside: { cost_usd: 0.0042 }, outside: { cost_usd: "0.0042" }, path: "cost_usd" },
  {
    name: "cost_details 16 KB",
    inside: { cost_details: objectOfBytes(16 * 1024) },
    outside: { cost_details: objectOfBytes(16 * 1024 + 1) },
    path: "cost_details"
  },
  {
    name: "cost_details: an object",
    inside: { cost_details: { input_usd: 0.001, by_tool: { search: 0.002 } } },
    outside: { cost_details: [0.001] },
    path: "cost_details"
  },
  {
    name: "root_span_id: 16 lowercase hex",
    inside: { root_span_id: SPAN },
    outside: { root_span_id: SPAN.toUpperCase() },
    path: "root_span_id"
  },
  {
    name: "root_span_id: 17 digits",
    inside: { root_span_id: SPAN },
    outside: { root_span_id: `${SPAN}0` },
    path: "root_span_id"
  },
  {
    name: "user_message_id: an id of 1 to 48 characters",
    inside: { user_message_id: x(48) },
    outside: { user_message_id: x(49) },
    path: "user_message_id"
  },
  {
    name: "user_message_id: not empty",
    inside: { user_message_id: "msg_1" },
    outside: { user_message_id: "" },
    path: "user_message_id"
  },
  {
    name: "unknown field in a step",
    inside: { steps: [{ finish_reason: "stop" }] },
    outside: { steps: [{ finish_reason: "stop", temperature: 1 }] },
    path: "steps.0.temperature"
  },
  {
    name: "unknown field in a tool call",
    inside: { tool_calls: [toolCall(0, { tool_source: "mcp" })] },
    outside: { tool_calls: [toolCall(0, { tool_source: "mcp", server: "x" })] },
    path: "tool_calls.0.server"
  },
  {
    name: "unknown field in a tool call's sampling call",
    inside: { tool_calls: [toolCall(0, { sampling_calls: [{ model_id: "m" }] })] },
    outside: { tool_calls: [toolCall(0, { sampling_calls: [{ model_id: "m", seed: 1 }] })] },
    path: "tool_calls.0.sampling_calls.0.seed"
  }
]

describe.each(stores)("run reports ($name)", (storeUnderTest) => {
  const handle = useGateway(storeUnderTest)
  let project: { project_id: string; api_key: string }
  let other: { project_id: string; api_key: string }
  let alice: UserClient
  let bob: UserClient
  let stranger: UserClient
  let thread: string
  let read: ReturnType<typeof asProject>

  const report = (client: UserClient, body: Record<string, unknown>, key?: string): Promise<Reply> =>
    client("POST", "/runs", { body, ...(key === undefined ? {} : { headers: { "idempotency-key": key } }) })

  const runsOf = async (threadId: string): Promise<Array<{ id: string }>> => {
    const reply = await read(`/runs?thread_id=${threadId}&limit=100`)
    expect(reply.status, reply.text).toBe(200)
    return reply.body.runs
  }

  beforeAll(async () => {
    project = await createProject(handle.current, "runs")
    other = await createProject(handle.current, "other")
    alice = asUser(handle.current, project.api_key, "alice", "ws-1")
    bob = asUser(handle.current, project.api_key, "bob", "ws-2")
    stranger = asUser(handle.current, other.api_key, "alice", "ws-1")
    read = asProject(handle.current, project.api_key)
    thread = await newThread(alice)
  })

  it("API key: a complete report answers 201 { run_id } and is stored as sent", async () => {
    const body = {
      thread_id: thread,
      status: "completed",
      model_id: "gpt-x",
      provider: "openai",
      provider_type: "chat",
      input_tokens: 120,
      output_tokens: 45,
      reasoning_tokens: 3,
      cached_input_tokens: 7,
      duration_ms: 1234,
      first_token_ms: 200,
      total_steps: 1,
      tags: ["beta", "eu"],
      environment: "production",
      release: "1.2.3",
      trace_id: TRACE,
      root_span_id: SPAN,
      user_message_id: "msg_user_1",
      cost_usd: 0.00123,
      cost_details: { input_usd: 0.0003, output_usd: 0.00093, currency_note: "list prices" },
      attributes: { plan: "pro", nested: { n: 1 } },
      metadata: { source: "test" },
      output_text: "Hello",
      steps: [{ input_tokens: 120, output_tokens: 45, finish_reason: "stop", input: { role: "user" } }],
      tool_calls: [toolCall(1, { tool_args: { q: "x" }, tool_result: "found", tool_source: "backend", start_ms: 1 })],
      sampling_calls: [{ model_id: "small", input_tokens: 1, output_tokens: 2, duration_ms: 3 }]
    }
    const reply = await report(alice, body)
    expect(reply.status, reply.text).toBe(201)
    expect(Object.keys(reply.body)).toEqual(["run_id"])
    expect(reply.body.run_id).toMatch(/^.{1,48}$/)
    const run = await read(`/runs/${reply.body.run_id}`)
    expect(run.status, run.text).toBe(200)
    const { thread_id, ...rest } = body
    expect(run.body).toMatchObject({
      ...rest,
      id: reply.body.run_id,
      thread_id,
      workspace_id: "ws-1",
      user_id: "alice",
      message_id: null,
      outcome_type: null,
      error: null,
      tool_call_count: 1
    })
  })

  it("counts each tool call once by its id, whether reported at the top, in the steps, or in both", async () => {
    const count = async (body: Record<string, unknown>) => {
      const reply = await report(alice, { thread_id: thread, status: "completed", ...body })
      expect(reply.status, reply.text).toBe(201)
      return (await read(`/runs/${reply.body.run_id}`)).body.tool_call_count
    }
    expect(await count({ steps: [{ tool_calls: [toolCall(1)] }, { tool_calls: [toolCall(2), toolCall(3)] }] })).toBe(3)
    // The client library reports each call at the top and in its step: once each.
    expect(
      await count({ tool_calls: [toolCall(1), toolCall(2)], steps: [{ tool_calls: [toolCall(1), toolCall(2)] }] })
    ).toBe(2)
    expect(await count({ tool_calls: [toolCall(1)], steps: [{ tool_calls: [toolCall(2)] }] })).toBe(2)
    expect(await count({})).toBe(0)
  })

  it("cost_usd, root_span_id and user_message_id are in the list too (cost_details only in full); null when not reported", async () => {
    const costly = await report(alice, {
      thread_id: thread,
      status: "completed",
      model_id: "cost-list",
      cost_usd: 0.5,
      cost_details: { output_usd: 0.5 },
      root_span_id: SPAN,
      user_message_id: "msg_asked"
    })
    const plain = await report(alice, { thread_id: thread, status: "completed", model_id: "cost-list" })
    expect([costly.status, plain.status]).toEqual([201, 201])
    const listed = await read("/runs?model_id=cost-list")
    expect(listed.status, listed.text).toBe(200)
    expect(listed.body.runs).toMatchObject([
      { id: plain.body.run_id, cost_usd: null, root_span_id: null, user_message_id: null },
      { id: costly.body.run_id, cost_usd: 0.5, root_span_id: SPAN, user_message_id: "msg_asked" }
    ])
    for (const run of listed.body.runs) expect(run).not.toHaveProperty("cost_details")
    const full = await read(`/runs/${plain.body.run_id}`)
    expect(full.body).toMatchObject({ cost_usd: null, cost_details: null, root_span_id: null, user_message_id: null })
  })

  it("JWT and anonymous callers report runs for threads of their own workspace", async () => {
    const jwt = await asJwtUser(handle.current, project, "alice", "ws-1")
    const viaJwt = await report(jwt, { thread_id: thread, status: "completed" })
    expect(viaJwt.status, viaJwt.text).toBe(201)

    const anonymous = await asAnonymous(handle.current, project.project_id)
    const own = await newThread(anonymous.client)
    const viaAnonymous = await report(anonymous.client, { thread_id: own, status: "error", error: "boom" })
    expect(viaAnonymous.status, viaAnonymous.text).toBe(201)
    const run = await read(`/runs/${viaAnonymous.body.run_id}`)
    expect(run.body).toMatchObject({ user_id: anonymous.userId, workspace_id: anonymous.userId, status: "error" })
    // Alice's thread is not in the anonymous user's workspace.
    expectError(await report(anonymous.client, { thread_id: thread, status: "completed" }), 404)
    expect((await runsOf(own)).map((r) => r.id)).toEqual([viaAnonymous.body.run_id])
  })

  it("needs credentials, and the user and workspace headers with an API key", async () => {
    expectError(
      await call(handle.current.baseUrl, "POST", "/v1/runs", { body: { thread_id: thread, status: "completed" } }),
      401
    )
    const noWorkspace = await call(handle.current.baseUrl, "POST", "/v1/runs", {
      body: { thread_id: thread, status: "completed" },
      headers: { authorization: `Bearer ${project.api_key}`, "svc-user-id": "alice" }
    })
    expectError(noWorkspace, 400)
  })

  it("thread_id and status are required", async () => {
    expectError(await report(alice, { status: "completed" }), 400, "thread_id")
    expectError(await report(alice, { thread_id: thread }), 400, "status")
    expectError(
      await report(alice, { thread_id: thread, status: "completed", outcome_type: "crashed" }),
      400,
      "outcome_type"
    )
  })

  describe("limits: just inside is stored as sent, just outside is 400 and stores nothing", () => {
    let limitThread: string
    beforeAll(async () => {
      limitThread = await newThread(alice)
    })

    it.each(LIMITS)("$name", async ({ inside, outside, path }) => {
      const [accepted, refused] = await Promise.all([
        report(alice, { thread_id: limitThread, status: "completed", ...inside }),
        report(alice, { thread_id: limitThread, status: "completed", ...outside })
      ])
      expect(accepted.status, accepted.text.slice(0, 500)).toBe(201)
      expectError(refused, 400, path)
      const run = await read(`/runs/${accepted.body.run_id}`)
      expect(run.status).toBe(200)
      expect(run.body).toMatchObject(inside)
    })

    it("only the reports inside the limits were stored", async () => {
      expect(await runsOf(limitThread)).toHaveLength(LIMITS.length)
    })
  })

  it("a report over the default 1 MiB body cap but within its limits is accepted; over 4 MiB is 413", async () => {
    const steps = (count: number) => Array.from({ length: count }, () => ({ input: x(50_000) }))
    const big = JSON.stringify({ thread_id: thread, status: "completed", steps: steps(60) })
    expect(big.length).toBeGreaterThan(2 * 1024 * 1024)
    const accepted = await alice("POST", "/runs", { raw: big, headers: { "content-type": "application/json" } })
    expect(accepted.status, accepted.text).toBe(201)

    const base = JSON.stringify({ thread_id: thread, status: "completed", steps: steps(83), output_text: "" })
    const over = base.replace('"output_text":""', `"output_text":"${x(4 * 1024 * 1024 + 1 - base.length)}"`)
    expect(over.length).toBe(4 * 1024 * 1024 + 1)
    const headers = {
      authorization: `Bearer ${project.api_key}`,
      "svc-user-id": "alice",
      "svc-workspace-id": "ws-1",
      "content-type": "application/json"
    }
    expectError(await rawRequest(`${handle.current.baseUrl}/v1/runs`, { method: "POST", headers, body: over }), 413)
    // The frontend URL has the same cap: a JWT caller's large report is accepted, an oversized one is 413.
    const jwt = await asJwtUser(handle.current, project, "alice", "ws-1")
    const viaJwt = await jwt("POST", "/runs", { raw: big, headers: { "content-type": "application/json" } })
    expect(viaJwt.status, viaJwt.text).toBe(201)
    expectError(await jwt("POST", "/runs", { raw: over, headers: { "content-type": "application/json" } }), 413)
    // Without Content-Length (chunked), the cap holds while reading.
    expectError(
      await rawRequest(`${handle.current.baseUrl}/v1/runs`, { method: "POST", headers, body: over, chunked: true }),
      413
    )
  })

  describe("Idempotency-Key", () => {
    let keyThread: string
    beforeAll(async () => {
      keyThread = await newThread(alice)
    })

    it("a retry with the same key and report answers the same run id and stores one run", async () => {
      const body = { thread_id: keyThread, status: "completed", input_tokens: 5, tags: ["a"] }
      const first = await report(alice, body, "key-1")
      expect(first.status, first.text).toBe(201)
      const again = await report(alice, body, "key-1")
      expect(again.status, again.text).toBe(201)
      expect(again.body.run_id).toBe(first.body.run_id)
      // The same report with its fields in another order is the same report.
      const reordered = await report(
        alice,
        { tags: ["a"], input_tokens: 5, status: "completed", thread_id: keyThread },
        "key-1"
      )
      expect(reordered.body.run_id).toBe(first.body.run_id)
      expect((await runsOf(keyThread)).map((r) => r.id)).toEqual([first.body.run_id])
    })

    it("the same key and report from another user of the workspace is 409, not the first user's run", async () => {
      const body = { thread_id: await newThread(alice), status: "completed", output_tokens: 3 }
      const first = await report(alice, body, "shared-key")
      expect(first.status, first.text).toBe(201)
      const colleague = asUser(handle.current, project.api_key, "carol", "ws-1")
      expectError(await report(colleague, body, "shared-key"), 409)
    })

    it("the same key with another report is 409 conflict and stores nothing", async () => {
      const first = await report(alice, { thread_id: keyThread, status: "completed" }, "key-2")
      expect(first.status).toBe(201)
      expectError(await report(alice, { thread_id: keyThread, status: "error" }, "key-2"), 409)
      expectError(await report(alice, { thread_id: keyThread, status: "completed", output_tokens: 1 }, "key-2"), 409)
      const ids = (await runsOf(keyThread)).map((r) => r.id)
      expect(ids.filter((id) => id === first.body.run_id)).toHaveLength(1)
      expect(ids).toHaveLength(2)
    })

    it("concurrent posts with one key store one run and all answer its id", async () => {
      const concurrentThread = await newThread(alice)
      const body = { thread_id: concurrentThread, status: "completed", output_text: "same" }
      const replies = await Promise.all(Array.from({ length: 12 }, () => report(alice, body, "key-concurrent")))
      expect(replies.map((r) => r.status)).toEqual(replies.map(() => 201))
      expect(new Set(replies.map((r) => r.body.run_id)).size).toBe(1)
      expect(await runsOf(concurrentThread)).toHaveLength(1)
    })

    it("keys are per workspace, distinct keys make distinct runs, and a bad key is 400", async () => {
      const bobThread = await newThread(bob)
      const viaBob = await report(bob, { thread_id: bobThread, status: "completed" }, "key-1")
      expect(viaBob.status, viaBob.text).toBe(201)
      const a = await report(alice, { thread_id: keyThread, status: "incomplete" }, "key-3")
      const b = await report(alice, { thread_id: keyThread, status: "incomplete" }, "key-4")
      expect(a.body.run_id).not.toBe(b.body.run_id)
      const noKey = await Promise.all([1, 2].map(() => report(alice, { thread_id: keyThread, status: "incomplete" })))
      expect(noKey[0]?.body.run_id).not.toBe(noKey[1]?.body.run_id)
      expectError(await report(alice, { thread_id: keyThread, status: "completed" }, "has space"), 400)
      expectError(await report(alice, { thread_id: keyThread, status: "completed" }, x(256)), 400)
      expect((await report(alice, { thread_id: keyThread, status: "completed" }, x(255))).status).toBe(201)
    })

    it("a key of an unknown thread is 404 and does not hold the key", async () => {
      expectError(await report(alice, { thread_id: "thread_nope", status: "completed" }, "key-5"), 404)
      expect((await report(alice, { thread_id: keyThread, status: "completed" }, "key-5")).status).toBe(201)
    })
  })

  it("a thread of another workspace or project, or none, is 404 not_found and stores nothing", async () => {
    const body = { thread_id: thread, status: "completed", model_id: "leak-check" }
    const replies = await inBatches(3, (i) =>
      report([bob, stranger, asUser(handle.current, project.api_key, "alice", "ws-2")][i] as UserClient, body)
    )
    for (const reply of replies) expectError(reply, 404)
    expectError(await report(alice, { thread_id: "thread_01JD0000000000000000000000", status: "completed" }), 404)
    expect((await read("/runs?model_id=leak-check")).body.runs).toEqual([])
    const otherRead = asProject(handle.current, other.api_key)
    expect((await otherRead("/runs")).body.runs).toEqual([])
  })
})
