import {
  createLocalJWKSet,
  decodeProtectedHeader,
  exportJWK,
  generateKeyPair,
  importJWK,
  type JWK,
  jwtVerify,
  SignJWT
} from "jose"
import { beforeAll, describe, expect, it } from "vitest"
import { asAnonymous, asJwtUser, expectError } from "../../support/helpers.js"
import {
  ADMIN_TOKEN,
  asUser,
  call,
  createProject,
  startGateway,
  stores,
  type UserClient,
  useGateway
} from "../../support/layers.js"

const PUBLIC_URL = "https://svc.example.test"

describe.each(stores)("service-issued tokens ($name)", (storeUnderTest) => {
  const handle = useGateway(storeUnderTest, { PUBLIC_URL: `${PUBLIC_URL}/` })
  let projectId: string
  let alice: UserClient

  beforeAll(async () => {
    const project = await createProject(handle.current)
    projectId = project.project_id
    alice = asUser(handle.current, project.api_key, "alice", "ws-tokens")
  })

  const jwks = async () => {
    const reply = await call(handle.current.baseUrl, "GET", "/.well-known/jwks.json")
    expect(reply.status).toBe(200)
    expect(reply.headers.get("cache-control")).toContain("max-age")
    return reply.body as { keys: Array<Record<string, unknown>> }
  }

  it("publishes public keys only, each with kid and alg", async () => {
    const { keys } = await jwks()
    expect(keys.length).toBeGreaterThanOrEqual(1)
    for (const key of keys) {
      expect(key).toMatchObject({ kty: "EC", crv: "P-256", alg: "ES256", use: "sig" })
      expect(typeof key.kid).toBe("string")
      expect(key).not.toHaveProperty("d")
    }
  })

  // The claims: docs/api-and-auth.md "Service-issued tokens".
  it("POST /v1/auth/tokens answers a 5-minute ES256 JWT with the documented claims", async () => {
    const before = Math.floor(Date.now() / 1000)
    const reply = await alice("POST", "/auth/tokens")
    expect(reply.status, reply.text).toBe(200)
    expect(Object.keys(reply.body)).toEqual(["token"])
    const token: string = reply.body.token
    const header = decodeProtectedHeader(token)
    expect(header.alg).toBe("ES256")
    const { payload } = await jwtVerify(token, createLocalJWKSet(await jwks()), {
      issuer: PUBLIC_URL,
      audience: projectId,
      algorithms: ["ES256"]
    })
    expect(payload).toMatchObject({ sub: "alice", wid: "ws-tokens", anon: false })
    expect(typeof payload.jti).toBe("string")
    expect((payload.iat ?? 0) - before).toBeLessThanOrEqual(5)
    expect((payload.exp ?? 0) - (payload.iat ?? 0)).toBe(300)
    const second = await alice("POST", "/auth/tokens")
    const { payload: again } = await jwtVerify(second.body.token, createLocalJWKSet(await jwks()))
    expect(again.jti).not.toBe(payload.jti)
  })

  it("a token holder cannot mint: POST /auth/tokens is 404 on the frontend URL, for JWT and anonymous callers", async () => {
    const project = await createProject(handle.current)
    const jwtUser = await asJwtUser(handle.current, project, "alice", "ws-mint")
    const anonymous = await asAnonymous(handle.current, project.project_id)
    for (const client of [jwtUser, anonymous.client]) {
      // The bearer works on the frontend URL, but cannot renew itself there.
      expect((await client("GET", "/threads")).status).toBe(200)
      const minted = await client("POST", "/auth/tokens")
      expectError(minted, 404)
      expect(minted.body.message).toContain("backend host")
    }
    // After a claim revokes the anonymous session, its access token cannot be traded for a fresh one either.
    const claimed = await asUser(
      handle.current,
      project.api_key,
      "alice",
      "ws-mint"
    )("POST", "/threads/claim", {
      body: { refresh_token: anonymous.refreshToken }
    })
    expect(claimed.status, claimed.text).toBe(200)
    expectError(await anonymous.client("POST", "/auth/tokens"), 404)
    const refreshed = await call(handle.current.baseUrl, "POST", `/p/${project.project_id}/v1/auth/tokens/refresh`, {
      body: { refresh_token: anonymous.refreshToken }
    })
    expect(refreshed.status).toBe(401)
  })

  it("an access token, service or anonymous, stops working when its 5 minutes are over", async () => {
    const project = await createProject(handle.current)
    const jwtUser = await asJwtUser(handle.current, project, "alice", "ws-expiry")
    const anonymous = await asAnonymous(handle.current, project.project_id)
    const clock = handle.current.clock
    const start = clock.offsetMs
    try {
      // exp is whole seconds (iat rounded down, plus 300), so a token lives 299 to 300 s: 290 s is well inside.
      clock.advance(290_000)
      expect((await jwtUser("GET", "/threads")).status).toBe(200)
      expect((await anonymous.client("GET", "/threads")).status).toBe(200)
      clock.advance(11_000)
      expectError(await jwtUser("GET", "/threads"), 401)
      expectError(await anonymous.client("GET", "/threads"), 401)
    } finally {
      clock.offsetMs = start
    }
  })

  it("the admin API is served on the backend host only, the anonymous routes on the frontend URL only", async () => {
    const reply = await call(handle.current.baseUrl, "GET", `/p/${projectId}/v1/admin/projects`, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}` }
    })
    expectError(reply, 404)
    expect(
      (
        await call(handle.current.baseUrl, "GET", "/v1/admin/projects", {
          headers: { authorization: `Bearer ${ADMIN_TOKEN}` }
        })
      ).status
    ).toBe(200)
    expectError(await call(handle.current.baseUrl, "POST", "/v1/auth/tokens/anonymous"), 404)
    expectError(
      await call(handle.current.baseUrl, "POST", "/v1/auth/tokens/refresh", { body: { refresh_token: "rt_x" } }),
      404
    )
  })

  it("needs an API key with the identity headers", async () => {
    expectError(await call(handle.current.baseUrl, "POST", "/v1/auth/tokens"), 401)
    expectError(await alice("POST", "/auth/tokens", { headers: { "svc-workspace-id": "" } }), 400)
  })
})

const makeKey = async (alg: "ES256" | "EdDSA", kid: string): Promise<JWK> => {
  const { privateKey } = await generateKeyPair(alg, { extractable: true })
  return { ...(await exportJWK(privateKey)), kid, alg }
}

// Made before the suite's gateway starts: the new key first, the previous one kept for rotation.
const [current, previous] = await Promise.all([makeKey("EdDSA", "k-new"), makeKey("ES256", "k-old")])

describe.each(stores)("signing keys from configuration ($name)", (storeUnderTest) => {
  const handle = useGateway(storeUnderTest, {
    PUBLIC_URL,
    JWT_SIGNING_KEYS: JSON.stringify({ keys: [current, previous] })
  })

  it("signs with the first key, publishes both, and still accepts tokens of the previous one (rotation)", async () => {
    const project = await createProject(handle.current)
    const jwks = (await call(handle.current.baseUrl, "GET", "/.well-known/jwks.json")).body
    expect(jwks.keys.map((key: JWK) => key.kid)).toEqual(["k-new", "k-old"])
    expect(jwks.keys.every((key: JWK) => key.d === undefined)).toBe(true)
    const issued = (await asUser(handle.current, project.api_key, "u", "w")("POST", "/auth/tokens")).body.token
    expect(decodeProtectedHeader(issued)).toMatchObject({ alg: "EdDSA", kid: "k-new" })
    const now = Math.floor(Date.now() / 1000)
    const old = await new SignJWT({ sub: "u", wid: "w", anon: false, iat: now, exp: now + 300 })
      .setProtectedHeader({ alg: "ES256", kid: "k-old", typ: "JWT" })
      .setIssuer(PUBLIC_URL)
      .setAudience(project.project_id)
      .sign(await importJWK(previous ?? {}, "ES256"))
    for (const token of [issued, old]) {
      const reply = await call(handle.current.baseUrl, "GET", `/p/${project.project_id}/v1/threads`, {
        headers: { authorization: `Bearer ${token}` }
      })
      expect(reply.status, reply.text).toBe(200)
    }
  })

  it("a malformed key set stops the gateway from starting", async () => {
    await expect(
      startGateway({ kind: "embedded", dataDir: undefined }, { JWT_SIGNING_KEYS: '{"keys":[{"kty":"EC"}]}' })
    ).rejects.toThrow()
  })
})
