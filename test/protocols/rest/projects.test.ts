/**
 * The read-only project API (docs/api-and-auth.md "Project read API"; docs/decisions.md "Tenancy",
 * "Project read API and usage"): API key only, every workspace of the
 * project and nothing of another; run and score lists (filters, newest
 * first, paging, page sizes); deletion cascades; and usage rollups that
 * match the data written.
 */
import * as Schema from "effect/Schema"
import { beforeAll, describe, expect, it } from "vitest"
import { RunList } from "../../../schema/Run.js"
import {
  asAnonymous,
  asFrontend,
  asJwtUser,
  asProject,
  expectError,
  expectNoContent,
  ISO_MS,
  inBatches,
  newMessage,
  newThread
} from "../../support/helpers.js"
import { asUser, call, createProject, type Reply, stores, type UserClient, useGateway } from "../../support/layers.js"

const DAY_MS = 86_400_000
const today = () => new Date().toISOString().slice(0, 10)
const daysBefore = (date: string, days: number) =>
  new Date(Date.parse(`${date}T00:00:00Z`) - days * DAY_MS).toISOString().slice(0, 10)
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

const report = async (client: UserClient, body: Record<string, unknown>): Promise<string> => {
  const reply = await client("POST", "/runs", { body })
  expect(reply.status, reply.text).toBe(201)
  return reply.body.run_id
}

const scoreOf = async (client: UserClient, body: Record<string, unknown>): Promise<string> => {
  const reply = await client("POST", "/scores", { body: { data_type: "numeric", value: 1, ...body } })
  expect(reply.status, reply.text).toBe(201)
  return reply.body.score_id
}

/** Asks the built-in assistant for a thread title (counted as a title generation when one is made). */
const titleFor = (client: UserClient, threadId: string) =>
  client("POST", "/runs/stream", {
    body: {
      thread_id: threadId,
      assistant_id: "system/thread_title",
      messages: [{ role: "user", content: [{ type: "text", text: "Planning a trip to Lisbon in May" }] }]
    },
    headers: { accept: "text/plain" }
  })

const ids = (rows: ReadonlyArray<{ id: string }>) => rows.map((row) => row.id)
const newestFirst = (list: ReadonlyArray<string>) => [...list].sort().reverse()

