/**
 * Anonymous session rules 1 to 8 (docs/api-and-auth.md "Anonymous sessions and claim");
 * docs/client-library.md "Three modes" (the anonymous mode). Each test has a base URL of its own:
 * in-flight requests and storage-less records are kept per base URL for the
 * whole page.
 */
import { CloudResponseError, readAnonymousRefreshToken } from "svc-client"
import { afterEach, describe, expect, it, vi } from "vitest"
import {
  anonymousClient,
  FakeFetch,
  type FakeStorage,
  installGlobal,
  installLocks,
  installStorage,
  installThrowingStorage,
  json,
  jwt,
  restoreGlobals,
  type Sent,
  session,
  settle,
  text,
  uniqueBase,
  useClock
} from "./fakes.js"

afterEach(() => {
  vi.useRealTimers()
  restoreGlobals()
})

const ANONYMOUS = "/v1/auth/tokens/anonymous"
const REFRESH = "/v1/auth/tokens/refresh"
const DAY = 86_400_000

/** Token routes answered by `anonymous` and `refresh`; every other route a 204. */
const server = (
  anonymous: (sent: Sent) => Response | Promise<Response> = () => session(),
  refresh: (sent: Sent) => Response | Promise<Response> = () => session()
) =>
  new FakeFetch((sent) =>
    sent.path === ANONYMOUS
      ? anonymous(sent)
      : sent.path === REFRESH
        ? refresh(sent)
        : new Response(null, { status: 204 })
  )

const record = (token: string, inMs: number) =>
  JSON.stringify({ token, expires_at: new Date(Date.now() + inMs).toISOString() })

const storedRecord = (storage: FakeStorage, base: string): unknown => {
  const raw = storage.getItem(`svc:refresh_token:${base}`)
  return raw === null ? null : JSON.parse(raw)
}

