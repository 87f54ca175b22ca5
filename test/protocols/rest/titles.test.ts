/**
 * POST /v1/runs/stream with the default (extractive) title generator, on
 * every store: streamed text, stored title, quota by plan, errors.
 */
import { beforeAll, describe, expect, it } from "vitest"
import { expectError, getThread, newThread } from "../../support/helpers.js"
import { asUser, call, createProject, type Reply, stores, type UserClient, useGateway } from "../../support/layers.js"

const ASSISTANT = "system/thread_title"

const userText = (text: string) => ({ role: "user", content: [{ type: "text", text }] })
const assistantText = (text: string) => ({ role: "assistant", content: [{ type: "text", text }] })

const wordCount = (title: string) => title.trim().split(/\s+/).length

/** The UTC month's first day of an instant, as the quota table keys it. */
const monthOf = (ms: number) => `${new Date(ms).toISOString().slice(0, 7)}-01`

describe.each(stores)("thread titles, extractive ($name)", (storeUnderTest) => {
  const handle = useGateway(storeUnderTest)
  let project: { project_id: string; api_key: string }
  let alice: UserClient
  let bob: UserClient

  const titleOf = (client: UserClient, threadId: string, messages: ReadonlyArray<unknown>, assistant = ASSISTANT) =>
    client("POST", "/runs/stream", {
      body: { thread_id: threadId, assistant_id: assistant, messages },
      headers: { accept: "text/plain" }
    })

  const thisMonth = () => monthOf(handle.current.clock.unsafeCurrentTimeMillis())

  const used = async (projectId = project.project_id): Promise<number> => {
    const rows = await handle.current.sql<{ used: number }>(
      "SELECT used FROM title_quota WHERE project_id = $1 AND month = $2::date",
      [projectId, thisMonth()]
    )
    return rows[0]?.used ?? 0
  }

  const setUsed = (projectId: string, count: number) =>
    handle.current.sql(
      `INSERT INTO title_quota (project_id, month, used) VALUES ($1, $2::date, $3)
       ON CONFLICT (project_id, month) DO UPDATE SET used = excluded.used`,
      [projectId, thisMonth(), count]
    )

  const setPlan = (projectId: string, plan: string) =>
    handle.current.sql("UPDATE projects SET plan = $1 WHERE id = $2", [plan, projectId])

  const expectTitleReply = (reply: Reply) => {
    expect(reply.status, reply.text).toBe(200)
    expect(reply.headers.get("content-type")).toBe("text/plain; charset=utf-8")
  }

  const expectQuotaExceeded = (reply: Reply) => {
    expect(reply.status, reply.text).toBe(429)
    expect(reply.headers.get("content-type") ?? "").toMatch(/^application\/json/)
    expect(reply.body.error).toBe("quota_exceeded")
    expect(reply.body.message).toBeTypeOf("string")
    expect(reply.text).not.toContain("_tag")
  }

  beforeAll(async () => {
    project = await createProject(handle.current, "titles")
    alice = asUser(handle.current, project.api_key, "alice", "ws-titles")
    bob = asUser(handle.current, project.api_key, "bob", "ws-other")
  })

  it("streams a 2 to 12 word title taken from the first user message and stores it on the thread", async () => {
    const thread = await newThread(alice)
    const reply = await titleOf(alice, thread, [
      userText("How do I reset my **password**? I tried the link at https://example.com/reset but it fails."),
      assistantText("Open the settings page and choose Security.")
    ])
    expectTitleReply(reply)
    const title = reply.text.trim()
    expect(title).toBe("How do I reset my password")
    expect(wordCount(title)).toBeGreaterThanOrEqual(2)
    expect(wordCount(title)).toBeLessThanOrEqual(12)
    expect((await getThread(alice, thread)).title).toBe(title)
    expect(await used()).toBe(1)
  })

  it("counts each generated title in the project's usage", async () => {
    const before = await handle.current.sql<{ n: number }>(
      "SELECT coalesce(sum(title_generations), 0)::int AS n FROM usage_daily WHERE project_id = $1 AND user_id = 'carol'",
      [project.project_id]
    )
    const carol = asUser(handle.current, project.api_key, "carol", "ws-titles")
    expectTitleReply(await titleOf(carol, await newThread(carol), [userText("Planning a trip to Lisbon in May")]))
    // Usage is written by a flush every second; wait for it rather than for a fixed time.
    let after = 0
    for (let attempt = 0; attempt < 50 && after <= (before[0]?.n ?? 0); attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 200))
      const rows = await handle.current.sql<{ n: number }>(
        "SELECT coalesce(sum(title_generations), 0)::int AS n FROM usage_daily WHERE project_id = $1 AND user_id = 'carol'",
        [project.project_id]
      )
      after = rows[0]?.n ?? 0
    }
    expect(after).toBe((before[0]?.n ?? 0) + 1)
  })

  it("cuts a long first message to at most 12 words and reads AI-SDK parts and string content", async () => {
    const long = await newThread(alice)
    const words = "one two three four five six seven eight nine ten eleven twelve thirteen fourteen"
    const reply = await titleOf(alice, long, [{ role: "user", content: words }])
    expectTitleReply(reply)
    expect(reply.text.trim()).toBe("One two three four five six seven eight nine ten eleven twelve")

    const parts = await newThread(alice)
    const fromParts = await titleOf(alice, parts, [
      {
        id: "m1",
        role: "user",
        parts: [{ type: "step-start" }, { type: "text", text: "Compare  Postgres\nand SQLite" }]
      }
    ])
    expectTitleReply(fromParts)
    expect(fromParts.text.trim()).toBe("Compare Postgres and SQLite")
  })

  it("completes a one-word first message with a word from later in the conversation", async () => {
    const thread = await newThread(alice)
    const reply = await titleOf(alice, thread, [userText("Hello!"), assistantText("Hi there, how can I help?")])
    expectTitleReply(reply)
    expect(reply.text.trim()).toBe("Hello Hi")
    expect(wordCount(reply.text)).toBe(2)
  })

  it("answers an existing title unchanged, without generating or using quota", async () => {
    const thread = await newThread(alice, { title: "Quarterly budget review" })
    const before = await used()
    const reply = await titleOf(alice, thread, [userText("Something else entirely")])
    expectTitleReply(reply)
    expect(reply.text).toBe("Quarterly budget review")
    expect(await used()).toBe(before)
    expect((await getThread(alice, thread)).title).toBe("Quarterly budget review")
  })

  it("treats a blank title as no title", async () => {
    const thread = await newThread(alice, { title: "   " })
    const reply = await titleOf(alice, thread, [userText("Weekly standup notes")])
    expectTitleReply(reply)
    expect(reply.text.trim()).toBe("Weekly standup notes")
    expect((await getThread(alice, thread)).title).toBe("Weekly standup notes")
  })

  it("answers an empty body and stores nothing when the messages carry no text", async () => {
    const thread = await newThread(alice)
    const before = await used()
    const reply = await titleOf(alice, thread, [{ role: "user", content: [{ type: "image", image: "data:..." }] }, {}])
    expectTitleReply(reply)
    expect(reply.text).toBe("")
    expect((await getThread(alice, thread)).title).toBeNull()
    expect(await used()).toBe(before)
  })

  it("reads only the start of a message: 250 KB of unclosed brackets and tags answer at once", async () => {
    // Unbounded markdown-link and tag patterns over the whole text took time quadratic in its length.
    for (const text of ["[".repeat(250_000), "<a".repeat(125_000), `Hello world ${"![x](".repeat(40_000)}`]) {
      const thread = await newThread(alice)
      const started = Date.now()
      const reply = await titleOf(alice, thread, [userText(text)])
      expectTitleReply(reply)
      expect(Date.now() - started).toBeLessThan(4_000)
    }
  })

  it("refuses another assistant_id with 400", async () => {
    const thread = await newThread(alice)
    expectError(await titleOf(alice, thread, [userText("Hello there")], "my/assistant"), 400, "assistant_id")
    expectError(await alice("POST", "/runs/stream", { body: { thread_id: thread, messages: [] } }), 400, "assistant_id")
    expect((await getThread(alice, thread)).title).toBeNull()
  })

  it("answers 404 for a thread of another workspace, or none", async () => {
    const thread = await newThread(alice)
    expectError(await titleOf(bob, thread, [userText("Stealing a title")]), 404)
    expectError(await titleOf(alice, "thread_01M80KEP26YA9DZXRJENQJN9YP", [userText("Nothing here")]), 404)
    expect((await getThread(alice, thread)).title).toBeNull()
  })

  it("takes up to 200 messages; 201 is 400; a body over its cap is 413", async () => {
    const thread = await newThread(alice)
    const many = (count: number) => Array.from({ length: count }, (_, i) => userText(`Message number ${i}`))
    expectError(await titleOf(alice, thread, many(201)), 400, "messages")
    const reply = await titleOf(alice, thread, many(200))
    expectTitleReply(reply)
    expect(reply.text.trim()).toBe("Message number 0")
    const huge = await titleOf(alice, await newThread(alice), [userText("x ".repeat(140 * 1024))])
    expectError(huge, 413)
  })

  it("refuses a hobby project past 500 titles this month with 429 quota_exceeded; startup is unlimited", async () => {
    const hobby = await createProject(handle.current, "hobby-quota")
    const user = asUser(handle.current, hobby.api_key, "u", "w")
    await setUsed(hobby.project_id, 499)
    expectTitleReply(await titleOf(user, await newThread(user), [userText("The five hundredth title")]))
    expect(await used(hobby.project_id)).toBe(500)
    const refused = await newThread(user)
    expectQuotaExceeded(await titleOf(user, refused, [userText("One title too many")]))
    expect((await getThread(user, refused)).title).toBeNull()
    expect(await used(hobby.project_id)).toBe(500)
    // A stored title is still answered past the quota.
    const titled = await newThread(user, { title: "Already named" })
    expect((await titleOf(user, titled, [userText("Whatever")])).text).toBe("Already named")

    await setPlan(hobby.project_id, "startup")
    const reply = await titleOf(user, refused, [userText("One title too many")])
    expectTitleReply(reply)
    expect(reply.text.trim()).toBe("One title too many")
    expect(await used(hobby.project_id)).toBe(500)
  })

  it("a new month gives the quota back", async () => {
    const project = await createProject(handle.current, "monthly-quota")
    const user = asUser(handle.current, project.api_key, "u", "w")
    await setUsed(project.project_id, 500)
    expectQuotaExceeded(await titleOf(user, await newThread(user), [userText("Past the quota this month")]))
    const clock = handle.current.clock
    const start = clock.offsetMs
    try {
      const now = new Date(clock.unsafeCurrentTimeMillis())
      const nextMonth = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1, 0, 0, 1)
      clock.advance(nextMonth - now.getTime())
      expectTitleReply(await titleOf(user, await newThread(user), [userText("First title of the new month")]))
      expect(await used(project.project_id)).toBe(1)
    } finally {
      clock.offsetMs = start
    }
  })

  it("gives a pro project 5,000 titles a month", async () => {
    const pro = await createProject(handle.current, "pro-quota")
    await setPlan(pro.project_id, "pro")
    const user = asUser(handle.current, pro.api_key, "u", "w")
    await setUsed(pro.project_id, 4_999)
    expectTitleReply(await titleOf(user, await newThread(user), [userText("Last title of the month")]))
    expectQuotaExceeded(await titleOf(user, await newThread(user), [userText("Past the pro quota")]))
    expect(await used(pro.project_id)).toBe(5_000)
  })

  it("never passes the quota under concurrent requests", async () => {
    const racing = await createProject(handle.current, "racing-quota")
    const user = asUser(handle.current, racing.api_key, "u", "w")
    await setUsed(racing.project_id, 497)
    const threads = await Promise.all(Array.from({ length: 8 }, () => newThread(user)))
    const replies = await Promise.all(
      threads.map((thread) => titleOf(user, thread, [userText("Racing for the quota")]))
    )
    expect(replies.filter((reply) => reply.status === 200)).toHaveLength(3)
    expect(replies.filter((reply) => reply.status === 429)).toHaveLength(5)
    expect(await used(racing.project_id)).toBe(500)
  })

  it("works with a service-issued JWT and with an anonymous session on the frontend base URL", async () => {
    const token = await alice("POST", "/auth/tokens")
    expect(token.status, token.text).toBe(200)
    const front = (bearer: string, method: string, path: string, body?: unknown) =>
      call(handle.current.baseUrl, method, `/p/${project.project_id}/v1${path}`, {
        ...(body === undefined ? {} : { body }),
        headers: { authorization: `Bearer ${bearer}` }
      })
    const thread = await newThread(alice)
    const viaJwt = await front(token.body.token, "POST", "/runs/stream", {
      thread_id: thread,
      assistant_id: ASSISTANT,
      messages: [userText("Invoices for the Berlin office")]
    })
    expectTitleReply(viaJwt)
    expect(viaJwt.text.trim()).toBe("Invoices for the Berlin office")
    expect((await getThread(alice, thread)).title).toBe("Invoices for the Berlin office")

    const session = await call(handle.current.baseUrl, "POST", `/p/${project.project_id}/v1/auth/tokens/anonymous`)
    expect(session.status, session.text).toBe(200)
    const anonymous: string = session.body.access_token
    const created = await front(anonymous, "POST", "/threads", { last_message_at: "2026-11-22T10:00:00.000Z" })
    expect(created.status, created.text).toBe(201)
    const anonymousThread: string = created.body.thread_id
    const viaAnonymous = await front(anonymous, "POST", "/runs/stream", {
      thread_id: anonymousThread,
      assistant_id: ASSISTANT,
      messages: [userText("Recipe ideas with leftover rice")]
    })
    expectTitleReply(viaAnonymous)
    expect(viaAnonymous.text.trim()).toBe("Recipe ideas with leftover rice")
    const stored = await front(anonymous, "GET", `/threads/${anonymousThread}`)
    expect(stored.body.title).toBe("Recipe ideas with leftover rice")
    // The anonymous user's workspace is its own: alice's thread is not there.
    expectError(
      await front(anonymous, "POST", "/runs/stream", {
        thread_id: thread,
        assistant_id: ASSISTANT,
        messages: [userText("Not mine")]
      }),
      404
    )
  })
})
