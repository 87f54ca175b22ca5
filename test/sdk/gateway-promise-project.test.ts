/**
 * The promise entry (`svc-client`) against a real gateway on every store:
 * the project read API (`projects.*`: the API key sees every workspace of
 * the project, including what the JWT and anonymous users wrote, and a trace
 * exported over OTLP/JSON; a JWT or anonymous client is refused with the
 * gateway's 401), `auth.tokens.create` (API key only) and `threads.claim`
 * (an anonymous user's threads moved to an API-key or JWT user with the
 * refresh token readAnonymousRefreshToken reads from localStorage).
 */
import { AssistantCloud, readAnonymousRefreshToken } from "svc-client"
import { beforeAll, describe, expect, it } from "vitest"
import { clientStores } from "../support/layers.js"
import {
  anonymousConfig,
  apiError,
  apiKeyConfig,
  clientsByMode,
  content,
  exportTrace,
  type Fixture,
  idsOf,
  jwtConfig,
  MODES,
  type Mode,
  makeFixture,
  today,
  useSdkGateway,
  withMemoryLocalStorage
} from "./gateway-helpers.js"

/** The payload of a JWT. */
const claimsOf = (token: string): Record<string, unknown> =>
  JSON.parse(Buffer.from(token.split(".")[1] ?? "", "base64url").toString("utf8"))