describe("Part 5, anonymous session", () => {
  it("1: the refresh record { token, expires_at } is kept in localStorage under svc:refresh_token:<normalized base URL>", async () => {
    const storage = installStorage()
    const base = uniqueBase()
    const expires_at = new Date(Date.now() + 30 * DAY).toISOString()
    const fake = server(() => session(300, { token: "rt-1", expires_at }))
    await anonymousClient(fake, `${base}/`).threads.delete("t")
    expect([...storage.items.keys()]).toEqual([`svc:refresh_token:${base}`])
    expect(storedRecord(storage, base)).toEqual({ token: "rt-1", expires_at })
    expect(fake.sent.map((sent) => sent.url)).toEqual([`${base}${ANONYMOUS}`, `${base}/v1/threads/t`])
  })

  it("1: the older key svc:refresh_token is copied to the new key once, and deleted", async () => {
    const storage = installStorage()
    const legacy = record("rt-legacy", 10 * DAY)
    storage.setItem("svc:refresh_token", legacy)
    const base = uniqueBase()
    // A refresh answer without a refresh_token keeps the record as it was copied.
    const fake = server(undefined, () => session(300, null))
    await anonymousClient(fake, base).threads.delete("t")
    expect(FakeFetch.json(fake.to(REFRESH)[0])).toEqual({ refresh_token: "rt-legacy" })
    expect(storage.getItem("svc:refresh_token")).toBeNull()
    expect(storage.getItem(`svc:refresh_token:${base}`)).toBe(legacy)
    // Once: another base URL finds no legacy record and starts a new session.
    const other = uniqueBase()
    await anonymousClient(fake, other).threads.delete("t")
    expect(fake.to(ANONYMOUS).map((sent) => sent.url)).toEqual([`${other}${ANONYMOUS}`])
  })

  it("1: the older key is left alone when the new key is present", async () => {
    const storage = installStorage()
    const base = uniqueBase()
    storage.setItem("svc:refresh_token", record("rt-legacy", 10 * DAY))
    storage.setItem(`svc:refresh_token:${base}`, record("rt-current", 10 * DAY))
    const fake = server()
    await anonymousClient(fake, base).threads.delete("t")
    expect(FakeFetch.json(fake.to(REFRESH)[0])).toEqual({ refresh_token: "rt-current" })
    expect(storage.getItem("svc:refresh_token")).not.toBeNull()
  })

  it("1: without storage, the session continues without persistence", async () => {
    const fake = server()
    const cloud = anonymousClient(fake, uniqueBase())
    await cloud.threads.delete("a")
    await cloud.threads.delete("b")
    expect(fake.to(ANONYMOUS)).toHaveLength(1)
    expect(fake.to("/v1/threads").map((sent) => sent.headers.get("Authorization"))).toEqual([
      expect.stringMatching(/^Bearer .+\..+\..+$/),
      expect.stringMatching(/^Bearer .+\..+\..+$/)
    ])
  })

  it("1: with storage that fails, the session continues without persistence", async () => {
    const storage = installThrowingStorage()
    const fake = server()
    const cloud = anonymousClient(fake, uniqueBase())
    await expect(cloud.threads.delete("a")).resolves.toBeUndefined()
    expect(storage.calls).toBeGreaterThan(0)
    expect(fake.to(ANONYMOUS)).toHaveLength(1)
    expect(fake.to("/v1/threads")).toHaveLength(1)
  })

  it("2: concurrent token requests for the same storage and base URL share one in-flight request", async () => {
    installStorage()
    const base = uniqueBase()
    let answer: (response: Response) => void = () => {}
    const fake = server(() => new Promise<Response>((resolve) => (answer = resolve)))
    const requests = [
      anonymousClient(fake, base).threads.delete("a"),
      anonymousClient(fake, `${base}/`).threads.delete("b"),
      anonymousClient(fake, base).threads.delete("c")
    ]
    await settle()
    expect(fake.to(ANONYMOUS)).toHaveLength(1)
    answer(session())
    await Promise.all(requests)
    expect(fake.to(ANONYMOUS)).toHaveLength(1)
    expect(fake.to("/v1/threads")).toHaveLength(3)
  })

  it("2: another base URL or another storage object does not share the request", async () => {
    // Without Web Locks: Node 24's process-wide navigator.locks would make the third client wait on the lock
    // the first client's unanswered request holds (the sharing that Web Locks rightly give, tested below).
    installGlobal("navigator", undefined)
    installStorage()
    const base = uniqueBase()
    const fake = server(() => new Promise<Response>(() => {}))
    anonymousClient(fake, base)
      .threads.delete("a")
      .catch(() => {})
    anonymousClient(fake, uniqueBase())
      .threads.delete("b")
      .catch(() => {})
    await settle()
    installStorage()
    anonymousClient(fake, base)
      .threads.delete("c")
      .catch(() => {})
    await settle()
    expect(fake.to(ANONYMOUS)).toHaveLength(3)
  })

  it("2: when Web Locks exist, the lock svc-client:anonymous-auth:<base URL> is used", async () => {
    const names = installLocks()
    const base = uniqueBase()
    const fake = server()
    await anonymousClient(fake, `${base}/`).threads.delete("t")
    expect(names).toEqual([`svc-client:anonymous-auth:${base}`])
    expect(fake.to("/v1/threads")).toHaveLength(1)
  })

  it("3: a stored refresh token with more than 30 s of validity is sent to POST /v1/auth/tokens/refresh as { refresh_token }", async () => {
    useClock()
    const storage = installStorage()
    const base = uniqueBase()
    storage.setItem(`svc:refresh_token:${base}`, record("rt-stored", 31_000))
    const expires_at = new Date(Date.now() + 60 * DAY).toISOString()
    const fake = server(undefined, () => session(300, { token: "rt-next", expires_at }))
    await anonymousClient(fake, base).threads.delete("t")
    const [refresh] = fake.to(REFRESH)
    expect(refresh?.method).toBe("POST")
    expect(refresh?.headers.get("Content-Type")).toBe("application/json")
    expect(FakeFetch.json(refresh)).toEqual({ refresh_token: "rt-stored" })
    expect(fake.to(ANONYMOUS)).toHaveLength(0)
    expect(storedRecord(storage, base)).toEqual({ token: "rt-next", expires_at })
  })

  it("3: a 429 or a server error on refresh throws Service token refresh failed with status <status>", async () => {
    for (const status of [429, 500, 502, 503]) {
      const storage = installStorage()
      const base = uniqueBase()
      storage.setItem(`svc:refresh_token:${base}`, record("rt", DAY))
      const fake = server(undefined, () => json({ error: "x" }, { status }))
      await expect(anonymousClient(fake, base).threads.delete("t")).rejects.toThrow(
        new Error(`Service token refresh failed with status ${status}`)
      )
      expect(fake.sent.map((sent) => sent.path)).toEqual([REFRESH])
    }
  })

  it("3: any other refresh failure falls through to POST /v1/auth/tokens/anonymous", async () => {
    for (const status of [400, 401, 403, 404]) {
      const storage = installStorage()
      const base = uniqueBase()
      storage.setItem(`svc:refresh_token:${base}`, record("rt-old", DAY))
      const fake = server(
        () => session(300, { token: "rt-anon", expires_at: new Date(Date.now() + DAY).toISOString() }),
        () => json({}, { status })
      )
      await anonymousClient(fake, base).threads.delete("t")
      expect(fake.sent.map((sent) => sent.path)).toEqual([REFRESH, ANONYMOUS, "/v1/threads/t"])
      expect((storedRecord(storage, base) as { token: string }).token).toBe("rt-anon")
    }
  })

  it("4: a stored refresh token within 30 seconds of expiry is deleted (and not sent)", async () => {
    useClock()
    const storage = installStorage()
    const base = uniqueBase()
    storage.setItem(`svc:refresh_token:${base}`, record("rt-stale", 30_000))
    const fake = server(() => json({}, { status: 401 }))
    await expect(anonymousClient(fake, base).threads.delete("t")).rejects.toThrow("Authorization failed")
    expect(fake.sent.map((sent) => sent.path)).toEqual([ANONYMOUS])
    expect(storage.getItem(`svc:refresh_token:${base}`)).toBeNull()
  })

  it("5: the refresh request has a 30,000 ms deadline: Service refresh token request timed out after 30000ms", async () => {
    useClock()
    const storage = installStorage()
    const base = uniqueBase()
    storage.setItem(`svc:refresh_token:${base}`, record("rt", DAY))
    const fake = server(undefined, () => new Promise<Response>(() => {}))
    const request = anonymousClient(fake, base).threads.delete("t")
    const outcome = request.then(
      () => "resolved",
      (error: Error) => error.message
    )
    await vi.advanceTimersByTimeAsync(29_999)
    expect(await Promise.race([outcome, Promise.resolve("pending")])).toBe("pending")
    await vi.advanceTimersByTimeAsync(1)
    expect(await outcome).toBe("Service refresh token request timed out after 30000ms")
    expect(fake.to(REFRESH)[0]?.signal?.aborted).toBe(true)
    expect(fake.to(ANONYMOUS)).toHaveLength(0)
  })

  it("5: the anonymous request has a 30,000 ms deadline: Service anonymous token request timed out after 30000ms", async () => {
    useClock()
    const fake = server(() => new Promise<Response>(() => {}))
    const outcome = anonymousClient(fake, uniqueBase())
      .threads.delete("t")
      .then(
        () => "resolved",
        (error: Error) => error.message
      )
    await vi.advanceTimersByTimeAsync(29_999)
    expect(await Promise.race([outcome, Promise.resolve("pending")])).toBe("pending")
    await vi.advanceTimersByTimeAsync(1)
    expect(await outcome).toBe("Service anonymous token request timed out after 30000ms")
    expect(fake.sent).toHaveLength(1)
  })

  it("6: a token answer with an invalid shape throws CloudResponseError", async () => {
    const refresh = { token: "rt", expires_at: new Date(Date.now() + DAY).toISOString() }
    const bad: ReadonlyArray<readonly [Response, string]> = [
      [json([]), 'Invalid service response for "session": expected an object'],
      [json({ refresh_token: refresh }), 'Invalid service response for "session.access_token": expected a string'],
      [json({ access_token: "opaque", refresh_token: refresh }), '"session.access_token": expected a JWT'],
      [
        json({
          access_token: jwt(300).replace(/\.[^.]+\./, `.${Buffer.from('{"exp":"soon"}').toString("base64url")}.`),
          refresh_token: refresh
        }),
        '"session.access_token": expected a JWT'
      ],
      [json({ access_token: jwt(300) }), '"session.refresh_token": expected an object'],
      [
        json({ access_token: jwt(300), refresh_token: { token: 1, expires_at: refresh.expires_at } }),
        '"session.refresh_token.token": expected a string'
      ],
      [
        json({ access_token: jwt(300), refresh_token: { token: "rt", expires_at: "later" } }),
        '"session.refresh_token.expires_at"'
      ],
      [text("<html>", 200), '"body": expected JSON']
    ]
    for (const [answer, message] of bad) {
      const fake = server(() => answer)
      const failure = await anonymousClient(fake, uniqueBase())
        .threads.delete("t")
        .catch((error: unknown) => error)
      expect(failure, message).toBeInstanceOf(CloudResponseError)
      expect((failure as Error).message).toContain(message)
      expect(fake.to("/v1/threads")).toHaveLength(0)
    }
  })

  it("6: a refresh answer with an invalid shape throws CloudResponseError", async () => {
    const storage = installStorage()
    const base = uniqueBase()
    storage.setItem(`svc:refresh_token:${base}`, record("rt", DAY))
    const fake = server(undefined, () => json({ access_token: 42 }))
    await expect(anonymousClient(fake, base).threads.delete("t")).rejects.toBeInstanceOf(CloudResponseError)
  })

  it("7: readAnonymousRefreshToken(baseUrl) returns the stored token only with more than 30 seconds left", () => {
    useClock()
    const storage = installStorage()
    const base = uniqueBase()
    expect(readAnonymousRefreshToken(base)).toBeNull()
    storage.setItem(`svc:refresh_token:${base}`, record("rt-fresh", 31_000))
    expect(readAnonymousRefreshToken(base)).toBe("rt-fresh")
    expect(readAnonymousRefreshToken(`${base}/`)).toBe("rt-fresh")
    vi.setSystemTime(Date.now() + 1_000)
    expect(readAnonymousRefreshToken(base)).toBeNull()
  })

  it("8: the access token's expiry is read from its JWT exp, not from expires_in", async () => {
    useClock()
    const storage = installStorage()
    const base = uniqueBase()
    const refresh = { token: "rt", expires_at: new Date(Date.now() + 30 * DAY).toISOString() }
    const fake = server(
      () => json({ access_token: jwt(300, "a1"), expires_in: 10, refresh_token: refresh }),
      () => json({ access_token: jwt(300, "a2"), expires_in: 10 })
    )
    const cloud = anonymousClient(fake, base)
    await cloud.threads.delete("t")
    vi.setSystemTime(Date.now() + 269_000) // 31 s left of the 5 minutes
    await cloud.threads.delete("t")
    expect(fake.sent.map((sent) => sent.path)).toEqual([ANONYMOUS, "/v1/threads/t", "/v1/threads/t"])
    vi.setSystemTime(Date.now() + 1_000) // 30 s left: a new token, from the stored refresh token
    await cloud.threads.delete("t")
    expect(fake.sent.map((sent) => sent.path).slice(3)).toEqual([REFRESH, "/v1/threads/t"])
    const [first, second] = fake.to("/v1/threads").map((sent) => sent.headers.get("Authorization"))
    expect(second).toBe(first)
    expect(fake.to("/v1/threads")[2]?.headers.get("Authorization")).not.toBe(first)
    expect(storedRecord(storage, base)).toEqual(refresh)
  })
})

