/**
 * Evaluators (docs/decisions.md "Evaluators") through real HTTP on each
 * store: the limits (one value just inside and one just outside each), rule
 * evaluators over runs and threads read back through the project scores API,
 * sampling, the at-most-once guarantee, and a model evaluator against a
 * local server that speaks the OpenAI Responses protocol (what
 * @effect/ai-openai calls), which fails on demand to show the retries and
 * the failed record, answers 70 MB, or trickles an answer that never ends.
 * Patterns are RE2 (linear matching): what RE2 cannot compile is refused,
 * and 20 evaluators of 10 overlapping alternations over long texts leave
 * /healthz answering.
 */
import { createServer, type Server, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { MODEL_ANSWER_MAX_BYTES } from "../../../src/evaluators/ModelClassifier.js"
import { sampled } from "../../../src/evaluators/Rules.js"
import { asProject, expectError, newMessage, newThread, runJob as runJobOnce } from "../../support/helpers.js"
import { admin, asUser, createProject, type Gateway, stores, useGateway } from "../../support/layers.js"
import { responseObject } from "./openai-response.js"

const MODEL = "evaluator-test-model"

/** A completed Responses API answer carrying `text`. */
const response = (text: string) => responseObject(MODEL, "completed", text)

/** The longest /healthz may wait while a pass matches patterns: generous for a busy 2-core machine. */
const STALL_BOUND_MS = 1_000
/** What the fake model's huge answer weighs. */
const HUGE_ANSWER_BYTES = 70 * 1024 * 1024
/** The gateway's bound on one model call (EVALUATOR_MODEL_TIMEOUT_MS in this suite). */
const MODEL_TIMEOUT_MS = 3_000

/**
 * The fake model: answers "positive" when the text says "great", else
 * "negative"; or fails with 500; or answers a 70 MB response (`huge`); or
 * starts an answer and sends one more byte every 100 ms, never ending it
 * (`trickle`). The last two count what they wrote until the client hung up.
 */
const fake = {
  failing: false,
  answer: "normal" as "normal" | "huge" | "trickle",
  calls: 0,
  /** Bytes of the last huge or trickled answer handed to the socket. */
  sent: 0,
  /** Whether the client closed the last huge or trickled answer before its end. */
  hungUp: false,
  server: undefined as Server | undefined
}
const env: Record<string, string> = {
  JOBS_POLL_SECONDS: "0",
  EVALUATOR_RUN_DELAY_SECONDS: "0",
  EVALUATOR_THREAD_DELAY_SECONDS: "0",
  EVALUATOR_RETRY_BASE_SECONDS: "60",
  EVALUATOR_MAX_ATTEMPTS: "3",
  EVALUATOR_MODEL: MODEL,
  EVALUATOR_MODEL_TIMEOUT_MS: String(MODEL_TIMEOUT_MS),
  WEBHOOK_ALLOW_PRIVATE: "true"
}

/** A valid Responses API answer whose text is 70 MB of "a" (huge), or one that never ends (trickle). */
const answerAtLength = (res: ServerResponse, mode: "huge" | "trickle") => {
  const [head = "", tail = ""] = JSON.stringify(response("@@")).split("@@")
  fake.sent = 0
  fake.hungUp = false
  let finished = false
  res.on("close", () => {
    fake.hungUp = !finished
  })
  res.writeHead(200, { "content-type": "application/json" })
  res.write(head)
  fake.sent += head.length
  if (mode === "trickle") {
    const timer = setInterval(() => {
      if (res.destroyed) return clearInterval(timer)
      res.write("a")
      fake.sent += 1
    }, 100)
    return
  }
  const chunk = "a".repeat(64 * 1024)
  const pump = () => {
    while (!res.destroyed && fake.sent < HUGE_ANSWER_BYTES) {
      fake.sent += chunk.length
      if (!res.write(chunk)) {
        res.once("drain", pump)
        return
      }
    }
    if (!res.destroyed) {
      finished = true
      res.end(tail)
    }
  }
  pump()
}

beforeAll(async () => {
  fake.server = createServer((req, res) => {
    const chunks: Array<Buffer> = []
    req.on("data", (chunk: Buffer) => chunks.push(chunk))
    req.on("end", () => {
      fake.calls += 1
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8") || "{}")
      if (fake.answer !== "normal" && req.url === "/v1/responses") {
        answerAtLength(res, fake.answer)
        return
      }
      if (fake.failing || req.url !== "/v1/responses" || body.stream === true) {
        res.writeHead(500, { "content-type": "application/json" })
        res.end(JSON.stringify({ error: { message: "model down", type: "server_error" } }))
        return
      }
      const text = JSON.stringify(body.input ?? "")
      res.writeHead(200, { "content-type": "application/json" })
      res.end(JSON.stringify(response(text.includes("great") ? "Positive." : "negative")))
    })
  })
  await new Promise<void>((resolve) => fake.server?.listen(0, "127.0.0.1", resolve))
  env.EVALUATOR_MODEL_BASE_URL = `http://127.0.0.1:${(fake.server.address() as AddressInfo).port}/v1`
})
afterAll(
  () => new Promise<void>((resolve) => (fake.server === undefined ? resolve() : fake.server.close(() => resolve())))
)

/** The longest /healthz takes, asked again and again while `pass` runs (its answer, and the figures for a message). */
const healthzDuring = async <A>(gateway: Gateway, pass: () => Promise<A>) => {
  const healthz = async () => {
    const started = performance.now()
    const reply = await fetch(`${gateway.baseUrl}/healthz`)
    await reply.text()
    expect(reply.status).toBe(200)
    return performance.now() - started
  }
  let idle = 0
  for (let i = 0; i < 5; i++) idle = Math.max(idle, await healthz())
  let done = false
  const started = performance.now()
  const running = pass().finally(() => {
    done = true
  })
  let longest = 0
  let probes = 0
  while (!done) {
    longest = Math.max(longest, await healthz())
    probes += 1
  }
  const result = await running
  const took = performance.now() - started
  const figures =
    `longest /healthz ${longest.toFixed(0)} ms over ${probes} probes (idle: ${idle.toFixed(0)} ms), ` +
    `pass ${took.toFixed(0)} ms`
  return { longest, result, figures, took }
}

const category = (name: string, rule: { keywords?: Array<string>; pattern?: string } = { keywords: [name] }) => ({
  name,
  ...rule
})

describe.each(stores)("evaluators on the $name store", (store) => {
  const gateway = useGateway(store, env)
  const adminCall = (method: string, path: string, body?: unknown) => admin(gateway.current)(method, path, body)
  const runJob = () => runJobOnce(gateway.current, "evaluators")
  const setup = async (name: string) => {
    const project = await createProject(gateway.current, name)
    const alice = asUser(gateway.current, project.api_key, "alice", "ws-1")
    const read = asProject(gateway.current, project.api_key)
    const create = (body: Record<string, unknown>) =>
      adminCall("POST", `/projects/${project.project_id}/evaluators`, body)
    const scores = async (query: string) => {
      const reply = await read(`/scores?limit=200&${query}`)
      expect(reply.status, reply.text).toBe(200)
      return reply.body.scores as Array<Record<string, unknown>>
    }
    const report = async (threadId: string, outputText: string) => {
      const reply = await alice("POST", "/runs", {
        body: { thread_id: threadId, status: "completed", output_text: outputText }
      })
      expect(reply.status, reply.text).toBe(201)
      return reply.body.run_id as string
    }
    return { project, alice, create, scores, report, read }
  }

  it("keeps every limit: 20 evaluators, 10 categories, sampling 0..1, safe patterns, known projects", async () => {
    const { project, create } = await setup("limits")
    const id = project.project_id
    const ok = { name: "e0", target: "run", categories: [category("a")] }
    expectError(await adminCall("POST", "/projects/proj_nope/evaluators", ok), 404)
    expectError(await adminCall("GET", "/projects/proj_nope/evaluators"), 404)

    const ten = Array.from({ length: 10 }, (_, i) => category(`c${i}`))
    const withTen = await create({ ...ok, name: "ten", categories: ten })
    expect(withTen.status, withTen.text).toBe(201)
    expect(withTen.body).toMatchObject({ kind: "rule", target: "run", field: "output_text", sampling_rate: 1 })
    expect(withTen.body.categories).toHaveLength(10)
    expectError(await create({ ...ok, name: "eleven", categories: [...ten, category("c10")] }), 400, "categories")
    expectError(await create({ ...ok, name: "none", categories: [] }), 400, "categories")

    expect((await create({ ...ok, name: "s0", sampling_rate: 0 })).status).toBe(201)
    expect((await create({ ...ok, name: "s1", sampling_rate: 1 })).status).toBe(201)
    expectError(await create({ ...ok, name: "s101", sampling_rate: 1.01 }), 400, "sampling_rate")
    expectError(await create({ ...ok, name: "sneg", sampling_rate: -0.01 }), 400, "sampling_rate")

    const withPattern = (pattern: string) => create({ ...ok, name: "p", categories: [category("x", { pattern })] })
    expectError(await withPattern("(unclosed"), 400, "categories.0.pattern")
    expectError(await withPattern("(a|b)\\1"), 400, "categories.0.pattern")
    expectError(await withPattern("x".repeat(201)), 400, "categories.0.pattern")
    const safe = await create({
      ...ok,
      name: "safe",
      categories: [category("x", { pattern: "^(foo|bar)+ baz[a-z]{1,3}$" })]
    })
    expect(safe.status, safe.text).toBe(201)
    expectError(await create({ ...ok, name: "empty", categories: [{ name: "x" }] }), 400, "categories.0")
    expectError(
      await create({ ...ok, name: "dup", categories: [category("x"), category("x")] }),
      400,
      "categories.1.name"
    )
    expectError(await create({ ...ok, name: "field", field: "last_user_message" }), 400, "field")
    expectError(await create({ ...ok, name: "prompt", prompt: "judge" }), 400, "prompt")
    expectError(
      await create({ ...ok, name: "modelless", kind: "rule", target: "thread", field: "output_text" }),
      400,
      "field"
    )
    expectError(await create({ ...ok, name: "ten" }), 409)

    // 20 in all (4 made above), the 21st refused; deleting one makes room.
    for (let i = 1; i <= 16; i++) expect((await create({ ...ok, name: `e${i}` })).status).toBe(201)
    const list = await adminCall("GET", `/projects/${id}/evaluators`)
    expect(list.status).toBe(200)
    expect(list.body.evaluators).toHaveLength(20)
    expectError(await create({ ...ok, name: "e21" }), 409)
    const settings = await adminCall("GET", `/projects/${id}/settings`)
    expect(settings.body.evaluators).toBe(20)
    const first = list.body.evaluators[0].evaluator_id as string
    expect((await adminCall("DELETE", `/projects/${id}/evaluators/${first}`)).status).toBe(204)
    expectError(await adminCall("DELETE", `/projects/${id}/evaluators/${first}`), 404)
    expect((await adminCall("GET", `/projects/${id}/settings`)).body.evaluators).toBe(19)
    expect((await create({ ...ok, name: "e21" })).status).toBe(201)

    // PUT replaces an evaluator, with the same rules.
    const second = list.body.evaluators[1].evaluator_id as string
    const put = await adminCall("PUT", `/projects/${id}/evaluators/${second}`, {
      ...ok,
      name: "renamed",
      sampling_rate: 0.25,
      categories: [category("b", { pattern: "b+" })]
    })
    expect(put.status, put.text).toBe(200)
    expect(put.body).toMatchObject({ evaluator_id: second, name: "renamed", sampling_rate: 0.25 })
    expectError(await adminCall("PUT", `/projects/${id}/evaluators/${second}`, { ...ok, name: "e21" }), 409)
    expectError(
      await adminCall("PUT", `/projects/${id}/evaluators/${second}`, { ...ok, categories: [...ten, category("z")] }),
      400
    )
    expectError(await adminCall("PUT", `/projects/${id}/evaluators/evl_nope`, ok), 404)
    expectError(await adminCall("PUT", `/projects/proj_nope/evaluators/${second}`, ok), 404)
  })

  it("labels new runs by their output text, first matching category in order, once", async () => {
    const { project, alice, create, scores, report, read } = await setup("runs")
    const threadId = await newThread(alice)
    const before = await report(threadId, "Sorry, I can't help with that")
    const hook = await adminCall("POST", `/projects/${project.project_id}/webhooks`, {
      url: "http://127.0.0.1:9/hook",
      events: ["score.created"]
    })
    expect(hook.status, hook.text).toBe(201)
    const made = await create({
      name: "tone",
      target: "run",
      categories: [
        category("refusal", { keywords: ["I can't help", "cannot help"] }),
        category("apology", { pattern: "\\bsorr(y|ies)\\b" }),
        category("greeting", { keywords: ["hello"] })
      ]
    })
    expect(made.status, made.text).toBe(201)
    const refusal = await report(threadId, "Sorry, I can't help with that")
    const apology = await report(threadId, "I am so SORRY about it")
    const greeting = await report(threadId, "Hello there")
    const plain = await report(threadId, "The weather is fine")

    const first = await runJob()
    expect(first.details).toMatchObject({ scored: 3, no_match: 1, failed: 0 })
    const tone = await scores("name=tone")
    const byRun = new Map(tone.map((score) => [score.run_id, score]))
    expect(tone).toHaveLength(3)
    expect(byRun.get(refusal)).toMatchObject({
      name: "tone",
      data_type: "categorical",
      string_value: "refusal",
      comment: 'keyword "I can\'t help" matched',
      thread_id: threadId,
      user_id: "alice",
      workspace_id: "ws-1"
    })
    expect(byRun.get(apology)).toMatchObject({
      string_value: "apology",
      comment: "pattern /\\bsorr(y|ies)\\b/ matched"
    })
    expect(byRun.get(greeting)).toMatchObject({ string_value: "greeting" })
    expect(byRun.has(plain)).toBe(false)
    expect(byRun.has(before)).toBe(false)
    // Each score raised score.created, as a score a client posts does.
    const deliveries = await adminCall("GET", `/projects/${project.project_id}/webhooks/${hook.body.id}/deliveries`)
    expect(deliveries.status, deliveries.text).toBe(200)
    expect(deliveries.body.deliveries.map((delivery: { event_type: string }) => delivery.event_type)).toEqual([
      "score.created",
      "score.created",
      "score.created"
    ])

    // A second pass writes nothing again; a new run is labelled by the next.
    const second = await runJob()
    expect(second.details).toMatchObject({ scored: 0, no_match: 0 })
    expect(await scores("name=tone")).toHaveLength(3)
    // Two passes at once (as two gateways, or the timer and an admin's run) still label each run once.
    const later = await report(threadId, "hello again")
    await Promise.all([runJob(), runJob()])
    const laterScores = await scores(`name=tone&run_id=${later}`)
    expect(laterScores).toHaveLength(1)
    expect(laterScores[0]).toMatchObject({ string_value: "greeting" })
    const [evaluator] = (await adminCall("GET", `/projects/${project.project_id}/evaluators`)).body.evaluators
    expect(evaluator.stats).toEqual({ evaluated: 5, scored: 4, no_match: 1, retrying: 0, failed: 0 })
    // The evaluator's scores count in the project's usage, under the user of each run.
    const usage = await read("/usage/period")
    expect(usage.status, usage.text).toBe(200)
    expect(usage.body).toMatchObject({ scores: 4, runs: 6 })
  })

  it("labels new threads by their last user message", async () => {
    const { create, alice, scores } = await setup("threads")
    const made = await create({
      name: "intent",
      target: "thread",
      categories: [category("refund", { keywords: ["refund"] }), category("thanks", { pattern: "\\bthank(s| you)\\b" })]
    })
    expect(made.status, made.text).toBe(201)
    expect(made.body.field).toBe("last_user_message")
    const say = (role: string, text: string) => ({ content: { role, content: [{ type: "text", text }] } })
    const settled = await newThread(alice)
    let parent = await newMessage(alice, settled, say("user", "I want a refund"))
    parent = await newMessage(alice, settled, { parent, ...say("assistant", "Done: refund issued, thanks") })
    await newMessage(alice, settled, { parent, ...say("user", "Great, thank you") })
    const angry = await newThread(alice)
    parent = await newMessage(alice, angry, say("user", "hello"))
    parent = await newMessage(alice, angry, { parent, ...say("assistant", "Hi! How can I help?") })
    await newMessage(alice, angry, { parent, ...say("user", "Give me a refund now") })
    const empty = await newThread(alice)

    const pass = await runJob()
    expect(pass.details).toMatchObject({ scored: 2, no_match: 1 })
    const intent = await scores("name=intent")
    const byThread = new Map(intent.map((score) => [score.thread_id, score]))
    expect(byThread.get(settled)).toMatchObject({ string_value: "thanks", run_id: null, user_id: "alice" })
    expect(byThread.get(angry)).toMatchObject({ string_value: "refund", comment: 'keyword "refund" matched' })
    expect(byThread.has(empty)).toBe(false)
  })

  it("samples by a hash of the target: 0 evaluates nothing, 0.5 a stable subset", async () => {
    const { project, alice, create, scores, report } = await setup("sampling")
    const none = await create({
      name: "none",
      target: "run",
      sampling_rate: 0,
      categories: [category("any", { pattern: "." })]
    })
    const half = await create({
      name: "half",
      target: "run",
      sampling_rate: 0.5,
      categories: [category("any", { pattern: "." })]
    })
    expect([none.status, half.status]).toEqual([201, 201])
    const threadId = await newThread(alice)
    const runs: Array<string> = []
    for (let i = 0; i < 24; i++) runs.push(await report(threadId, `answer ${i}`))
    const pass = await runJob()
    const why = async () =>
      JSON.stringify({
        pass,
        evaluators: await gateway.current.sql(
          "SELECT name, cursor_at::text AS cursor_at, cursor_id, created_at::text AS created_at FROM evaluators WHERE project_id = $1",
          [project.project_id]
        ),
        runs: await gateway.current.sql(
          "SELECT r.id, r.created_at::text AS created_at, v.status FROM runs r LEFT JOIN evaluations v ON v.project_id = r.project_id AND v.target_id = r.id WHERE r.project_id = $1 ORDER BY r.created_at, r.id",
          [project.project_id]
        )
      })
    expect(await scores("name=none")).toEqual([])
    const expected = runs.filter((run) => sampled(0.5, half.body.evaluator_id, run)).sort()
    expect(expected.length).toBeGreaterThan(0)
    expect(expected.length).toBeLessThan(runs.length)
    const labelled = (await scores("name=half")).map((score) => score.run_id).sort()
    if (JSON.stringify(labelled) !== JSON.stringify(expected)) console.log("SAMPLING", await why())
    expect(labelled).toEqual(expected)
    await runJob()
    expect((await scores("name=half")).map((score) => score.run_id).sort()).toEqual(expected)
    const listed = (await adminCall("GET", `/projects/${project.project_id}/evaluators`)).body.evaluators
    expect(listed.find((e: { name: string }) => e.name === "none").stats.evaluated).toBe(0)
  })

  it("a model evaluator labels through the model; a failing model is retried with backoff, then recorded as failed", async () => {
    const { project, alice, create, scores, report } = await setup("model")
    const made = await create({
      name: "sentiment",
      kind: "model",
      target: "run",
      prompt: "How does the answer feel?",
      categories: [{ name: "positive" }, { name: "negative" }]
    })
    expect(made.status, made.text).toBe(201)
    const threadId = await newThread(alice)
    const good = await report(threadId, "This is a great answer")
    const bad = await report(threadId, "This is awful")
    fake.failing = false
    const pass = await runJob()
    expect(pass.details).toMatchObject({ scored: 2 })
    const byRun = new Map((await scores("name=sentiment")).map((score) => [score.run_id, score]))
    expect(byRun.get(good)).toMatchObject({ string_value: "positive", comment: 'the model answered "Positive."' })
    expect(byRun.get(bad)).toMatchObject({ string_value: "negative" })

    fake.failing = true
    const failing = await report(threadId, "a great day")
    const calls = fake.calls
    expect((await runJob()).details).toMatchObject({ retrying: 1 })
    // Not due yet: no call. Then each due retry calls once, and the third attempt is the last.
    await runJob()
    expect(fake.calls).toBe(calls + 1)
    gateway.current.clock.advance(61_000)
    expect((await runJob()).details).toMatchObject({ retrying: 1 })
    expect(fake.calls).toBe(calls + 2)
    gateway.current.clock.advance(121_000)
    expect((await runJob()).details).toMatchObject({ failed: 1 })
    expect(fake.calls).toBe(calls + 3)
    gateway.current.clock.advance(3_600_000)
    await runJob()
    expect(fake.calls).toBe(calls + 3)
    expect(await scores(`name=sentiment&run_id=${failing}`)).toEqual([])
    const [evaluator] = (await adminCall("GET", `/projects/${project.project_id}/evaluators`)).body.evaluators
    expect(evaluator.stats).toEqual({ evaluated: 3, scored: 2, no_match: 0, retrying: 0, failed: 1 })
    const rows = await gateway.current.sql<{ status: string; attempts: number; last_error: string }>(
      "SELECT status, attempts, last_error FROM evaluations WHERE project_id = $1 AND target_id = $2",
      [project.project_id, failing]
    )
    expect(rows).toEqual([{ status: "failed", attempts: 3, last_error: "the evaluator model failed" }])
    fake.failing = false
  })

  it("compiles patterns as RE2: overlapping alternations are kept (linear), what RE2 cannot compile is refused with its category and why", async () => {
    const { project, create } = await setup("patterns")
    const withSecond = (name: string, pattern: string) => ({
      name,
      target: "run",
      categories: [category("first", { keywords: ["k"] }), category("second", { pattern })]
    })
    // Overlapping alternations and nested repeats backtrack exponentially in JavaScript; RE2 runs every
    // alternative at once, so their matching is linear in the text and they are kept as written.
    const linear = ["(a|a)+$", "(a|aa)+$", "(\\w|\\d)+$", "(?:a|a)*b", "(a+)+$", "(\\w*)*x"]
    // RE2's own syntax: a code point as \x{…}, a named group as (?P<name>…), a POSIX class.
    const re2 = ["caf\\x{e9}", "(?P<word>sorry)", "[[:digit:]]+"]
    for (const [index, pattern] of [...linear, ...re2].entries()) {
      const reply = await create(withSecond(`kept${index}`, pattern))
      expect(reply.status, `${pattern}: ${reply.text}`).toBe(201)
    }

    const refusals: Array<[string, RegExp]> = [
      ["(a|b)\\1", /backreference/],
      ["(?<x>a)\\k<x>", /backreference/],
      ["sorry(?= now)", /lookaround/],
      ["sorry(?! now)", /lookaround/],
      ["(?<=very )sorry", /lookaround/],
      ["(?<!not )sorry", /lookaround/],
      ["caf\\u00e9", /\\x\{/],
      ["(unclosed", /missing closing \)/],
      ["a{1001}", /repeat count/],
      // Short, but a large program: matching costs time in proportion to it.
      ["[\\s\\S]{1000}", /too large/],
      ["(?:\\w{40}){20}", /too large/]
    ]
    const kept = await create({ name: "kept", target: "run", categories: [category("a", { pattern: "a" })] })
    expect(kept.status, kept.text).toBe(201)
    for (const [pattern, why] of refusals) {
      for (const reply of [
        await create(withSecond("refused", pattern)),
        await adminCall(
          "PUT",
          `/projects/${project.project_id}/evaluators/${kept.body.evaluator_id}`,
          withSecond("kept", pattern)
        )
      ]) {
        expectError(reply, 400, "categories.1.pattern")
        expect(reply.body.message, pattern).toContain('category "second"')
        expect(reply.body.message, pattern).toMatch(why)
      }
    }
  })

  it("20 evaluators of 10 overlapping alternations over long texts do not stall /healthz", async () => {
    const { create, alice, report } = await setup("stall")
    const patterns = ["(a|a)+$", "(a|aa)+$", "(\\w|\\d)+$", "(?:a|a)*b"]
    for (let e = 0; e < 20; e++) {
      const categories = Array.from({ length: 10 }, (_, c) => category(`c${c}`, { pattern: patterns[c % 4] ?? "" }))
      const made = await create({ name: `stall${e}`, target: "run", categories })
      expect(made.status, made.text).toBe(201)
    }
    // The read text (its first 4,000 characters) makes each pattern backtrack in JavaScript and
    // none match: a run of "a", a run of "1" and a "!" (no "b", no word character at the end).
    const text = `${"a".repeat(2000)}${"1".repeat(1999)}!${" and so on!".repeat(200)}`
    const threadId = await newThread(alice)
    for (let i = 0; i < 2; i++) await report(threadId, text)

    const { longest, result, figures } = await healthzDuring(gateway.current, runJob)
    console.log(`stall (${store.name}): ${figures}`)
    // Every evaluator read both runs and none matched: the work was done, not skipped.
    expect(result.details, figures).toMatchObject({ no_match: 40, scored: 0, failed: 0 })
    // Generous for a busy 2-core machine; backtracking in the matcher stalled it for 10.9 s.
    expect(longest, figures).toBeLessThan(STALL_BOUND_MS)
  }, 120_000)

  it("10 patterns at the size cap that defeat RE2's DFA cache hold the event loop one match at a time", async () => {
    const { create, alice, report } = await setup("dfa")
    // Each character makes a new DFA state (which of the last ~240 characters were an "a"): the
    // costliest kind of match within the cap found, about 100 ms of CPU each over 4,000 characters.
    const categories = Array.from({ length: 10 }, (_, c) => category(`c${c}`, { pattern: `a[\\s\\S]{${236 + c}}z` }))
    const made = await create({ name: "dfa", target: "run", categories })
    expect(made.status, made.text).toBe(201)
    // "a" or "b" at random (xorshift32, fixed seed), no "z".
    let x = 2463534242
    const text = Array.from({ length: 4000 }, () => {
      x ^= x << 13
      x ^= x >>> 17
      x ^= x << 5
      return (x >>> 0) & 1 ? "a" : "b"
    }).join("")
    const threadId = await newThread(alice)
    await report(threadId, text)
    const { longest, result, figures, took } = await healthzDuring(gateway.current, runJob)
    console.log(`dfa (${store.name}): ${figures}`)
    expect(result.details, figures).toMatchObject({ no_match: 1 })
    // Relative, so that a busy machine slows both sides alike: the 10 matches of the target back to
    // back would hold the loop for most of the pass; one at a time, about a tenth of it.
    expect(longest, figures).toBeLessThan(took / 2)
  }, 120_000)

  it("cuts a 70 MB model answer at the answer cap and retries it; a trickled answer ends at the timeout", async () => {
    const { project, alice, create, scores, report } = await setup("huge-answer")
    const made = await create({
      name: "huge",
      kind: "model",
      target: "run",
      categories: [{ name: "positive" }, { name: "negative" }]
    })
    expect(made.status, made.text).toBe(201)
    const threadId = await newThread(alice)
    const evaluation = async (runId: string) =>
      (
        await gateway.current.sql<{ status: string; attempts: number; last_error: string | null }>(
          "SELECT status, attempts, last_error FROM evaluations WHERE project_id = $1 AND target_id = $2",
          [project.project_id, runId]
        )
      )[0]

    fake.answer = "huge"
    try {
      const huge = await report(threadId, "a great answer")
      const started = performance.now()
      const pass = await runJob()
      const took = performance.now() - started
      console.log(
        `70 MB answer (${store.name}): ${fake.sent} bytes sent before the client hung up, pass ${took.toFixed(0)} ms`
      )
      expect(pass.details, `${fake.sent} bytes sent`).toMatchObject({ retrying: 1, scored: 0 })
      expect(await evaluation(huge)).toEqual({
        status: "retrying",
        attempts: 1,
        last_error: `the evaluator model's answer is over ${MODEL_ANSWER_MAX_BYTES / 1024} KiB`
      })
      expect(await scores(`name=huge&run_id=${huge}`)).toEqual([])
      // Reading stopped at the cap: the client hung up long before the end (what was sent is the cap
      // plus what the sockets' buffers took), and quickly.
      expect(fake.hungUp).toBe(true)
      expect(fake.sent).toBeLessThan(HUGE_ANSWER_BYTES / 4)
      expect(took).toBeLessThan(MODEL_TIMEOUT_MS)

      fake.answer = "trickle"
      const slow = await report(threadId, "another great answer")
      const trickled = performance.now()
      expect((await runJob()).details).toMatchObject({ retrying: 1, scored: 0 })
      const waited = performance.now() - trickled
      expect(await evaluation(slow)).toEqual({
        status: "retrying",
        attempts: 1,
        last_error: `no answer from the model within ${MODEL_TIMEOUT_MS} ms`
      })
      expect(waited).toBeGreaterThanOrEqual(MODEL_TIMEOUT_MS - 100)
      expect(waited).toBeLessThan(MODEL_TIMEOUT_MS + 5_000)
      await new Promise((resolve) => setTimeout(resolve, 300))
      expect(fake.hungUp).toBe(true)
    } finally {
      fake.answer = "normal"
    }
  }, 60_000)
})

describe.each(stores.slice(0, 1))("evaluators without a model configured ($name store)", (store) => {
  const gateway = useGateway(store, { JOBS_POLL_SECONDS: "0" })
  it("refuses a model evaluator", async () => {
    const project = await createProject(gateway.current, "no-model")
    const reply = await admin(gateway.current)("POST", `/projects/${project.project_id}/evaluators`, {
      name: "m",
      kind: "model",
      target: "run",
      categories: [{ name: "a" }]
    })
    expectError(reply, 400, "kind")
  })
})