for (const store of clientStores)
  describe(`svc-client promise entry: project reads, tokens, claim (${store.name})`, () => {
    const { handle, errors } = useSdkGateway(store)
    let fixture: Fixture
    let clouds: Record<Mode, AssistantCloud>
    /** Per mode: a thread (its title and message say "Lisbon"), its message, a run and a score. */
    const seeds = {} as Record<Mode, { threadId: string; messageId: string; runId: string; workspace: string }>
    /** The thread the exported trace's model-call span names. */
    let tracedThread: string

    beforeAll(async () => {
      const base = await makeFixture(handle.current, "sdk-promise-project")
      clouds = clientsByMode(base)
      for (const mode of MODES) {
        const cloud = clouds[mode]
        const { thread_id } = await cloud.threads.create({ last_message_at: new Date(), title: `Lisbon ${mode}` })
        const { message_id } = await cloud.threads.messages.create(thread_id, {
          parent_id: null,
          format: "svc/v0",
          content: content(`Where to eat in Lisbon, asks ${mode}`)
        })
        const { run_id } = await cloud.runs.report({
          thread_id,
          message_id,
          status: "completed",
          model_id: `model-${mode}`,
          input_tokens: 10,
          output_tokens: 4
        })
        await cloud.scores.create({ name: "quality", data_type: "numeric", value: 3, run_id })
        const { workspace_id } = await cloud.threads.get(thread_id)
        seeds[mode] = { threadId: thread_id, messageId: message_id, runId: run_id, workspace: workspace_id }
      }
      tracedThread = (await clouds.apiKey.threads.create({ last_message_at: new Date() })).thread_id
      fixture = { ...base, traceId: await exportTrace(handle.current, base.apiKey, 1, tracedThread) }
    })

    describe("projects.* with the API key: the whole project", () => {
      const read = () => clouds.apiKey.projects

      it("threads.list and threads.messages.list see every workspace", async () => {
        const threads = (await read().threads.list({ limit: 100 })).threads
        for (const mode of MODES) {
          const thread = threads.find((t) => t.id === seeds[mode].threadId)
          expect(thread).toMatchObject({ title: `Lisbon ${mode}`, workspace_id: seeds[mode].workspace })
          expect(thread?.created_at).toBeInstanceOf(Date)
          const { messages } = await read().threads.messages.list(seeds[mode].threadId)
          expect(idsOf(messages)).toEqual([seeds[mode].messageId])
          expect(messages[0]?.content).toEqual(content(`Where to eat in Lisbon, asks ${mode}`))
        }
        expect(idsOf((await read().threads.list({ limit: 1 })).threads)).toHaveLength(1)
        expect((await read().threads.list({ is_archived: true })).threads).toEqual([])
        expect(
          idsOf((await read().threads.messages.list(seeds.jwt.threadId, { format: "ai-sdk/v6" })).messages)
        ).toEqual([])
        await apiError(read().threads.messages.list("thread_nope"), 404)
      })

      it("search finds every mode's thread, with snippets", async () => {
        const { results, next_offset } = await read().search({ q: "Lisbon", limit: 10 })
        expect(results.map((hit) => hit.thread.id)).toEqual(
          expect.arrayContaining(MODES.map((mode) => seeds[mode].threadId))
        )
        expect(next_offset).toBeNull()
        for (const hit of results) expect(hit.snippet.text.toLowerCase()).toContain("lisbon")
        const page = await read().search({ q: "Lisbon", limit: 1, offset: 1 })
        expect(page.results).toHaveLength(1)
        expect(page.next_offset).toBe(2)
        expect((await read().search({ q: "Lisbon", from: new Date(Date.now() + 3_600_000) })).results).toEqual([])
        await apiError(read().search({ q: "" }), 400)
      })

      it("runs.list and runs.get: reported runs of every workspace, and the run made from the trace", async () => {
        const runs = (await read().runs.list()).runs
        expect(idsOf(runs)).toEqual(expect.arrayContaining(MODES.map((mode) => seeds[mode].runId)))
        for (const mode of MODES) {
          const listed = (await read().runs.list({ thread_id: seeds[mode].threadId })).runs
          expect(idsOf(listed)).toEqual([seeds[mode].runId])
          expect(await read().runs.get(seeds[mode].runId)).toMatchObject({
            id: seeds[mode].runId,
            thread_id: seeds[mode].threadId,
            message_id: seeds[mode].messageId,
            workspace_id: seeds[mode].workspace,
            model_id: `model-${mode}`,
            input_tokens: 10,
            output_tokens: 4,
            span_id: null,
            steps: [],
            tool_calls: []
          })
        }
        const fromTrace = (await read().runs.list({ trace_id: fixture.traceId })).runs
        expect(fromTrace).toHaveLength(1)
        expect(fromTrace[0]).toMatchObject({ thread_id: tracedThread, model_id: "gpt-4o-mini", input_tokens: 21 })
        expect(
          idsOf((await read().runs.list({ model_id: "model-jwt", from: new Date(Date.now() - 3_600_000) })).runs)
        ).toEqual([seeds.jwt.runId])
        expect(idsOf((await read().runs.list({ limit: 1 })).runs)).toHaveLength(1)
        await apiError(read().runs.get("run_nope"), 404)
      })

      it("scores.list", async () => {
        const scores = (await read().scores.list({ name: "quality" })).scores
        expect(scores.map((score) => score.run_id).sort()).toEqual(MODES.map((mode) => seeds[mode].runId).sort())
        const jwtScores = (await read().scores.list({ run_id: seeds.jwt.runId })).scores
        expect(jwtScores).toEqual([
          expect.objectContaining({ name: "quality", value: 3, workspace_id: "ws-j", user_id: "jen" })
        ])
        expect((await read().scores.list({ limit: 1 })).scores).toHaveLength(1)
      })

      it("usage.daily and usage.period count what the three modes wrote", async () => {
        const day = today()
        const { days } = await read().usage.daily({ from: day, to: day })
        expect(days).toHaveLength(1)
        expect(days[0]).toMatchObject({ date: day })
        // alice, jen and the anonymous user (the trace's run has alice's thread).
        expect(days[0]?.active_users).toBe(3)
        expect(days[0]?.threads).toBe(4)
        expect(days[0]?.messages).toBe(3)
        expect(days[0]?.runs).toBe(4)
        expect((await read().usage.daily()).days).toHaveLength(30)
        const period = await read().usage.period({ from: day, to: day })
        expect(period).toMatchObject({
          from: day,
          to: day,
          threads: 4,
          messages: 3,
          runs: 4,
          active_users: 3,
          input_tokens: 30 + 21
        })
        await apiError(read().usage.period({ from: "2020-01-01", to: day }), 400)
      })

      it("traces.list and traces.get: the trace exported over OTLP/JSON", async () => {
        const { traces, next_after } = await read().traces.list()
        expect(traces.map((trace) => trace.trace_id)).toEqual([fixture.traceId])
        expect(next_after).toBeNull()
        expect(traces[0]).toMatchObject({ service_name: "sdk-suite", span_count: 2, run_count: 1, error_count: 0 })
        expect((await read().traces.list({ service_name: "another" })).traces).toEqual([])
        expect((await read().traces.list({ has_error: "true" })).traces).toEqual([])
        const detail = await read().traces.get(fixture.traceId)
        expect(detail.trace.trace_id).toBe(fixture.traceId)
        expect(detail.spans.map((span) => span.name).sort()).toEqual(["chat gpt-4o-mini", "invoke_agent"])
        expect(detail.runs).toEqual([expect.objectContaining({ thread_id: tracedThread, model_id: "gpt-4o-mini" })])
        await apiError(read().traces.get("0".repeat(32)), 404)
      })
    })

    describe.each(["jwt", "anonymous"] as const)("projects.* in %s mode: 401 from the gateway", (mode) => {
      it.each([
        ["threads.list", (c: AssistantCloud) => c.projects.threads.list()],
        ["threads.messages.list", (c: AssistantCloud) => c.projects.threads.messages.list(seeds[mode].threadId)],
        ["search", (c: AssistantCloud) => c.projects.search({ q: "Lisbon" })],
        ["runs.list", (c: AssistantCloud) => c.projects.runs.list()],
        ["runs.get", (c: AssistantCloud) => c.projects.runs.get(seeds[mode].runId)],
        ["scores.list", (c: AssistantCloud) => c.projects.scores.list()],
        ["usage.daily", (c: AssistantCloud) => c.projects.usage.daily()],
        ["usage.period", (c: AssistantCloud) => c.projects.usage.period()],
        ["traces.list", (c: AssistantCloud) => c.projects.traces.list()],
        ["traces.get", (c: AssistantCloud) => c.projects.traces.get(fixture.traceId)]
      ] as const)("%s", async (_, read) => {
        const error = await apiError(read(clouds[mode]), 401, "unauthorized")
        expect(error.message).toMatch(/API key/)
      })
    })

    describe("auth.tokens.create", () => {
      it("with the API key: a 5-minute JWT for its user and workspace, which a JWT client can use", async () => {
        const { token } = await clouds.apiKey.auth.tokens.create()
        const claims = claimsOf(token)
        expect(claims).toMatchObject({ sub: "alice", wid: "ws-a", aud: fixture.projectId })
        expect(Number(claims.exp) - Number(claims.iat)).toBe(300)
        const asAlice = new AssistantCloud(jwtConfig(fixture, async () => token))
        expect(idsOf((await asAlice.threads.list({ limit: 100 })).threads)).toEqual(
          expect.arrayContaining([seeds.apiKey.threadId, tracedThread])
        )
      })

      // The route is served on the backend host only: a frontend URL answers 404.
      it.each(["jwt", "anonymous"] as const)("in %s mode: 404 from the frontend URL", async (mode) => {
        const error = await apiError(clouds[mode].auth.tokens.create(), 404, "not_found")
        expect(error.message).toMatch(/backend host/)
      })
    })

    describe("threads.claim with the anonymous refresh token", () => {
      /** A new anonymous user (in a fresh localStorage) with two threads, and its refresh token. */
      const guestWithThreads = async (storage: Storage) => {
        const guest = new AssistantCloud(anonymousConfig(fixture))
        const made = [
          (await guest.threads.create({ last_message_at: new Date(), title: "guest one" })).thread_id,
          (await guest.threads.create({ last_message_at: new Date(), title: "guest two" })).thread_id
        ]
        const refreshToken = readAnonymousRefreshToken(fixture.frontend)
        expect(refreshToken).toEqual(expect.any(String))
        expect(readAnonymousRefreshToken(`${fixture.frontend}/`)).toBe(refreshToken)
        const stored = JSON.parse(storage.getItem(`svc:refresh_token:${fixture.frontend}`) ?? "null")
        expect(stored).toEqual({ token: refreshToken, expires_at: expect.any(String) })
        return { guest, made, refreshToken: refreshToken ?? "" }
      }

      it("an API-key user claims them; the token is spent", () =>
        withMemoryLocalStorage(async (storage) => {
          const { guest, made, refreshToken } = await guestWithThreads(storage)
          const carol = new AssistantCloud(apiKeyConfig(fixture, "carol", "ws-c"))
          expect(await carol.threads.claim({ refresh_token: refreshToken })).toEqual({ moved: 2 })
          expect(idsOf((await carol.threads.list()).threads).sort()).toEqual([...made].sort())
          expect((await carol.threads.get(made[0] ?? "")).workspace_id).toBe("ws-c")
          expect((await guest.threads.list()).threads).toEqual([])
          await apiError(carol.threads.claim({ refresh_token: refreshToken }), 401, "invalid_refresh_token")
        }))

      it("a JWT user claims them; an anonymous user may not", () =>
        withMemoryLocalStorage(async (storage) => {
          const { made, refreshToken } = await guestWithThreads(storage)
          await apiError(clouds.anonymous.threads.claim({ refresh_token: refreshToken }), 403, "forbidden")
          expect(await clouds.jwt.threads.claim({ refresh_token: refreshToken })).toEqual({ moved: 2 })
          const jenThreads = idsOf((await clouds.jwt.threads.list({ limit: 100 })).threads)
          expect(jenThreads).toEqual(expect.arrayContaining(made))
          await apiError(clouds.jwt.threads.claim({ refresh_token: "rt_nope" }), 401, "invalid_refresh_token")
        }))

      it("the localStorage is gone afterwards, and the anonymous client goes on in memory", async () => {
        expect("localStorage" in globalThis).toBe(false)
        expect(idsOf((await clouds.anonymous.threads.list()).threads)).toEqual([seeds.anonymous.threadId])
      })
    })

    it("the gateway logged no error", () => {
      expect(errors).toEqual([])
    })
  })
