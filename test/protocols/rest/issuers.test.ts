import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { exportJWK, generateKeyPair, type JWTPayload, SignJWT } from "jose"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { asAnonymous, expectError } from "../../support/helpers.js"
import { admin, call, createProject, NOW, stores, useGateway } from "../../support/layers.js"

const ISSUER = "https://idp.example.test"
const AUDIENCE = "my-app"

/** An identity provider's JWKS endpoint: answers the keys, or fails, or never answers. */
const startIdp = async () => {
  const { privateKey, publicKey } = await generateKeyPair("RS256")
  const jwk = { ...(await exportJWK(publicKey)), kid: "idp-1", alg: "RS256", use: "sig" }
  let mode: "ok" | "error" | "hang" = "ok"
  let fetches = 0
  const server: Server = createServer((request, response) => {
    fetches++
    if (request.url?.split("?")[0] !== "/jwks" || mode === "error") {
      response.writeHead(500).end()
      return
    }
    if (mode === "hang") return
    response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ keys: [jwk] }))
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const sign = (claims: JWTPayload = {}) => {
    const now = Math.floor(Date.now() / 1000)
    return new SignJWT({
      iss: ISSUER,
      aud: AUDIENCE,
      sub: "ext-user",
      org: "org-1",
      iat: now,
      exp: now + 300,
      ...claims
    })
      .setProtectedHeader({ alg: "RS256", kid: "idp-1" })
      .sign(privateKey)
  }
  return {
    url,
    sign,
    setMode: (next: typeof mode) => {
      mode = next
    },
    fetches: () => fetches,
    close: () => {
      server.closeAllConnections()
      return new Promise((resolve) => server.close(resolve))
    }
  }
}

describe.each(stores)("external identity providers ($name)", (storeUnderTest) => {
  const handle = useGateway(storeUnderTest)
  let idp: Awaited<ReturnType<typeof startIdp>>
  let projectId: string

  const front = (bearer: string, method = "GET", path = "/threads", body?: unknown) =>
    call(handle.current.baseUrl, method, `/p/${projectId}/v1${path}`, {
      ...(body === undefined ? {} : { body }),
      headers: { authorization: `Bearer ${bearer}` }
    })

  beforeAll(async () => {
    idp = await startIdp()
    projectId = (await createProject(handle.current)).project_id
  })
  afterAll(async () => {
    await idp?.close()
  })

  it("is set, read and cleared through the admin API, with defaults for the claims", async () => {
    const set = await admin(handle.current)("PUT", `/projects/${projectId}/issuer`, {
      issuer: ISSUER,
      jwks_url: `${idp.url}/jwks`,
      audience: AUDIENCE,
      workspace_claim: "org"
    })
    expect(set.status, set.text).toBe(200)
    expect(set.body).toEqual({
      issuer: ISSUER,
      jwks_url: `${idp.url}/jwks`,
      audience: AUDIENCE,
      user_claim: "sub",
      workspace_claim: "org"
    })
    expect((await admin(handle.current)("GET", `/projects/${projectId}/issuer`)).body.workspace_claim).toBe("org")
    expectError(await admin(handle.current)("PUT", `/projects/${projectId}/issuer`, { issuer: ISSUER }), 400)
    expectError(
      await admin(handle.current)("PUT", `/projects/${projectId}/issuer`, {
        issuer: ISSUER,
        jwks_url: "file:///etc/passwd",
        audience: AUDIENCE
      }),
      400
    )
  })

  it("accepts the provider's tokens on every route, acting as the configured claims", async () => {
    const token = await idp.sign()
    const created = await front(token, "POST", "/threads", { last_message_at: NOW })
    expect(created.status, created.text).toBe(201)
    const [row] = await handle.current.sql<{ user_id: string; workspace_id: string }>(
      "SELECT user_id, workspace_id FROM threads WHERE id = $1",
      [created.body.thread_id]
    )
    expect(row).toEqual({ user_id: "ext-user", workspace_id: "org-1" })
    expect((await front(token)).body.threads).toHaveLength(1)
  })

  it("an external sub or workspace equal to an anonymous user's id cannot reach that user's threads", async () => {
    const anonymous = await asAnonymous(handle.current, projectId)
    const created = await anonymous.client("POST", "/threads", { body: { last_message_at: NOW } })
    expect(created.status, created.text).toBe(201)
    const issuer = admin(handle.current)
    const settings = { issuer: ISSUER, jwks_url: `${idp.url}/jwks`, audience: AUDIENCE }
    try {
      // No workspace claim: the user is its own workspace, as an anonymous user is.
      expect((await issuer("PUT", `/projects/${projectId}/issuer`, settings)).status).toBe(200)
      expectError(await front(await idp.sign({ sub: anonymous.userId })), 401)
      expectError(
        await front(await idp.sign({ sub: anonymous.userId }), "GET", `/threads/${created.body.thread_id}`),
        401
      )
      expect((await front(await idp.sign({ sub: "ext-user" }))).status).toBe(200)
      // With a workspace claim naming the anonymous user's workspace.
      await issuer("PUT", `/projects/${projectId}/issuer`, { ...settings, workspace_claim: "org" })
      expectError(await front(await idp.sign({ org: anonymous.userId })), 401)
      // The provider's tokens are not a way to mint service tokens either.
      expectError(await front(await idp.sign(), "POST", "/auth/tokens"), 404)
      // The anonymous user still sees its thread, alone.
      expect((await anonymous.client("GET", "/threads")).body.threads).toHaveLength(1)
    } finally {
      await issuer("PUT", `/projects/${projectId}/issuer`, { ...settings, workspace_claim: "org" })
    }
  })

  it.each([
    ["wrong audience", { aud: "other-app" }],
    ["wrong issuer", { iss: "https://evil.example" }],
    ["expired", { iat: Math.floor(Date.now() / 1000) - 600, exp: Math.floor(Date.now() / 1000) - 300 }],
    ["no workspace claim", { org: undefined }]
  ])("refuses a provider token with %s", async (_label, claims) => {
    expectError(await front(await idp.sign(claims)), 401)
  })

  it("a failing or hanging JWKS endpoint is a 401 within seconds, never a hung request", async () => {
    // A new URL (so no key set is cached) on an endpoint that fails, then one that never answers.
    for (const mode of ["error", "hang"] as const) {
      idp.setMode(mode)
      await admin(handle.current)("PUT", `/projects/${projectId}/issuer`, {
        issuer: ISSUER,
        jwks_url: `${idp.url}/jwks?${mode}`,
        audience: AUDIENCE,
        workspace_claim: "org"
      })
      const started = Date.now()
      expectError(await front(await idp.sign()), 401)
      expect(Date.now() - started).toBeLessThan(5_000)
    }
    idp.setMode("ok")
  })

  it("once cleared, the provider's tokens are refused", async () => {
    expect((await admin(handle.current)("DELETE", `/projects/${projectId}/issuer`)).status).toBe(204)
    expectError(await front(await idp.sign()), 401)
    expectError(await admin(handle.current)("GET", `/projects/${projectId}/issuer`), 404)
  })
})
