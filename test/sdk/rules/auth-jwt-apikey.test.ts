/**
 * JWT rules 1 to 4 and the API key mode (docs/client-library.md "Three modes", the JWT and
 * API key modes).
 */
import { afterEach, describe, expect, it, vi } from "vitest"
import { apiKeyClient, FakeFetch, json, jwt, jwtClient, restoreGlobals, settle, useClock } from "./fakes.js"

afterEach(() => {
  vi.useRealTimers()
  restoreGlobals()
})

/** A callback counting its calls, answering the given tokens in turn. */
const callback = (...tokens: Array<string | null>) =>
  vi.fn(async () => (tokens.length > 1 ? (tokens.shift() ?? null) : (tokens[0] ?? null)))

describe("Part 5, JWT", () => {
  it("1: each request sends Authorization: Bearer <JWT> from the caller's callback", async () => {
    const fake = new FakeFetch()
    const token = jwt(3600)
    const cloud = jwtClient(fake, async () => token)
    await cloud.threads.delete("a")
    await cloud.threads.delete("b")
    expect(fake.sent.map((sent) => sent.headers.get("Authorization"))).toEqual([`Bearer ${token}`, `Bearer ${token}`])
  })

  it("2: the token is cached until within 30 seconds of the JWT expiry", async () => {
    useClock()
    const fake = new FakeFetch()
    const first = jwt(120, "first")
    const second = jwt(3600, "second")
    const authToken = callback(first, second)
    const cloud = jwtClient(fake, authToken)
    await cloud.threads.delete("t")
    vi.setSystemTime(Date.now() + 89_000) // 31 s left: still fresh
    await cloud.threads.delete("t")
    expect(authToken).toHaveBeenCalledTimes(1)
    vi.setSystemTime(Date.now() + 1_000) // 30 s left: within the margin
    await cloud.threads.delete("t")
    expect(authToken).toHaveBeenCalledTimes(2)
    expect(fake.sent.map((sent) => sent.headers.get("Authorization"))).toEqual([
      `Bearer ${first}`,
      `Bearer ${first}`,
      `Bearer ${second}`
    ])
  })

  it("2: concurrent requests share a single pending callback call", async () => {
    const fake = new FakeFetch()
    let release: (token: string) => void = () => {}
    const authToken = vi.fn(() => new Promise<string>((resolve) => (release = resolve)))
    const cloud = jwtClient(fake, authToken)
    const requests = [
      cloud.threads.delete("a"),
      cloud.threads.delete("b"),
      cloud.threads.messages.update("a", "m", { content: {} })
    ]
    await settle()
    expect(authToken).toHaveBeenCalledTimes(1)
    expect(fake.sent).toHaveLength(0)
    const token = jwt(3600)
    release(token)
    await Promise.all(requests)
    expect(authToken).toHaveBeenCalledTimes(1)
    expect(fake.sent.map((sent) => sent.headers.get("Authorization"))).toEqual(Array(3).fill(`Bearer ${token}`))
  })

  it("3: a null or empty callback result fails the request with Authorization failed and sends nothing", async () => {
    for (const result of [null, ""]) {
      const fake = new FakeFetch()
      const cloud = jwtClient(fake, async () => result)
      await expect(cloud.threads.get("t")).rejects.toThrow(new Error("Authorization failed"))
      await expect(cloud.threads.delete("t")).rejects.toThrow("Authorization failed")
      expect(fake.sent).toHaveLength(0)
    }
  })

  it("3: a failed callback is not cached: the next request asks again", async () => {
    const fake = new FakeFetch()
    const token = jwt(3600)
    const authToken = callback(null, token)
    const cloud = jwtClient(fake, authToken)
    await expect(cloud.threads.delete("t")).rejects.toThrow("Authorization failed")
    await cloud.threads.delete("t")
    expect(authToken).toHaveBeenCalledTimes(2)
    expect(fake.sent.map((sent) => sent.headers.get("Authorization"))).toEqual([`Bearer ${token}`])
  })

  it("4: a response Authorization: Bearer <token> replaces the cached token", async () => {
    const fake = new FakeFetch()
    const original = jwt(3600, "original")
    const replaced = jwt(3600, "replaced")
    const authToken = callback(original)
    const cloud = jwtClient(fake, authToken)
    fake.answer(new Response(null, { status: 204, headers: { Authorization: `Bearer ${replaced}` } }))
    await cloud.threads.delete("t")
    await cloud.threads.delete("t")
    expect(authToken).toHaveBeenCalledTimes(1)
    expect(fake.sent.map((sent) => sent.headers.get("Authorization"))).toEqual([
      `Bearer ${original}`,
      `Bearer ${replaced}`
    ])
  })

  it("4: a response Authorization header of any other scheme throws Invalid auth header received", async () => {
    for (const header of ["Basic dXNlcjpwYXNz", "Token abc", "Bearer"]) {
      const fake = new FakeFetch().answer(json(threadWireFree(), { headers: { Authorization: header } }))
      const cloud = jwtClient(fake)
      await expect(cloud.threads.claim({ refresh_token: "r" }), header).rejects.toThrow(
        new Error("Invalid auth header received")
      )
    }
  })
})

/** Any successful body: the header check comes before the body is read. */
const threadWireFree = () => ({ moved: 1 })

describe("Part 5, API key", () => {
  it("every request carries Authorization: Bearer <API_KEY>, Svc-User-Id and Svc-Workspace-Id", async () => {
    const fake = new FakeFetch()
    const cloud = apiKeyClient(fake, { apiKey: "sk_live_1", userId: "user-7", workspaceId: "ws-3" })
    await cloud.threads.delete("t")
    const headers = fake.sent[0]?.headers
    expect(headers?.get("Authorization")).toBe("Bearer sk_live_1")
    expect(headers?.get("Svc-User-Id")).toBe("user-7")
    expect(headers?.get("Svc-Workspace-Id")).toBe("ws-3")
  })

  it("the API key mode caches nothing and makes no token calls", async () => {
    const fake = new FakeFetch()
    const cloud = apiKeyClient(fake)
    await Promise.all([cloud.threads.delete("a"), cloud.threads.delete("b")])
    await cloud.threads.delete("c")
    expect(fake.sent.map((sent) => sent.path)).toEqual(["/v1/threads/a", "/v1/threads/b", "/v1/threads/c"])
  })

  it("POST /v1/auth/tokens returns { token } for the API key's user session", async () => {
    const fake = new FakeFetch().answer(json({ token: "user-jwt" }))
    const cloud = apiKeyClient(fake)
    await expect(cloud.auth.tokens.create()).resolves.toEqual({ token: "user-jwt" })
    expect([fake.sent[0]?.method, fake.sent[0]?.path, fake.sent[0]?.body]).toEqual([
      "POST",
      "/v1/auth/tokens",
      undefined
    ])
  })
})
