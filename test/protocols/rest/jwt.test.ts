import { generateKeyPair, importJWK, type JWK, type JWTPayload, SignJWT } from "jose"
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

const PUBLIC_URL = "https://svc.example.test"
const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url")

describe.each(stores)("JWT callers on the frontend base URL ($name)", (storeUnderTest) => {
  const handle = useGateway(storeUnderTest, { PUBLIC_URL })
  let projectA: { project_id: string; api_key: string }
  let projectB: { project_id: string; api_key: string }
  let backendAlice: UserClient
  let token: string
  let privateJwk: JWK
  let kid: string

  /** A call to `{origin}/p/{project}/v1{path}` with a bearer. */
  const front = (
    project: string,
    bearer: string | undefined,
    method: string,
    path: string,
    body?: unknown
  ): Promise<Reply> =>
    call(handle.current.baseUrl, method, `/p/${project}/v1${path}`, {
      ...(body === undefined ? {} : { body }),
      headers: bearer === undefined ? {} : { authorization: `Bearer ${bearer}` }
    })

  /** A token signed with the service's own key, claims as given. */
  const forge = async (claims: JWTPayload, header: Record<string, unknown> = {}) =>
    new SignJWT(claims)
      .setProtectedHeader({ alg: "ES256", kid, typ: "JWT", ...header })
      .sign(await importJWK(privateJwk, "ES256"))

  const claims = (overrides: JWTPayload = {}): JWTPayload => {
    const now = Math.floor(Date.now() / 1000)
    return {
      iss: PUBLIC_URL,
      aud: projectA.project_id,
      sub: "alice",
      wid: "ws-jwt",
      anon: false,
      iat: now,
      exp: now + 300,
      jti: `jti_${Math.random()}`,
      ...overrides
    }
  }

  beforeAll(async () => {
    projectA = await createProject(handle.current, "a")
    projectB = await createProject(handle.current, "b")
    backendAlice = asUser(handle.current, projectA.api_key, "alice", "ws-jwt")
    token = (await backendAlice("POST", "/auth/tokens")).body.token
    const [row] = await handle.current.sql<{ kid: string; private_jwk: JWK }>(
      "SELECT kid, private_jwk FROM signing_keys WHERE retired_at IS NULL ORDER BY created_at DESC LIMIT 1"
    )
    if (!row) throw new Error("no signing key")
    kid = row.kid
    privateJwk = typeof row.private_jwk === "string" ? JSON.parse(row.private_jwk) : row.private_jwk
  })

  it.each([
    ["a service JWT", async () => token],
    [
      "an anonymous session",
      async () =>
        (await call(handle.current.baseUrl, "POST", `/p/${projectA.project_id}/v1/auth/tokens/anonymous`)).body
          .access_token
    ]
  ])("serves every thread and message route to %s", async (mode, bearer) => {
    const token = await bearer()
    const created = await front(projectA.project_id, token, "POST", "/threads", {
      last_message_at: NOW,
      title: "via JWT"
    })
    expect(created.status, created.text).toBe(201)
    const threadId = created.body.thread_id
    // The same data as the API key sees for that user and workspace.
    if (mode === "a service JWT") expect((await backendAlice("GET", `/threads/${threadId}`)).body.title).toBe("via JWT")
    const message = await front(projectA.project_id, token, "POST", `/threads/${threadId}/messages`, {
      parent_id: null,
      format: "svc/v0",
      content: { text: "hi" }
    })
    expect(message.status).toBe(201)
    const messageId = message.body.message_id
    expect(
      (await front(projectA.project_id, token, "GET", "/threads")).body.threads.map((t: { id: string }) => t.id)
    ).toContain(threadId)
    expect((await front(projectA.project_id, token, "GET", `/threads/${threadId}`)).status).toBe(200)
    expect((await front(projectA.project_id, token, "PUT", `/threads/${threadId}`, { is_archived: true })).status).toBe(
      204
    )
    expect(
      (await front(projectA.project_id, token, "GET", `/threads/${threadId}/messages`)).body.messages
    ).toHaveLength(1)
    expect(
      (
        await front(projectA.project_id, token, "PUT", `/threads/${threadId}/messages/${messageId}`, {
          content: { text: "edited" }
        })
      ).status
    ).toBe(204)
    const feedback = await front(
      projectA.project_id,
      token,
      "POST",
      `/threads/${threadId}/messages/${messageId}/feedback`,
      {
        type: "positive"
      }
    )
    expect(feedback.status).toBe(200)
    const deleted = await front(projectA.project_id, token, "POST", `/threads/${threadId}/messages/delete`, {
      message_ids: [messageId]
    })
    expect(deleted.body).toEqual({ deleted: 1 })
    expect((await front(projectA.project_id, token, "DELETE", `/threads/${threadId}`)).status).toBe(204)
  })

  it("a JWT acts only in its own workspace", async () => {
    const other = asUser(handle.current, projectA.api_key, "bob", "ws-other")
    const threadId = (await other("POST", "/threads", { body: { last_message_at: NOW } })).body.thread_id
    expectError(await front(projectA.project_id, token, "GET", `/threads/${threadId}`), 404)
  })

  it("an API key is not a credential on the frontend URL, nor a JWT on the backend host", async () => {
    expectError(await front(projectA.project_id, projectA.api_key, "GET", "/threads"), 401)
    const onBackend = await call(handle.current.baseUrl, "GET", "/v1/threads", {
      headers: { authorization: `Bearer ${token}`, "svc-user-id": "alice", "svc-workspace-id": "ws-jwt" }
    })
    expectError(onBackend, 401)
  })

  const attacks: Array<[string, () => Promise<string>, (() => string)?]> = [
    ["no token at all", async () => ""],
    ["alg none", async () => `${b64({ alg: "none", typ: "JWT" })}.${b64(claims())}.`],
    [
      "HS256 signed with the public key",
      async () => {
        const { d: _private, ...publicJwk } = privateJwk
        return new SignJWT(claims())
          .setProtectedHeader({ alg: "HS256", kid, typ: "JWT" })
          .sign(new TextEncoder().encode(JSON.stringify(publicJwk)))
      }
    ],
    [
      "expired",
      async () => forge(claims({ iat: Math.floor(Date.now() / 1000) - 400, exp: Math.floor(Date.now() / 1000) - 100 }))
    ],
    ["not yet valid", async () => forge(claims({ nbf: Math.floor(Date.now() / 1000) + 600 }))],
    ["wrong aud", async () => forge(claims({ aud: "proj_someone_else" }))],
    ["wrong iss", async () => forge(claims({ iss: "https://evil.example" }))],
    [
      "unknown kid",
      async () => {
        const { privateKey } = await generateKeyPair("ES256")
        return new SignJWT(claims())
          .setProtectedHeader({ alg: "ES256", kid: "sig_unknown", typ: "JWT" })
          .sign(privateKey)
      }
    ],
    [
      "a tampered payload",
      async () => {
        const [header, , signature] = token.split(".")
        return `${header}.${b64({ ...claims(), sub: "mallory" })}.${signature}`
      }
    ],
    [
      "another project's token",
      async () => (await asUser(handle.current, projectB.api_key, "alice", "ws-jwt")("POST", "/auth/tokens")).body.token
    ],
    ["no workspace claim", async () => forge(claims({ wid: undefined }))]
  ]

  it.each(attacks)("refuses %s with 401", async (_label, make) => {
    const bearer = await make()
    const reply = await front(projectA.project_id, bearer === "" ? undefined : bearer, "GET", "/threads")
    expectError(reply, 401)
  })

  it("a valid forged-by-the-service token works (the attack suite's control)", async () => {
    expect((await front(projectA.project_id, await forge(claims()), "GET", "/threads")).status).toBe(200)
  })
})
