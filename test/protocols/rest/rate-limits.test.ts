import { beforeAll, describe, expect, it } from "vitest"
import {
  call,
  createProject,
  type Gateway,
  type Reply,
  startGateway,
  stores,
  useGateway
} from "../../support/layers.js"

const anonymousFrom = (gateway: Gateway, projectId: string, client: string) =>
  call(gateway.baseUrl, "POST", `/p/${projectId}/v1/auth/tokens/anonymous`, {
    headers: { "x-forwarded-for": `${client}, 10.0.0.9` }
  })

const expectRateLimited = (reply: Reply) => {
  expect(reply.status, reply.text).toBe(429)
  expect(reply.body.error).toBe("rate_limited")
  const retryAfter = Number(reply.headers.get("retry-after"))
  expect(Number.isInteger(retryAfter)).toBe(true)
  expect(retryAfter).toBeGreaterThanOrEqual(1)
  expect(retryAfter).toBeLessThanOrEqual(60)
}

describe.each(stores)("per-address rate limits ($name)", (storeUnderTest) => {
  // The test client is the trusted proxy; X-Forwarded-For names the client.
  const handle = useGateway(storeUnderTest, { TRUSTED_PROXIES: "127.0.0.1, 10.0.0.9" })
  let projectId: string

  beforeAll(async () => {
    projectId = (await createProject(handle.current)).project_id
  })

  it("anonymous create: 30 a minute per client address, then 429 with Retry-After", async () => {
    // The start of a fixed minute window, so the burst never straddles two.
    handle.current.clock.toNextWindow(60_000)
    const replies = await Promise.all(
      Array.from({ length: 30 }, () => anonymousFrom(handle.current, projectId, "203.0.113.1"))
    )
    expect(replies.every((reply) => reply.status === 200)).toBe(true)
    expectRateLimited(await anonymousFrom(handle.current, projectId, "203.0.113.1"))
    // Another client address has its own budget.
    expect((await anonymousFrom(handle.current, projectId, "203.0.113.2")).status).toBe(200)
    // The next minute is a new window.
    handle.current.clock.toNextWindow(60_000)
    expect((await anonymousFrom(handle.current, projectId, "203.0.113.1")).status).toBe(200)
  })

  it("Retry-After counts down to the end of the window", async () => {
    handle.current.clock.toNextWindow(60_000, 45_000)
    await Promise.all(Array.from({ length: 30 }, () => anonymousFrom(handle.current, projectId, "203.0.113.6")))
    const refused = await anonymousFrom(handle.current, projectId, "203.0.113.6")
    expectRateLimited(refused)
    // 45 s into the minute: 15 s to go, less the (real) seconds the burst took.
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(10)
    expect(Number(refused.headers.get("retry-after"))).toBeLessThanOrEqual(15)
  })

  it("refresh: 120 a minute per client address", async () => {
    // The start of a fixed minute window, so the burst never straddles two.
    handle.current.clock.toNextWindow(60_000)
    const session = (await anonymousFrom(handle.current, projectId, "203.0.113.3")).body
    const refresh = () =>
      call(handle.current.baseUrl, "POST", `/p/${projectId}/v1/auth/tokens/refresh`, {
        body: { refresh_token: session.refresh_token.token },
        headers: { "x-forwarded-for": "203.0.113.4" }
      })
    const statuses: Array<number> = []
    for (let batch = 0; batch < 6; batch++) {
      const replies = await Promise.all(Array.from({ length: 20 }, refresh))
      statuses.push(...replies.map((reply) => reply.status))
    }
    expect(statuses.filter((status) => status === 200)).toHaveLength(120)
    expectRateLimited(await refresh())
  })

  it.skipIf(storeUnderTest.name !== "postgres")("two gateways on one PostgreSQL share the limit", async () => {
    const second = await startGateway(handle.store, { TRUSTED_PROXIES: "127.0.0.1, 10.0.0.9" })
    // Both gateways at the start of one fixed minute window, whatever the real second is.
    handle.current.clock.toNextWindow(60_000)
    second.clock.offsetMs = handle.current.clock.offsetMs
    try {
      const both = await Promise.all(
        Array.from({ length: 30 }, (_, index) =>
          anonymousFrom(index % 2 === 0 ? handle.current : second, projectId, "203.0.113.5")
        )
      )
      expect(both.every((reply) => reply.status === 200)).toBe(true)
      expectRateLimited(await anonymousFrom(second, projectId, "203.0.113.5"))
      expectRateLimited(await anonymousFrom(handle.current, projectId, "203.0.113.5"))
    } finally {
      await second.close()
    }
  })
})

describe.each(stores)("client address without trusted proxies ($name)", (storeUnderTest) => {
  const handle = useGateway(storeUnderTest)
  let projectId: string
  beforeAll(async () => {
    projectId = (await createProject(handle.current)).project_id
  })

  it("ignores X-Forwarded-For: a client cannot pick a fresh address", async () => {
    // The start of a fixed minute window, so the burst never straddles two.
    handle.current.clock.toNextWindow(60_000)
    const replies = await Promise.all(
      Array.from({ length: 31 }, (_, index) => anonymousFrom(handle.current, projectId, `198.51.100.${index}`))
    )
    expect(replies.filter((reply) => reply.status === 429)).toHaveLength(1)
  })
})
