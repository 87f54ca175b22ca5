import { decodeJwt } from "jose"
import { beforeAll, describe, expect, it } from "vitest"
import { expectError } from "../../support/helpers.js"
import {
  asUser,
  call,
  createProject,
  NOW,
  type Reply,
  stores,
  type UserClient,
  useGateway
} from "../../support/layers.js"

describe.each(stores)("anonymous sessions and claim ($name)", (storeUnderTest) => {
  const handle = useGateway(storeUnderTest)
  let project: { project_id: string; api_key: string }
  let other: { project_id: string; api_key: string }
  let owner: UserClient

  const front = (projectId: string, method: string, path: string, options: { bearer?: string; body?: unknown } = {}) =>
    call(handle.current.baseUrl, method, `/p/${projectId}/v1${path}`, {
      ...(options.body === undefined ? {} : { body: options.body }),
      headers: options.bearer === undefined ? {} : { authorization: `Bearer ${options.bearer}` }
    })

  const anonymous = async (projectId = project.project_id) => {
    const reply = await front(projectId, "POST", "/auth/tokens/anonymous")
    expect(reply.status, reply.text).toBe(200)
    return reply.body as {
      access_token: string
      token_type: string
      expires_in: number
      refresh_token: { token: string; expires_at: string }
    }
  }

  const expectInvalidRefresh = (reply: Reply) => {
    expect(reply.status, reply.text).toBe(401)
    expect(reply.body.error).toBe("invalid_refresh_token")
  }

  beforeAll(async () => {
    project = await createProject(handle.current, "app")
    other = await createProject(handle.current, "other")
    owner = asUser(handle.current, project.api_key, "user-42", "ws-42")
  })

  it("creates an anonymous user with a 5-minute access token and a 30-day refresh token", async () => {
    const session = await anonymous()
    expect(Object.keys(session).sort()).toEqual(["access_token", "expires_in", "refresh_token", "token_type"])
    expect(session.token_type).toBe("Bearer")
    expect(session.expires_in).toBe(300)
    expect(session.refresh_token.token).toMatch(/^rt_[A-Za-z0-9_-]{43}$/)
    const days = (Date.parse(session.refresh_token.expires_at) - Date.now()) / 86_400_000
    expect(days).toBeGreaterThan(29.9)
    expect(days).toBeLessThan(30.1)
    const claims = decodeJwt(session.access_token)
    expect(claims).toMatchObject({ aud: project.project_id, anon: true })
    expect(claims.wid).toBe(claims.sub)
    const created = await front(project.project_id, "POST", "/threads", {
      bearer: session.access_token,
      body: { last_message_at: NOW }
    })
    expect(created.status).toBe(201)
    const stored = await handle.current.sql<{ token_hash: string }>("SELECT token_hash FROM refresh_tokens")
    expect(stored.every((row) => !row.token_hash.includes(session.refresh_token.token))).toBe(true)
  })

  it("refresh answers a new access token and sets the expiry to now + 30 days", async () => {
    const session = await anonymous()
    await handle.current.sql("UPDATE refresh_tokens SET expires_at = now() + interval '1 day'")
    const reply = await front(project.project_id, "POST", "/auth/tokens/refresh", {
      body: { refresh_token: session.refresh_token.token }
    })
    expect(reply.status, reply.text).toBe(200)
    expect(decodeJwt(reply.body.access_token).sub).toBe(decodeJwt(session.access_token).sub)
    const days = (Date.parse(reply.body.refresh_token.expires_at) - Date.now()) / 86_400_000
    expect(days).toBeGreaterThan(29.9)
  })

  it("refuses an unknown, expired, or other project's refresh token with 401 invalid_refresh_token", async () => {
    expectInvalidRefresh(
      await front(project.project_id, "POST", "/auth/tokens/refresh", { body: { refresh_token: "rt_nope" } })
    )
    const session = await anonymous()
    expectInvalidRefresh(
      await front(other.project_id, "POST", "/auth/tokens/refresh", {
        body: { refresh_token: session.refresh_token.token }
      })
    )
    await handle.current.sql("UPDATE refresh_tokens SET expires_at = now() - interval '1 second' WHERE user_id = $1", [
      decodeJwt(session.access_token).sub
    ])
    expectInvalidRefresh(
      await front(project.project_id, "POST", "/auth/tokens/refresh", {
        body: { refresh_token: session.refresh_token.token }
      })
    )
  })

  it("lives on the frontend base URL only, for a project that exists", async () => {
    expectError(await call(handle.current.baseUrl, "POST", "/v1/auth/tokens/anonymous"), 404)
    expectError(await front("proj_nope", "POST", "/auth/tokens/anonymous"), 404)
  })

  it("claim moves every thread of the anonymous user, revokes the token, and cannot be replayed", async () => {
    const session = await anonymous()
    for (const title of ["one", "two", "three"]) {
      const reply = await front(project.project_id, "POST", "/threads", {
        bearer: session.access_token,
        body: { last_message_at: NOW, title }
      })
      expect(reply.status).toBe(201)
    }
    const claimed = await owner("POST", "/threads/claim", { body: { refresh_token: session.refresh_token.token } })
    expect(claimed.status, claimed.text).toBe(200)
    expect(claimed.body).toEqual({ moved: 3 })
    const titles = (await owner("GET", "/threads")).body.threads.map((thread: { title: string }) => thread.title)
    expect(titles).toEqual(expect.arrayContaining(["one", "two", "three"]))
    expect((await front(project.project_id, "GET", "/threads", { bearer: session.access_token })).body.threads).toEqual(
      []
    )
    expectInvalidRefresh(
      await owner("POST", "/threads/claim", { body: { refresh_token: session.refresh_token.token } })
    )
    expectInvalidRefresh(
      await front(project.project_id, "POST", "/auth/tokens/refresh", {
        body: { refresh_token: session.refresh_token.token }
      })
    )
  })

  it("claim carries runs and events whose idempotency key or event id the new owner already used", async () => {
    const session = await anonymous()
    const anon = (path: string, body: unknown, headers: Record<string, string> = {}) =>
      call(handle.current.baseUrl, "POST", `/p/${project.project_id}/v1${path}`, {
        body,
        headers: { authorization: `Bearer ${session.access_token}`, ...headers }
      })
    const anonThread = (await anon("/threads", { last_message_at: NOW })).body.thread_id
    const ownThread = (await owner("POST", "/threads", { body: { last_message_at: NOW } })).body.thread_id
    const key = { "idempotency-key": "run-1" }
    expect((await anon("/runs", { thread_id: anonThread, status: "completed" }, key)).status).toBe(201)
    const ownRun = await owner("POST", "/runs", { body: { thread_id: ownThread, status: "completed" }, headers: key })
    expect(ownRun.status).toBe(201)
    const event = (threadId: string) => ({ events: [{ kind: "message_copied", thread_id: threadId, id: "evt-1" }] })
    expect((await anon("/events", event(anonThread))).body.accepted).toBe(1)
    expect((await owner("POST", "/events", { body: event(ownThread) })).body.accepted).toBe(1)
    const claimed = await owner("POST", "/threads/claim", { body: { refresh_token: session.refresh_token.token } })
    expect(claimed.status, claimed.text).toBe(200)
    expect(claimed.body).toEqual({ moved: 1 })
    const runs = await handle.current.sql<{ thread_id: string; workspace_id: string; idempotency_key: string | null }>(
      "SELECT thread_id, workspace_id, idempotency_key FROM runs WHERE thread_id = ANY($1) ORDER BY id",
      [[anonThread, ownThread]]
    )
    expect(runs).toEqual([
      { thread_id: anonThread, workspace_id: "ws-42", idempotency_key: null },
      { thread_id: ownThread, workspace_id: "ws-42", idempotency_key: "run-1" }
    ])
    // The key still answers the owner's own run.
    const again = await owner("POST", "/runs", { body: { thread_id: ownThread, status: "completed" }, headers: key })
    expect(again.body.run_id).toBe(ownRun.body.run_id)
    const events = await handle.current.sql<{ user_id: string }>(
      "SELECT user_id FROM events WHERE thread_id = ANY($1)",
      [[anonThread, ownThread]]
    )
    expect(events.map((row) => row.user_id)).toEqual(["user-42", "user-42"])
  })

  it("a JWT user can claim; an anonymous user cannot (403)", async () => {
    const session = await anonymous()
    const thief = await anonymous()
    expectError(
      await front(project.project_id, "POST", "/threads/claim", {
        bearer: thief.access_token,
        body: { refresh_token: session.refresh_token.token }
      }),
      403
    )
    const token = (await owner("POST", "/auth/tokens")).body.token
    const claimed = await front(project.project_id, "POST", "/threads/claim", {
      bearer: token,
      body: { refresh_token: session.refresh_token.token }
    })
    expect(claimed.status, claimed.text).toBe(200)
    expect(claimed.body).toEqual({ moved: 0 })
  })

  it("of two concurrent claims of one token, one wins", async () => {
    const session = await anonymous()
    await front(project.project_id, "POST", "/threads", {
      bearer: session.access_token,
      body: { last_message_at: NOW }
    })
    const rival = asUser(handle.current, project.api_key, "user-43", "ws-43")
    const body = { refresh_token: session.refresh_token.token }
    const replies = await Promise.all([
      owner("POST", "/threads/claim", { body }),
      rival("POST", "/threads/claim", { body })
    ])
    const statuses = replies.map((reply) => reply.status).sort()
    expect(statuses).toEqual([200, 401])
    expect(replies.find((reply) => reply.status === 200)?.body).toEqual({ moved: 1 })
  })

  it("a refresh token of another project cannot be claimed", async () => {
    const session = await anonymous(other.project_id)
    expectInvalidRefresh(
      await owner("POST", "/threads/claim", { body: { refresh_token: session.refresh_token.token } })
    )
  })
})
