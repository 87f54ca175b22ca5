/**
 * The Effect entry (`svc-client/effect`) against a real gateway on every
 * store: the `projects` group endpoint by endpoint with the API key (every
 * workspace, the trace exported over OTLP/JSON) and refused (401) in JWT and
 * anonymous mode; `auth.issueToken`; `claim.claim` (an anonymous Effect
 * client's threads moved to an API-key or JWT one); the inventory of the
 * groups and endpoints the client exposes; and the four failure classes
 * (CloudAPIError, CloudResponseError, ParseError, RequestError).
 */
import * as HttpClientError from "@effect/platform/HttpClientError"
import * as Effect from "effect/Effect"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as ParseResult from "effect/ParseResult"
import { readAnonymousRefreshToken } from "svc-client"
import {
  type AssistantCloudConfig,
  ClientApi,
  CloudAPIError,
  CloudResponseError,
  SvcClient,
  type SvcClientService
} from "svc-client/effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { clientStores } from "../support/layers.js"
import {
  anonymousConfig,
  apiKeyConfig,
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

/** Runs `f` with a client of `config` whose layer lives for that one run. */
const withClient = <A, E>(config: AssistantCloudConfig, f: (client: SvcClientService) => Effect.Effect<A, E>) =>
  Effect.runPromise(Effect.flatMap(SvcClient, f).pipe(Effect.provide(SvcClient.layer(config))))

const apiError = <A, E>(effect: Effect.Effect<A, E>, status: number, code?: string) =>
  Effect.gen(function* () {
    const error = yield* Effect.flip(effect)
    expect(error).toBeInstanceOf(CloudAPIError)
    expect(error).toMatchObject({ status, ...(code === undefined ? {} : { code }) })
    return error as CloudAPIError
  })

/** Every group and endpoint of the Effect client, each covered by a test below or in gateway-effect.test.ts. */
const COVERED = {
  threads: ["create", "delete", "get", "list", "search", "update"],
  messages: ["create", "deleteBatch", "deleteMany", "feedback", "list", "update"],
  claim: ["claim"],
  auth: ["issueToken"],
  runs: ["report"],
  files: ["downloadUrl", "uploadUrl"],
  scores: ["create"],
  events: ["send"],
  projects: [
    "messages",
    "run",
    "runs",
    "scores",
    "search",
    "threads",
    "topicThreads",
    "topics",
    "trace",
    "traces",
    "usageDaily",
    "usagePeriod"
  ]
}

for (const store of clientStores)
  describe(`svc-client/effect: projects, tokens, claim, failures (${store.name})`, () => {
    const { handle, errors } = useSdkGateway(store)
    let fixture: Fixture
    const runtimes = {} as Record<Mode | "minter", ManagedRuntime.ManagedRuntime<SvcClient, never>>
    const seeds = {} as Record<Mode, { threadId: string; messageId: string; runId: string; workspace: string }>
    let tracedThread: string
    const run = <A, E>(mode: Mode | "minter", f: (client: SvcClientService) => Effect.Effect<A, E>) =>
      runtimes[mode].runPromise(Effect.flatMap(SvcClient, f))
    const mint = () => run("minter", (client) => client.auth.issueToken()).then(({ token }) => token)

    beforeAll(async () => {
      const base = await makeFixture(handle.current, "sdk-effect-project")
      runtimes.apiKey = ManagedRuntime.make(SvcClient.layer(apiKeyConfig(base, "alice", "ws-a")))
      runtimes.minter = ManagedRuntime.make(SvcClient.layer(apiKeyConfig(base, "jen", "ws-j")))
      runtimes.jwt = ManagedRuntime.make(SvcClient.layer(jwtConfig(base, mint)))
      runtimes.anonymous = ManagedRuntime.make(SvcClient.layer(anonymousConfig(base)))
      for (const mode of MODES)
        await run(mode, (client) =>
          Effect.gen(function* () {
            const payload = { last_message_at: new Date(), title: `Sintra ${mode}` }
            const { thread_id } = yield* client.threads.create({ payload })
            const { message_id } = yield* client.messages.create({
              path: { thread_id },
              payload: { parent_id: null, format: "svc/v0", content: content(`A day trip to Sintra by ${mode}`) }
            })
            const { run_id } = yield* client.runs.report({
              payload: { thread_id, message_id, status: "completed", model_id: `m-${mode}`, output_tokens: 2 }
            })
            yield* client.scores.create({ payload: { name: "stars", data_type: "numeric", value: 5, run_id } })
            const { workspace_id } = yield* client.threads.get({ path: { thread_id } })
            seeds[mode] = { threadId: thread_id, messageId: message_id, runId: run_id, workspace: workspace_id }
          })
        )
      tracedThread = await run("apiKey", (client) =>
        Effect.map(client.threads.create({ payload: { last_message_at: new Date() } }), (t) => t.thread_id)
      )
      fixture = { ...base, traceId: await exportTrace(handle.current, base.apiKey, 7, tracedThread) }
    })
    afterAll(async () => {
      for (const runtime of Object.values(runtimes)) await runtime.dispose()
    })

    it("the client's groups and endpoints are those these suites cover", () => {
      const exposed = Object.fromEntries(
        Object.entries(ClientApi.groups).map(([name, group]) => [name, Object.keys(group.endpoints).sort()])
      )
      expect(exposed).toEqual(COVERED)
    })

    it("projects.* with the API key: every endpoint, every workspace, the exported trace", () =>
      run("apiKey", (client) =>
        Effect.gen(function* () {
          const projects = client.projects
          const threads = (yield* projects.threads({ urlParams: { limit: 100 } })).threads
          for (const mode of MODES) {
            expect(threads.find((t) => t.id === seeds[mode].threadId)).toMatchObject({
              title: `Sintra ${mode}`,
              workspace_id: seeds[mode].workspace
            })
            const { messages } = yield* projects.messages({ path: { thread_id: seeds[mode].threadId } })
            expect(idsOf(messages)).toEqual([seeds[mode].messageId])
            const run = yield* projects.run({ path: { run_id: seeds[mode].runId } })
            expect(run).toMatchObject({ thread_id: seeds[mode].threadId, model_id: `m-${mode}`, output_tokens: 2 })
            expect(run.created_at).toBeInstanceOf(Date)
          }
          expect((yield* projects.threads({ urlParams: { is_archived: true } })).threads).toEqual([])

          const search = yield* projects.search({ urlParams: { q: "Sintra" } })
          expect(search.results.map((hit) => hit.thread.id).sort()).toEqual(
            MODES.map((mode) => seeds[mode].threadId).sort()
          )
          const future = new Date(Date.now() + 3_600_000)
          expect((yield* projects.search({ urlParams: { q: "Sintra", from: future } })).results).toEqual([])

          const runs = (yield* projects.runs()).runs
          expect(idsOf(runs)).toEqual(expect.arrayContaining(MODES.map((mode) => seeds[mode].runId)))
          const byModel = yield* projects.runs({ urlParams: { model_id: "m-jwt", status: "completed" } })
          expect(idsOf(byModel.runs)).toEqual([seeds.jwt.runId])
          const traced = (yield* projects.runs({ urlParams: { trace_id: fixture.traceId } })).runs
          expect(traced.map((r) => [r.thread_id, r.model_id])).toEqual([[tracedThread, "gpt-4o-mini"]])

          const scores = (yield* projects.scores({ urlParams: { name: "stars" } })).scores
          expect(scores.map((score) => score.run_id).sort()).toEqual(MODES.map((mode) => seeds[mode].runId).sort())

          const day = today()
          const { days } = yield* projects.usageDaily({ urlParams: { from: day, to: day } })
          expect(days).toEqual([expect.objectContaining({ date: day, threads: 4, messages: 3, runs: 4 })])
          expect((yield* projects.usageDaily()).days).toHaveLength(30)
          const period = yield* projects.usagePeriod({ urlParams: { from: day, to: day } })
          expect(period).toMatchObject({ from: day, to: day, threads: 4, runs: 4, active_users: 3 })

          const { traces, next_after } = yield* projects.traces({ urlParams: { service_name: "sdk-suite" } })
          expect(traces.map((trace) => [trace.trace_id, trace.span_count, trace.run_count])).toEqual([
            [fixture.traceId, 2, 1]
          ])
          expect(next_after).toBeNull()
          const detail = yield* projects.trace({ path: { trace_id: fixture.traceId } })
          expect(detail.spans.map((span) => span.role).sort()).toEqual(["model_call", null].sort())
          expect(detail.runs.map((r) => r.thread_id)).toEqual([tracedThread])
          yield* apiError(projects.trace({ path: { trace_id: "f".repeat(32) } }), 404)
          yield* apiError(projects.run({ path: { run_id: "run_nope" } }), 404)

          // Topics (test/protocols/rest/topics.test.ts tests the job): decoded, each topic's threads carrying its id.
          const topics = yield* projects.topics()
          expect(topics.ceiling).toBe(30)
          expect(topics.window_from).toBeInstanceOf(Date)
          for (const topic of topics.topics) {
            const members = (yield* projects.topicThreads({ path: { topic_id: topic.id } })).threads
            expect(members.map((thread) => thread.topic_id)).toEqual(members.map(() => topic.id))
          }
          yield* apiError(projects.topicThreads({ path: { topic_id: "topic_0000000000000000" } }), 404)
        })
      ))

    describe.each(["jwt", "anonymous"] as const)("projects.* in %s mode: 401 from the gateway", (mode) => {
      const thread_id = () => seeds[mode].threadId
      it.each([
        ["threads", (c: SvcClientService) => c.projects.threads()],
        ["messages", (c: SvcClientService) => c.projects.messages({ path: { thread_id: thread_id() } })],
        ["search", (c: SvcClientService) => c.projects.search({ urlParams: { q: "Sintra" } })],
        ["runs", (c: SvcClientService) => c.projects.runs()],
        ["run", (c: SvcClientService) => c.projects.run({ path: { run_id: seeds[mode].runId } })],
        ["scores", (c: SvcClientService) => c.projects.scores()],
        ["usageDaily", (c: SvcClientService) => c.projects.usageDaily()],
        ["usagePeriod", (c: SvcClientService) => c.projects.usagePeriod()],
        ["traces", (c: SvcClientService) => c.projects.traces()],
        ["trace", (c: SvcClientService) => c.projects.trace({ path: { trace_id: fixture.traceId } })],
        ["topics", (c: SvcClientService) => c.projects.topics()],
        ["topicThreads", (c: SvcClientService) => c.projects.topicThreads({ path: { topic_id: "topic_x" } })]
      ] as const)("%s", async (_, read) => {
        await run(mode, (client) => apiError<unknown, unknown>(read(client), 401, "unauthorized"))
      })
    })

    it("auth.issueToken: a JWT with the API key; 404 from the frontend URL in JWT and anonymous mode", async () => {
      const { token } = await run("apiKey", (client) => client.auth.issueToken())
      const claims = JSON.parse(Buffer.from(token.split(".")[1] ?? "", "base64url").toString("utf8"))
      expect(claims).toMatchObject({ sub: "alice", wid: "ws-a", aud: fixture.projectId })
      const asAlice = await withClient(
        jwtConfig(fixture, async () => token),
        (client) => client.threads.list()
      )
      expect(idsOf(asAlice.threads)).toEqual(expect.arrayContaining([seeds.apiKey.threadId, tracedThread]))
      for (const mode of ["jwt", "anonymous"] as const)
        await run(mode, (client) => apiError(client.auth.issueToken(), 404, "not_found"))
    })

    describe("claim.claim with the anonymous refresh token", () => {
      /** A new anonymous Effect client (in a fresh localStorage) makes two threads; its refresh token. */
      const guestThreads = async () => {
        const made = await withClient(anonymousConfig(fixture), (client) =>
          Effect.all(
            ["one", "two"].map((title) =>
              Effect.map(client.threads.create({ payload: { last_message_at: new Date(), title } }), (t) => t.thread_id)
            )
          )
        )
        const refreshToken = readAnonymousRefreshToken(fixture.frontend)
        expect(refreshToken).toEqual(expect.any(String))
        return { made, refreshToken: refreshToken ?? "" }
      }

      it("an API-key client claims them, once", () =>
        withMemoryLocalStorage(async () => {
          const { made, refreshToken } = await guestThreads()
          await withClient(apiKeyConfig(fixture, "carol", "ws-c"), (client) =>
            Effect.gen(function* () {
              expect(yield* client.claim.claim({ payload: { refresh_token: refreshToken } })).toEqual({ moved: 2 })
              expect(idsOf((yield* client.threads.list()).threads).sort()).toEqual([...made].sort())
              yield* apiError(client.claim.claim({ payload: { refresh_token: refreshToken } }), 401)
            })
          )
        }))

      it("a JWT client claims them; the anonymous one may not", () =>
        withMemoryLocalStorage(async () => {
          const { made, refreshToken } = await guestThreads()
          const payload = { refresh_token: refreshToken }
          await run("anonymous", (client) => apiError(client.claim.claim({ payload }), 403, "forbidden"))
          expect(await run("jwt", (client) => client.claim.claim({ payload }))).toEqual({ moved: 2 })
          const jen = await run("jwt", (client) => client.threads.list({ urlParams: { limit: 100 } }))
          expect(idsOf(jen.threads)).toEqual(expect.arrayContaining(made))
        }))
    })

    describe("failures", () => {
      it("CloudAPIError: a non-2xx answer, with catchTag", () =>
        run("apiKey", (client) =>
          Effect.gen(function* () {
            const caught = yield* client.threads.get({ path: { thread_id: "thread_nope" } }).pipe(
              Effect.map(() => "found"),
              Effect.catchTag("CloudAPIError", (error) => Effect.succeed(`${error.status} ${error.code}`))
            )
            expect(caught).toBe("404 not_found")
          })
        ))

      it("ParseError: an argument the contract refuses, caught before anything is sent", async () => {
        const count = async () =>
          Number((await handle.current.sql<{ n: number }>("SELECT count(*)::int AS n FROM threads"))[0]?.n)
        const before = await count()
        const error = await run("apiKey", (client) =>
          Effect.flip(client.threads.create({ payload: { last_message_at: new Date(), title: "x".repeat(256) } }))
        )
        expect(ParseResult.isParseError(error)).toBe(true)
        const bad = await run("apiKey", (client) =>
          Effect.flip(client.projects.runs({ urlParams: { trace_id: "", limit: 0 } }))
        )
        expect(ParseResult.isParseError(bad)).toBe(true)
        expect(await count()).toBe(before)
      })

      it("RequestError: no answer (a closed port), or an auth mode without a token", async () => {
        const closed = await withClient(
          { apiKey: "sk_x", userId: "u", workspaceId: "w", baseUrl: "http://127.0.0.1:9" },
          (c) => Effect.flip(c.threads.list())
        )
        expect(HttpClientError.isHttpClientError(closed) && closed._tag === "RequestError").toBe(true)
        const tokenless = await withClient({ baseUrl: fixture.frontend, authToken: () => null }, (c) =>
          Effect.flip(c.threads.list())
        )
        expect(tokenless).toMatchObject({ _tag: "RequestError" })
        expect(String((tokenless as HttpClientError.RequestError).cause)).toMatch(/Authorization failed/)
      })

      it("CloudResponseError: a 2xx answer without the contract's shape", async () => {
        // The real gateway's answer, with one field spoiled on the way.
        const spoiling: typeof fetch = async (input, init) => {
          const response = await fetch(input, init)
          if (!String(input).includes("/threads/")) return response
          const body = { ...(await response.json()), is_archived: "no" }
          return new Response(JSON.stringify(body), { status: 200, headers: response.headers })
        }
        const error = await withClient({ ...apiKeyConfig(fixture, "alice", "ws-a"), fetch: spoiling }, (client) =>
          Effect.flip(client.threads.get({ path: { thread_id: seeds.apiKey.threadId } }))
        )
        expect(error).toBeInstanceOf(CloudResponseError)
        expect((error as CloudResponseError).message).toMatch(/is_archived/)
      })
    })

    it("the gateway logged no error", () => {
      expect(errors).toEqual([])
    })
  })
