/**
 * POST /v1/scores (docs/api-and-auth.md "Run reports, scores and events"; docs/decisions.md "Scores"):
 * value by data type, limits, targets in the caller's workspace, and the three
 * caller modes.
 */
import { beforeAll, describe, expect, it } from "vitest"
import { asAnonymous, asJwtUser, asProject, expectError, newMessage, newThread } from "../../support/helpers.js"
import { asUser, call, createProject, type Reply, stores, type UserClient, useGateway } from "../../support/layers.js"

const x = (n: number) => "x".repeat(n)

describe.each(stores)("scores ($name)", (storeUnderTest) => {
  const handle = useGateway(storeUnderTest)
  let project: { project_id: string; api_key: string }
  let other: { project_id: string; api_key: string }
  let alice: UserClient
  let read: ReturnType<typeof asProject>
  let thread: string
  let message: string
  let run: string
  let secondThread: string
  let secondMessage: string
  let secondRun: string

  const score = (client: UserClient, body: Record<string, unknown>): Promise<Reply> =>
    client("POST", "/scores", { body })

  const newRun = async (client: UserClient, threadId: string) => {
    const reply = await client("POST", "/runs", { body: { thread_id: threadId, status: "completed" } })
    expect(reply.status, reply.text).toBe(201)
    return reply.body.run_id as string
  }

  beforeAll(async () => {
    project = await createProject(handle.current, "scores")
    other = await createProject(handle.current, "other")
    alice = asUser(handle.current, project.api_key, "alice", "ws-1")
    read = asProject(handle.current, project.api_key)
    thread = await newThread(alice)
    message = await newMessage(alice, thread)
    run = await newRun(alice, thread)
    secondThread = await newThread(alice)
    secondMessage = await newMessage(alice, secondThread)
    secondRun = await newRun(alice, secondThread)
  })

  it("numeric: answers 201 with the number; the stored score carries comment and targets", async () => {
    const reply = await score(alice, {
      name: "quality",
      data_type: "numeric",
      value: 0.75,
      comment: "fine",
      thread_id: thread,
      message_id: message,
      run_id: run
    })
    expect(reply.status, reply.text).toBe(201)
    expect(Object.keys(reply.body).sort()).toEqual(["data_type", "name", "score_id", "string_value", "value"])
    expect(reply.body).toMatchObject({ name: "quality", data_type: "numeric", value: 0.75, string_value: null })
    const listed = await read(`/scores?run_id=${run}`)
    expect(listed.body.scores).toEqual([
      expect.objectContaining({
        id: reply.body.score_id,
        name: "quality",
        value: 0.75,
        comment: "fine",
        thread_id: thread,
        message_id: message,
        run_id: run,
        workspace_id: "ws-1",
        user_id: "alice"
      })
    ])
  })

  it("boolean values are answered as 1 or 0; categorical needs string_value", async () => {
    const [yes, no, category, categoryWithValue] = await Promise.all([
      score(alice, { name: "helpful", data_type: "boolean", value: true, thread_id: thread }),
      score(alice, { name: "helpful", data_type: "boolean", value: false, message_id: message }),
      score(alice, { name: "topic", data_type: "categorical", string_value: "billing", run_id: run }),
      score(alice, { name: "topic", data_type: "categorical", string_value: "billing", value: 2 })
    ])
    expect(yes.status, yes.text).toBe(201)
    expect(yes.body).toMatchObject({ data_type: "boolean", value: 1, string_value: null })
    expect(no.body).toMatchObject({ data_type: "boolean", value: 0 })
    expect(category.body).toMatchObject({ data_type: "categorical", value: null, string_value: "billing" })
    expect(categoryWithValue.body).toMatchObject({ value: 2, string_value: "billing" })
    // A message or run target alone puts the score on its thread.
    const listed = await read(`/scores?message_id=${message}&name=helpful`)
    expect(listed.body.scores).toEqual([expect.objectContaining({ thread_id: thread, value: 0 })])
  })

  it("a value that does not fit the data type is 400", async () => {
    const replies = await Promise.all([
      score(alice, { name: "n", data_type: "numeric" }),
      score(alice, { name: "n", data_type: "numeric", value: true }),
      score(alice, { name: "n", data_type: "numeric", value: "1" }),
      score(alice, { name: "b", data_type: "boolean", value: 1 }),
      score(alice, { name: "b", data_type: "boolean" }),
      score(alice, { name: "c", data_type: "categorical" }),
      score(alice, { name: "c", data_type: "categorical", string_value: "a", value: true })
    ])
    const paths = ["value", "value", "value", "value", "value", "string_value", "value"]
    replies.forEach((reply, i) => {
      expectError(reply, 400, paths[i])
    })
    expectError(await score(alice, { name: "d", data_type: "ordinal", value: 1 }), 400, "data_type")
    expectError(await score(alice, { data_type: "numeric", value: 1 }), 400, "name")
    expectError(await score(alice, { name: "", data_type: "numeric", value: 1 }), 400, "name")
    expectError(await score(alice, { name: "n", data_type: "numeric", value: 1, weight: 2 }), 400, "weight")
  })

  it.each([
    { field: "name", inside: { name: x(64) }, outside: { name: x(65) } },
    { field: "comment", inside: { comment: x(2000) }, outside: { comment: x(2001) } },
    { field: "string_value", inside: { string_value: x(255) }, outside: { string_value: x(256) } }
  ])("$field: just inside is stored, just outside is 400", async ({ field, inside, outside }) => {
    const base = { name: `limit-${field}`, data_type: "categorical", string_value: "a", thread_id: secondThread }
    const [accepted, refused] = await Promise.all([
      score(alice, { ...base, ...inside }),
      score(alice, { ...base, ...outside })
    ])
    expect(accepted.status, accepted.text).toBe(201)
    expectError(refused, 400, field)
    const stored = (await read(`/scores?thread_id=${secondThread}&limit=200`)).body.scores.find(
      (s: { id: string }) => s.id === accepted.body.score_id
    )
    expect(stored).toMatchObject(inside)
  })

  it("targets of different threads are 400", async () => {
    const replies = await Promise.all([
      score(alice, { name: "mix", data_type: "numeric", value: 1, thread_id: thread, message_id: secondMessage }),
      score(alice, { name: "mix", data_type: "numeric", value: 1, thread_id: thread, run_id: secondRun }),
      score(alice, { name: "mix", data_type: "numeric", value: 1, message_id: message, run_id: secondRun })
    ])
    for (const reply of replies) expectError(reply, 400)
    expect((await read("/scores?name=mix")).body.scores).toEqual([])
  })

  describe("each target must be in the caller's workspace: another's is 404", () => {
    const strangers = [
      { who: "another workspace", project: "same", user: "bob", workspace: "ws-2" },
      { who: "the same user in another workspace", project: "same", user: "alice", workspace: "ws-2" },
      { who: "another project", project: "other", user: "alice", workspace: "ws-1" }
    ] as const

    it.each(strangers)("$who", async ({ project: which, user, workspace }) => {
      const client = asUser(handle.current, (which === "same" ? project : other).api_key, user, workspace)
      const replies = await Promise.all([
        score(client, { name: "leak", data_type: "numeric", value: 1, thread_id: thread }),
        score(client, { name: "leak", data_type: "numeric", value: 1, message_id: message }),
        score(client, { name: "leak", data_type: "numeric", value: 1, run_id: run })
      ])
      for (const reply of replies) expectError(reply, 404)
      expect((await read("/scores?name=leak")).body.scores).toEqual([])
    })

    it("unknown targets are 404, even beside valid ones", async () => {
      const replies = await Promise.all([
        score(alice, { name: "gone", data_type: "numeric", value: 1, thread_id: "thread_nope" }),
        score(alice, { name: "gone", data_type: "numeric", value: 1, thread_id: thread, message_id: "msg_nope" }),
        score(alice, { name: "gone", data_type: "numeric", value: 1, thread_id: thread, run_id: "run_nope" })
      ])
      for (const reply of replies) expectError(reply, 404)
    })
  })

  it("after a claim, the new owner scores the moved thread, its messages and its runs", async () => {
    const anonymous = await asAnonymous(handle.current, project.project_id)
    const moved = await newThread(anonymous.client)
    const movedMessage = await newMessage(anonymous.client, moved)
    const movedRun = await newRun(anonymous.client, moved)
    const claimed = await alice("POST", "/threads/claim", { body: { refresh_token: anonymous.refreshToken } })
    expect(claimed.status, claimed.text).toBe(200)
    expect(claimed.body.moved).toBe(1)
    const replies = await Promise.all([
      score(alice, { name: "claimed", data_type: "numeric", value: 1, thread_id: moved }),
      score(alice, { name: "claimed", data_type: "numeric", value: 1, message_id: movedMessage }),
      score(alice, { name: "claimed", data_type: "numeric", value: 1, run_id: movedRun })
    ])
    for (const reply of replies) expect(reply.status, reply.text).toBe(201)
    // …and the anonymous user no longer can.
    expectError(
      await score(anonymous.client, { name: "claimed", data_type: "numeric", value: 1, run_id: movedRun }),
      404
    )
    // The run (and its scores) now sit in the new owner's workspace, as the project API shows.
    const runs = await read(`/runs?thread_id=${moved}`)
    expect(runs.body.runs.map((r: { workspace_id: string; user_id: string }) => [r.workspace_id, r.user_id])).toEqual([
      ["ws-1", "alice"]
    ])
    const scores = await read(`/scores?thread_id=${moved}`)
    expect(scores.body.scores.length).toBe(3)
    for (const s of scores.body.scores) expect(s.workspace_id).toBe("ws-1")
  })

  it("JWT and anonymous callers score their own workspace's targets; anonymous cannot reach others", async () => {
    const jwt = await asJwtUser(handle.current, project, "alice", "ws-1")
    const viaJwt = await score(jwt, { name: "jwt", data_type: "numeric", value: 5, run_id: run })
    expect(viaJwt.status, viaJwt.text).toBe(201)
    const anonymous = await asAnonymous(handle.current, project.project_id)
    const own = await newThread(anonymous.client)
    const viaAnonymous = await score(anonymous.client, {
      name: "anon",
      data_type: "boolean",
      value: true,
      thread_id: own
    })
    expect(viaAnonymous.status, viaAnonymous.text).toBe(201)
    expect(viaAnonymous.body.value).toBe(1)
    expectError(await score(anonymous.client, { name: "anon", data_type: "numeric", value: 1, thread_id: thread }), 404)
    const untargeted = await score(anonymous.client, { name: "anon", data_type: "numeric", value: 3 })
    expect(untargeted.status, untargeted.text).toBe(201)
    const listed = await read("/scores?name=anon")
    expect(listed.body.scores.map((s: { user_id: string }) => s.user_id)).toEqual([anonymous.userId, anonymous.userId])
    expectError(
      await call(handle.current.baseUrl, "POST", "/v1/scores", { body: { name: "n", data_type: "numeric", value: 1 } }),
      401
    )
  })
})