describe("the client library: anonymous details", () => {
  it("the anonymous route is called with no body and no SDK header", async () => {
    const fake = server()
    await anonymousClient(fake, uniqueBase()).threads.delete("t")
    const [anonymous] = fake.to(ANONYMOUS)
    expect(anonymous?.method).toBe("POST")
    expect(anonymous?.body).toBeUndefined()
    expect(anonymous?.headers.has("Svc-Sdk")).toBe(false)
    expect(anonymous?.headers.has("Content-Type")).toBe(false)
  })

  it("on refresh, a missing refresh_token in the answer keeps the stored one", async () => {
    const storage = installStorage()
    const base = uniqueBase()
    const stored = record("rt-keep", 5 * DAY)
    storage.setItem(`svc:refresh_token:${base}`, stored)
    await anonymousClient(
      server(undefined, () => session(300, null)),
      base
    ).threads.delete("t")
    expect(storage.getItem(`svc:refresh_token:${base}`)).toBe(stored)
  })

  it("a failed anonymous request gives Authorization failed", async () => {
    for (const status of [400, 401, 429, 500]) {
      const fake = server(() => json({ error: "nope" }, { status }))
      await expect(anonymousClient(fake, uniqueBase()).threads.delete("t")).rejects.toThrow(
        new Error("Authorization failed")
      )
      expect(fake.sent.map((sent) => sent.path)).toEqual([ANONYMOUS])
    }
  })
})