describe.each(stores)("project read API ($name)", (storeUnderTest) => {
  const handle = useGateway(storeUnderTest)
  let project: { project_id: string; api_key: string }
  let other: { project_id: string; api_key: string }
  let alice: UserClient
  let bob: UserClient
  let read: ReturnType<typeof asProject>
  let aliceThread: string
  let bobThread: string
  let aliceMessage: string
  let otherThread: string
  let otherRun: string

  const get = async (path: string): Promise<Reply> => {
    const reply = await read(path)
    expect(reply.status, reply.text).toBe(200)
    return reply
  }

  beforeAll(async () => {
    project = await createProject(handle.current, "read")
    other = await createProject(handle.current, "other")
    alice = asUser(handle.current, project.api_key, "alice", "ws-1")
    bob = asUser(handle.current, project.api_key, "bob", "ws-2")
    read = asProject(handle.current, project.api_key)
    aliceThread = await newThread(alice, { title: "alice's" })
    aliceMessage = await newMessage(alice, aliceThread, { content: { text: "hi" } })
    bobThread = await newThread(bob, { title: "bob's" })
    await newMessage(bob, bobThread, { content: { text: "yo" } })
    const stranger = asUser(handle.current, other.api_key, "alice", "ws-1")
    otherThread = await newThread(stranger)
    await newMessage(stranger, otherThread)
    otherRun = await report(stranger, { thread_id: otherThread, status: "completed" })
  })

  describe("access: API key on the backend host only", () => {
    const ROUTES = [
      "/threads",
      "/threads/THREAD/messages",
      "/runs",
      "/runs/RUN",
      "/scores",
      "/usage/daily",
      "/usage/period"
    ]
    let run: string
    let jwtToken: string
    let anonymousToken: string
    beforeAll(async () => {
      run = await report(alice, { thread_id: aliceThread, status: "completed" })
      jwtToken = (await alice("POST", "/auth/tokens")).body.token
      anonymousToken = (await call(handle.current.baseUrl, "POST", `/p/${project.project_id}/v1/auth/tokens/anonymous`))
        .body.access_token
      // Both tokens work where they belong.
      expect(
        (await asFrontend(handle.current, project.project_id, jwtToken)("GET", `/threads/${aliceThread}`)).status
      ).toBe(200)
      expect((await asFrontend(handle.current, project.project_id, anonymousToken)("GET", "/threads")).status).toBe(200)
    })
    const pathOf = (route: string) => `/projects${route.replace("THREAD", aliceThread).replace("RUN", run)}`

    it.each(ROUTES)("%s: 200 with the API key", async (route) => {
      await get(pathOf(route).slice("/projects".length))
    })

    it.each(ROUTES)(
      "%s: 401 with a JWT, an anonymous token, no or a bad key, or on the frontend URL",
      async (route) => {
        const backend = (bearer: string) =>
          call(handle.current.baseUrl, "GET", `/v1${pathOf(route)}`, { headers: { authorization: `Bearer ${bearer}` } })
        const replies = await Promise.all([
          // On the backend host…
          backend(jwtToken),
          backend(anonymousToken),
          backend("sk_nope"),
          call(handle.current.baseUrl, "GET", `/v1${pathOf(route)}`),
          // …and on the frontend URL, even with the API key.
          asFrontend(handle.current, project.project_id, jwtToken)("GET", pathOf(route)),
          asFrontend(handle.current, project.project_id, anonymousToken)("GET", pathOf(route)),
          asFrontend(handle.current, project.project_id, project.api_key)("GET", pathOf(route))
        ])
        for (const reply of replies) expectError(reply, 401)
      }
    )

    it("needs no user or workspace headers, and sees every workspace of the project", async () => {
      const threads = ids((await get("/threads?limit=100")).body.threads)
      expect(threads).toEqual(expect.arrayContaining([aliceThread, bobThread]))
      expect(threads).not.toContain(otherThread)
      const messages = (await get(`/threads/${bobThread}/messages`)).body.messages
      expect(messages.map((m: { content: unknown }) => m.content)).toEqual([{ text: "yo" }])
      expect(ids((await get(`/threads/${aliceThread}/messages`)).body.messages)).toEqual([aliceMessage])
    })

    it("another project's thread messages and run are 404; so are unknown ones", async () => {
      expectError(await read(`/threads/${otherThread}/messages`), 404)
      expectError(await read(`/runs/${otherRun}`), 404)
      expectError(await read("/threads/thread_nope/messages"), 404)
      expectError(await read("/runs/run_nope"), 404)
      // …and the other project does not see this one.
      const otherRead = asProject(handle.current, other.api_key)
      expectError(await otherRead(`/runs/${run}`), 404)
      expectError(await otherRead(`/threads/${aliceThread}/messages`), 404)
      expect(ids((await otherRead("/runs")).body.runs)).toEqual([otherRun])
    })
  })

  describe("runs list", () => {
    let listProject: { project_id: string; api_key: string }
    let listRead: ReturnType<typeof asProject>
    let threads: Array<string>
    let all: Array<string>
    const byThread: Record<string, Array<string>> = {}
    const byStatus: Record<string, Array<string>> = {}
    const byModel: Record<string, Array<string>> = {}
    const STATUSES = ["completed", "error", "incomplete"] as const
    const MODELS = ["m-a", "m-b"] as const

    beforeAll(async () => {
      listProject = await createProject(handle.current, "runs-list")
      listRead = asProject(handle.current, listProject.api_key)
      const carol = asUser(handle.current, listProject.api_key, "carol", "ws-1")
      const dave = asUser(handle.current, listProject.api_key, "dave", "ws-2")
      threads = [await newThread(carol), await newThread(carol), await newThread(dave)]
      all = await inBatches(101, async (i) => {
        const threadId = threads[i % 3] as string
        const status = STATUSES[i % 3 === 0 ? 0 : i % 2 === 0 ? 1 : 2]
        const model = MODELS[i % 2] as string
        const id = await report(i % 3 === 2 ? dave : carol, { thread_id: threadId, status, model_id: model })
        for (const [map, key] of [
          [byThread, threadId],
          [byStatus, status],
          [byModel, model]
        ] as const) {
          map[key] = [...(map[key] ?? []), id]
        }
        return id
      })
    })

    const list = async (query: string) => {
      const reply = await listRead(`/runs${query}`)
      expect(reply.status, reply.text).toBe(200)
      return ids(reply.body.runs)
    }

    it("default page 50, maximum 100 (a larger limit is clamped), newest first", async () => {
      const expected = newestFirst(all)
      expect(await list("")).toEqual(expected.slice(0, 50))
      expect(await list("?limit=100")).toEqual(expected.slice(0, 100))
      expect(await list("?limit=101")).toEqual(expected.slice(0, 100))
      expect(await list("?limit=99")).toEqual(expected.slice(0, 99))
      expect(await list("?limit=1")).toEqual(expected.slice(0, 1))
    })

    it("limit 0, negative, fractional or not a number is 400", async () => {
      for (const limit of ["0", "-1", "1.5", "ten"]) expectError(await listRead(`/runs?limit=${limit}`), 400, "limit")
    })

    it("an empty after, or one longer than an id (48), is 400 on runs and scores", async () => {
      for (const list of ["/runs", "/scores"]) {
        expectError(await listRead(`${list}?after=`), 400, "after")
        expectError(await listRead(`${list}?after=${"r".repeat(49)}`), 400, "after")
        expect((await listRead(`${list}?after=${"r".repeat(48)}`)).status).toBe(200)
      }
    })

    it("each listed run has exactly the RunSummary shape, and matches the run read in full", async () => {
      const reply = await listRead("/runs?limit=3")
      const page = Schema.decodeUnknownSync(RunList)(reply.body, { onExcessProperty: "error" })
      for (const summary of page.runs) {
        const listed = reply.body.runs.find((run: { id: string }) => run.id === summary.id)
        expect(listed.created_at).toMatch(ISO_MS)
        const full = await listRead(`/runs/${summary.id}`)
        expect(full.status, full.text).toBe(200)
        const { attributes, metadata, cost_details, steps, tool_calls, sampling_calls, output_text, ...rest } =
          full.body
        expect(rest).toEqual(listed)
      }
    })

    it("after pages through every run once, in order", async () => {
      const seen: Array<string> = []
      let after: string | undefined
      for (;;) {
        const page = await list(`?limit=30${after === undefined ? "" : `&after=${after}`}`)
        seen.push(...page)
        if (page.length < 30) break
        after = page[page.length - 1]
      }
      expect(seen).toEqual(newestFirst(all))
    })

    it("filters: thread_id, status, model_id, and combined with paging", async () => {
      for (const threadId of threads) {
        expect(await list(`?thread_id=${threadId}&limit=100`)).toEqual(newestFirst(byThread[threadId] ?? []))
      }
      for (const status of STATUSES) {
        expect(await list(`?status=${status}&limit=100`)).toEqual(newestFirst(byStatus[status] ?? []))
      }
      for (const model of MODELS) {
        expect(await list(`?model_id=${model}&limit=100`)).toEqual(newestFirst(byModel[model] ?? []))
      }
      const errors = newestFirst(byStatus.error ?? [])
      expect(await list(`?status=error&limit=5&after=${errors[4]}`)).toEqual(errors.slice(5, 10))
      const both = newestFirst(all.filter((id) => byStatus.error?.includes(id) && byModel["m-a"]?.includes(id)))
      expect(both.length).toBeGreaterThan(0)
      expect(await list("?status=error&model_id=m-a&limit=100")).toEqual(both)
      expect(await list("?thread_id=thread_nope")).toEqual([])
      expectError(await listRead("/runs?status=done"), 400, "status")
    })

    it("from (inclusive) and to (exclusive) bound created_at", async () => {
      const carol = asUser(handle.current, listProject.api_key, "carol", "ws-1")
      const early = await report(carol, { thread_id: threads[0], status: "completed", model_id: "timed" })
      await sleep(60)
      const middle = new Date().toISOString()
      await sleep(60)
      const late = await report(carol, { thread_id: threads[0], status: "completed", model_id: "timed" })
      expect(await list(`?model_id=timed&from=${middle}`)).toEqual([late])
      expect(await list(`?model_id=timed&to=${middle}`)).toEqual([early])
      expect(await list("?model_id=timed&from=2000-01-01T00:00:00.000Z&to=2999-01-01T00:00:00.000Z")).toEqual([
        late,
        early
      ])
      expectError(await listRead("/runs?from=yesterday"), 400, "from")
    })
  })

  describe("scores list", () => {
    let listProject: { project_id: string; api_key: string }
    let listRead: ReturnType<typeof asProject>
    let all: Array<string>
    let thread: string
    let message: string
    let run: string
    const byTarget: Record<"thread" | "message" | "run", Array<string>> = { thread: [], message: [], run: [] }
    const byName: Record<string, Array<string>> = {}

    beforeAll(async () => {
      listProject = await createProject(handle.current, "scores-list")
      listRead = asProject(handle.current, listProject.api_key)
      const erin = asUser(handle.current, listProject.api_key, "erin", "ws-1")
      const frank = asUser(handle.current, listProject.api_key, "frank", "ws-2")
      thread = await newThread(erin)
      message = await newMessage(erin, thread)
      run = await report(erin, { thread_id: thread, status: "completed" })
      const frankThread = await newThread(frank)
      all = await inBatches(201, async (i) => {
        const name = ["quality", "relevance", "tone"][i % 3] as string
        const target = (["thread", "message", "run"] as const)[i % 4] ?? null
        const body: Record<string, unknown> = { name }
        if (target === "thread") body.thread_id = thread
        if (target === "message") body.message_id = message
        if (target === "run") body.run_id = run
        const id = i % 4 === 3 ? await scoreOf(frank, { name, thread_id: frankThread }) : await scoreOf(erin, body)
        if (target !== null) byTarget[target].push(id)
        byName[name] = [...(byName[name] ?? []), id]
        return id
      })
    })

    const list = async (query: string) => {
      const reply = await listRead(`/scores${query}`)
      expect(reply.status, reply.text).toBe(200)
      return ids(reply.body.scores)
    }

    it("default page 50, maximum 200 (a larger limit is clamped), newest first", async () => {
      const expected = newestFirst(all)
      expect(await list("")).toEqual(expected.slice(0, 50))
      expect(await list("?limit=200")).toEqual(expected.slice(0, 200))
      expect(await list("?limit=201")).toEqual(expected.slice(0, 200))
      expect(await list("?limit=199")).toEqual(expected.slice(0, 199))
      for (const limit of ["0", "-3", "2.5", "x"]) expectError(await listRead(`/scores?limit=${limit}`), 400, "limit")
    })

    it("after pages through every score once, in order", async () => {
      const seen: Array<string> = []
      let after: string | undefined
      for (;;) {
        const page = await list(`?limit=70${after === undefined ? "" : `&after=${after}`}`)
        seen.push(...page)
        if (page.length < 70) break
        after = page[page.length - 1]
      }
      expect(seen).toEqual(newestFirst(all))
    })

    it("filters: name, thread_id, message_id, run_id", async () => {
      for (const [name, expected] of Object.entries(byName)) {
        expect(await list(`?name=${name}&limit=200`)).toEqual(newestFirst(expected))
      }
      // thread_id matches scores on the thread and on its messages and runs.
      const onThread = newestFirst([...byTarget.thread, ...byTarget.message, ...byTarget.run])
      expect(await list(`?thread_id=${thread}&limit=200`)).toEqual(onThread)
      expect(await list(`?message_id=${message}&limit=200`)).toEqual(newestFirst(byTarget.message))
      expect(await list(`?run_id=${run}&limit=200`)).toEqual(newestFirst(byTarget.run))
      const quality = new Set(byName.quality)
      expect(await list(`?run_id=${run}&name=quality&limit=200`)).toEqual(
        newestFirst(byTarget.run.filter((id) => quality.has(id)))
      )
    })
  })

  it("deleting a thread deletes its runs, scores and events", async () => {
    const doomed = await newThread(alice)
    const doomedMessage = await newMessage(alice, doomed)
    const runs = [
      await report(alice, { thread_id: doomed, status: "completed" }),
      await report(alice, { thread_id: doomed, status: "error" })
    ]
    await Promise.all([
      scoreOf(alice, { name: "doomed", thread_id: doomed }),
      scoreOf(alice, { name: "doomed", message_id: doomedMessage }),
      scoreOf(alice, { name: "doomed", run_id: runs[0] })
    ])
    const keptRun = await report(alice, { thread_id: aliceThread, status: "completed" })
    const keptScore = await scoreOf(alice, { name: "doomed", run_id: keptRun })
    const events = await alice("POST", "/events", {
      body: {
        events: [
          { kind: "message_copied", thread_id: doomed },
          { kind: "message_copied", thread_id: doomed }
        ]
      }
    })
    expect(events.body.accepted).toBe(2)
    const countEvents = async () =>
      (
        await handle.current.sql<{ n: number }>("SELECT count(*)::int AS n FROM events WHERE thread_id = $1", [doomed])
      )[0]?.n
    expect(await countEvents()).toBe(2)
    expect(ids((await get(`/runs?thread_id=${doomed}`)).body.runs).sort()).toEqual([...runs].sort())
    expect((await get("/scores?name=doomed")).body.scores).toHaveLength(4)

    expectNoContent(await alice("DELETE", `/threads/${doomed}`))

    expect((await get(`/runs?thread_id=${doomed}`)).body.runs).toEqual([])
    for (const run of runs) expectError(await read(`/runs/${run}`), 404)
    expect(ids((await get("/scores?name=doomed")).body.scores)).toEqual([keptScore])
    expect((await get(`/scores?thread_id=${doomed}`)).body.scores).toEqual([])
    expect(await countEvents()).toBe(0)
    expectError(await read(`/threads/${doomed}/messages`), 404)
    expect((await read(`/runs/${keptRun}`)).status).toBe(200)
  })

  describe("usage", () => {
    let usageProject: { project_id: string; api_key: string }
    let usageRead: ReturnType<typeof asProject>
    let anonymousUser: string
    const EXPECTED = {
      threads: 4,
      messages: 6,
      runs: 5,
      run_errors: 2,
      input_tokens: 10 + 20 + 300 + 4,
      output_tokens: 5 + 7 + 1,
      events: 5,
      title_generations: 1,
      // Binary fractions, so the sum is exact: 0.25 + 0.5 + 0.0625 (a retried report counts once) + 1.125.
      cost_usd: 1.9375,
      // ann 2, ben 1 (a refused one counts nothing).
      scores: 3,
      active_users: 3
    }
    /** What the test user wrote: one of each, left out while its prefix is listed. */
    const TEST_USER = {
      threads: 1,
      messages: 1,
      runs: 1,
      run_errors: 1,
      input_tokens: 1000,
      output_tokens: 2000,
      events: 3,
      title_generations: 1,
      cost_usd: 100,
      scores: 1,
      active_users: 1
    }

    beforeAll(async () => {
      usageProject = await createProject(handle.current, "usage")
      usageRead = asProject(handle.current, usageProject.api_key)
      await handle.current.sql("UPDATE projects SET test_user_prefixes = $1 WHERE id = $2", [
        ["test-", "qa-"],
        usageProject.project_id
      ])
      const ann = asUser(handle.current, usageProject.api_key, "ann", "ws-1")
      const benClient = await asJwtUser(handle.current, usageProject, "ben", "ws-2")
      const tester = asUser(handle.current, usageProject.api_key, "test-robot", "ws-1")
      const anonymous = await asAnonymous(handle.current, usageProject.project_id)
      anonymousUser = anonymous.userId
      // ann: 2 threads, 3 messages, 3 runs (1 error), 3 stored events (one duplicate id, one rejected).
      const [a1, a2] = [await newThread(ann), await newThread(ann)]
      await Promise.all([newMessage(ann, a1), newMessage(ann, a1), newMessage(ann, a2)])
      await report(ann, { thread_id: a1, status: "completed", input_tokens: 10, output_tokens: 5, cost_usd: 0.25 })
      await report(ann, {
        thread_id: a1,
        status: "error",
        error: "boom",
        input_tokens: 20,
        output_tokens: 7,
        cost_usd: 0.5
      })
      // A retried report counts once.
      for (let i = 0; i < 2; i++) {
        const reply = await ann("POST", "/runs", {
          body: { thread_id: a2, status: "incomplete", cost_usd: 0.0625 },
          headers: { "idempotency-key": "once" }
        })
        expect(reply.status).toBe(201)
      }
      const annEvents = await ann("POST", "/events", {
        body: {
          events: [
            { kind: "message_copied", id: "e-1" },
            { kind: "message_copied", id: "e-1" },
            { kind: "message_sent", thread_id: a1 },
            { kind: "bogus" },
            { kind: "thread_switched", thread_id: a2 }
          ]
        }
      })
      expect(annEvents.body.accepted).toBe(4)
      // One generated title (a thread that already has one generates nothing).
      expect((await titleFor(ann, a1)).status).toBe(200)
      expect((await titleFor(ann, a1)).status).toBe(200)
      // ben (JWT): 1 thread, 2 messages, 1 error run, 2 events.
      const b1 = await newThread(benClient)
      await newMessage(benClient, b1)
      await newMessage(benClient, b1)
      await report(benClient, { thread_id: b1, status: "error", input_tokens: 300, output_tokens: 1, cost_usd: 1.125 })
      expect(
        (
          await benClient("POST", "/events", {
            body: { events: [{ kind: "run_stopped" }, { kind: "speech_started" }] }
          })
        ).body.accepted
      ).toBe(2)
      // The anonymous user: 1 thread, 1 message, 1 run without token counts.
      const n1 = await newThread(anonymous.client)
      await newMessage(anonymous.client, n1)
      await report(anonymous.client, { thread_id: n1, status: "completed", input_tokens: 4 })
      // The test user: left out.
      const t1 = await newThread(tester)
      await newMessage(tester, t1)
      await report(tester, {
        thread_id: t1,
        status: "error",
        input_tokens: 1000,
        output_tokens: 2000,
        cost_usd: 100
      })
      expect((await titleFor(tester, t1)).status).toBe(200)
      expect(
        (
          await tester("POST", "/events", {
            body: { events: [{ kind: "run_stopped" }, { kind: "run_stopped" }, { kind: "run_stopped" }] }
          })
        ).body.accepted
      ).toBe(3)
      // Scores: ann 2, ben 1, the test user 1.
      const score = async (client: typeof ann, threadId: string) =>
        expect(
          (
            await client("POST", "/scores", {
              body: { name: "q", data_type: "numeric", value: 1, thread_id: threadId }
            })
          ).status
        ).toBe(201)
      await score(ann, a1)
      await score(ann, a2)
      await score(benClient, b1)
      await score(tester, t1)
      // Refused writes count nothing.
      expectError(
        await ann("POST", "/scores", { body: { name: "q", data_type: "numeric", value: "x", thread_id: a1 } }),
        400
      )
      expectError(await ann("POST", "/runs", { body: { thread_id: a1, status: "nope", cost_usd: 7 } }), 400)
      expectError(await ann("POST", "/runs", { body: { thread_id: a1, status: "completed", cost_usd: -7 } }), 400)
      expectError(
        await ann("POST", "/runs", { body: { thread_id: "thread_nope", status: "completed", cost_usd: 7 } }),
        404
      )
      expectError(await ann("POST", "/threads", { body: {} }), 400)
    })

    const usage = async (path: string) => {
      const reply = await usageRead(`/usage${path}`)
      expect(reply.status, reply.text).toBe(200)
      return reply.body
    }
    const ZERO = { ...Object.fromEntries(Object.keys(EXPECTED).map((key) => [key, 0])) }

    it("daily, by default: the last 30 days ending today, zeros included, today's figures as written", async () => {
      const { days } = await usage("/daily")
      expect(days).toHaveLength(30)
      expect(days.map((day: { date: string }) => day.date)).toEqual(
        Array.from({ length: 30 }, (_, i) => daysBefore(today(), 29 - i))
      )
      for (const day of days.slice(0, 29)) expect(day).toEqual({ date: day.date, ...ZERO })
      expect(days[29]).toEqual({ date: today(), ...EXPECTED })
    })

    it("daily with from and to: one row a day, inclusive; 366 days is fine, 367 is 400", async () => {
      const t = today()
      expect((await usage(`/daily?from=${t}&to=${t}`)).days).toEqual([{ date: t, ...EXPECTED }])
      const long = (await usage(`/daily?from=${daysBefore(t, 365)}&to=${t}`)).days
      expect(long).toHaveLength(366)
      expect(long[0].date).toBe(daysBefore(t, 365))
      expect(long[365]).toEqual({ date: t, ...EXPECTED })
      const past = (await usage(`/daily?from=${daysBefore(t, 9)}&to=${daysBefore(t, 1)}`)).days
      expect(past).toHaveLength(9)
      for (const day of past) expect(day).toEqual({ date: day.date, ...ZERO })
      expectError(await usageRead(`/usage/daily?from=${daysBefore(t, 366)}&to=${t}`), 400)
      expectError(await usageRead(`/usage/period?from=${daysBefore(t, 366)}&to=${t}`), 400)
      expectError(await usageRead(`/usage/daily?from=${t}&to=${daysBefore(t, 1)}`), 400)
      // `from` alone: up to today; `to` alone: the 30 days ending there.
      expect((await usage(`/daily?from=${daysBefore(t, 2)}`)).days).toHaveLength(3)
      const ending = (await usage(`/daily?to=${daysBefore(t, 1)}`)).days
      expect(ending).toHaveLength(30)
      expect(ending[29].date).toBe(daysBefore(t, 1))
      for (const bad of ["2026-02-30", "2026-1-1", "22-11-2026", "2026-11-22T00:00:00Z", "today"]) {
        expectError(await usageRead(`/usage/daily?from=${bad}`), 400, "from")
      }
    })

    it("period: the figures summed over the span, active users distinct", async () => {
      const t = today()
      const byDefault = await usage("/period")
      expect(byDefault).toEqual({ from: daysBefore(t, 29), to: t, ...EXPECTED })
      expect(await usage(`/period?from=${daysBefore(t, 365)}&to=${t}`)).toEqual({
        from: daysBefore(t, 365),
        to: t,
        ...EXPECTED
      })
      expect(await usage(`/period?from=${daysBefore(t, 3)}&to=${daysBefore(t, 1)}`)).toEqual({
        from: daysBefore(t, 3),
        to: daysBefore(t, 1),
        ...ZERO
      })
      expectError(await usageRead(`/usage/period?from=${t}&to=${daysBefore(t, 1)}`), 400)
    })

    it("the test user is left out only while its prefix is listed; another project's usage is apart", async () => {
      expect(anonymousUser.startsWith("test-")).toBe(false)
      await handle.current.sql("UPDATE projects SET test_user_prefixes = $1 WHERE id = $2", [
        [],
        usageProject.project_id
      ])
      const withTester = await usage("/period")
      const summed = Object.fromEntries(
        Object.entries(EXPECTED).map(([key, value]) => [key, value + (TEST_USER[key as keyof typeof TEST_USER] ?? 0)])
      )
      expect(withTester).toMatchObject(summed)
      expect((await usage("/daily")).days[29]).toMatchObject(summed)
      await handle.current.sql("UPDATE projects SET test_user_prefixes = $1 WHERE id = $2", [
        ["test-"],
        usageProject.project_id
      ])
      expect(await usage("/period")).toMatchObject(EXPECTED)
      // The other projects of this suite wrote plenty, none of it here; and none of this there.
      const otherPeriod = await asProject(handle.current, other.api_key)("/usage/period")
      expect(otherPeriod.body).toMatchObject({ threads: 1, messages: 1, runs: 1, active_users: 1 })
    })
  })
})
