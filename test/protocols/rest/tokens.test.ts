import { createLocalJWKSet, decodeProtectedHeader, jwtVerify } from "jose"
import { beforeAll, describe, expect, it } from "vitest"
import { asUser, call, createProject, stores, type UserClient, useGateway } from "../../layers.js"
import { expectError } from "./helpers.js"

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

  it("POST /v1/auth/tokens answers a 5-minute ES256 JWT with the claims of decisions §4", async () => {
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

  it("needs an API key with the identity headers", async () => {
    expectError(await call(handle.current.baseUrl, "POST", "/v1/auth/tokens"), 401)
    expectError(await alice("POST", "/auth/tokens", { headers: { "svc-workspace-id": "" } }), 400)
  })
})
