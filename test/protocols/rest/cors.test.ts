import { beforeAll, describe, expect, it } from "vitest"
import { expectError } from "../../support/helpers.js"
import { admin, asUser, call, createProject, stores, useGateway } from "../../support/layers.js"

const APP = "https://app.example.com"

describe.each(stores)("CORS on the frontend base URL ($name)", (storeUnderTest) => {
  const handle = useGateway(storeUnderTest)
  let projectId: string
  let token: string

  const front = (method: string, path: string, headers: Record<string, string>) =>
    call(handle.current.baseUrl, method, `/p/${projectId}/v1${path}`, { headers })

  beforeAll(async () => {
    const project = await createProject(handle.current)
    projectId = project.project_id
    token = (await asUser(handle.current, project.api_key, "u", "w")("POST", "/auth/tokens")).body.token
    const set = await admin(handle.current)("PUT", `/projects/${projectId}/origins`, {
      origins: [APP, "http://localhost:5173"]
    })
    expect(set.status, set.text).toBe(200)
    expect(set.body.origins).toEqual(["http://localhost:5173", APP])
  })

  it("an allowed origin gets the CORS headers on answers, errors included", async () => {
    const ok = await front("GET", "/threads", { authorization: `Bearer ${token}`, origin: APP })
    expect(ok.status).toBe(200)
    expect(ok.headers.get("access-control-allow-origin")).toBe(APP)
    expect(ok.headers.get("vary")).toContain("origin")
    expect(ok.headers.get("access-control-expose-headers")).toContain("retry-after")
    const unauthorized = await front("GET", "/threads", { origin: APP })
    expect(unauthorized.status).toBe(401)
    expect(unauthorized.headers.get("access-control-allow-origin")).toBe(APP)
  })

  it("a preflight from an allowed origin is 204 with methods and headers", async () => {
    const reply = await front("OPTIONS", "/threads", {
      origin: APP,
      "access-control-request-method": "POST",
      "access-control-request-headers": "authorization, content-type"
    })
    expect(reply.status).toBe(204)
    expect(reply.headers.get("access-control-allow-origin")).toBe(APP)
    expect(reply.headers.get("access-control-allow-methods")).toContain("POST")
    expect(reply.headers.get("access-control-allow-headers")).toContain("authorization")
    // A browser reporting runs sends Idempotency-Key.
    expect(reply.headers.get("access-control-allow-headers")).toContain("idempotency-key")
  })

  it("another origin is refused, preflight or not, without CORS headers", async () => {
    for (const method of ["OPTIONS", "GET"]) {
      const reply = await front(method, "/threads", {
        authorization: `Bearer ${token}`,
        origin: "https://evil.example"
      })
      expectError(reply, 403)
      expect(reply.headers.get("access-control-allow-origin")).toBeNull()
    }
  })

  it("a request without Origin (not a browser) is served", async () => {
    expect((await front("GET", "/threads", { authorization: `Bearer ${token}` })).status).toBe(200)
  })

  it("a changed list applies at once", async () => {
    const other = "https://other.example.com"
    expectError(await front("GET", "/threads", { authorization: `Bearer ${token}`, origin: other }), 403)
    await admin(handle.current)("PUT", `/projects/${projectId}/origins`, { origins: [APP, other] })
    expect((await front("GET", "/threads", { authorization: `Bearer ${token}`, origin: other })).status).toBe(200)
    expect((await admin(handle.current)("GET", `/projects/${projectId}/origins`)).body.origins).toEqual([APP, other])
  })

  it("the list holds at most 32 origins of at most 255 characters, in origin form", async () => {
    const many = (count: number) => Array.from({ length: count }, (_, index) => `https://app${index}.example.com`)
    const set = (origins: Array<string>) => admin(handle.current)("PUT", `/projects/${projectId}/origins`, { origins })
    expect((await set(many(32))).status).toBe(200)
    expectError(await set(many(33)), 400)
    const host = (length: number) => `https://${"a".repeat(length - "https://".length - ".io".length)}.io`
    expect(host(255)).toHaveLength(255)
    expect((await set([host(255)])).status).toBe(200)
    expectError(await set([host(256)]), 400)
    for (const bad of ["app.example.com", "https://app.example.com/", "https://APP.example.com", "ftp://x.io"]) {
      expectError(await set([bad]), 400)
    }
    expectError(await admin(handle.current)("PUT", "/projects/proj_nope/origins", { origins: [] }), 404)
  })
})
