/**
 * The dashboard's session over real HTTP on both stores (docs/dashboard.md
 * "Sign-in and session"): the cookie and its flags, who sees what, the
 * ways a session ends, CSRF, the sign-in rate limit, and every dashboard
 * route closed without a session.
 */
import * as HttpApi from "@effect/platform/HttpApi"
import { beforeAll, describe, expect, it } from "vitest"
import { DashboardApi } from "../../../schema/Api/Dashboard.js"
import {
  ADMIN_TOKEN,
  admin,
  asUser,
  call,
  createProject,
  type Gateway,
  stores,
  useGateway
} from "../../support/layers.js"
import { SAME_SITE, signIn } from "./http-support.js"

const as =
  (gateway: Gateway, cookie: string) =>
  (method: string, path: string, headers: Record<string, string> = {}) =>
    call(gateway.baseUrl, method, `/v1/dashboard${path}`, { headers: { cookie, ...headers } })

/** Every dashboard route but sign-in, with its path parameters filled in. */
const dashboardRoutes = (): Array<{ method: string; path: string }> => {
  const routes: Array<{ method: string; path: string }> = []
  HttpApi.reflect(DashboardApi, {
    onGroup: () => {},
    onEndpoint: ({ endpoint }) => {
      if (endpoint.name === "signIn") return
      routes.push({ method: endpoint.method, path: endpoint.path.replace(/:([a-z_]+)/g, "x_$1") })
    }
  })
  return routes
}

describe.each(stores)("dashboard session ($name)", (storeUnderTest) => {
  const handle = useGateway(storeUnderTest, { API_KEY_CACHE_MS: "0", TRUSTED_PROXIES: "127.0.0.1" })
  let gateway: Gateway
  let project: { project_id: string; api_key: string }
  let other: { project_id: string; api_key: string }

  beforeAll(async () => {
    gateway = handle.current
    project = await createProject(gateway, "Dashboard A")
    other = await createProject(gateway, "Dashboard B")
    await asUser(gateway, other.api_key, "u1", "w1")("POST", "/threads", { body: { title: "secret" } })
  })

  it("signs the admin in with an HttpOnly, SameSite=Strict cookie that lists every project", async () => {
    const { reply, setCookie, cookie } = await signIn(gateway, ADMIN_TOKEN)
    expect(reply.status).toBe(204)
    expect(setCookie).toMatch(/^svc_session=ds_[A-Za-z0-9_-]{43};/)
    expect(setCookie).toMatch(/HttpOnly/i)
    expect(setCookie).toMatch(/SameSite=Strict/i)
    expect(setCookie).toMatch(/Path=\//)
    // PUBLIC_URL is not https here.
    expect(setCookie).not.toMatch(/Secure/i)
    const session = await as(gateway, cookie)("GET", "/session")
    expect(session.status).toBe(200)
    expect(session.body.kind).toBe("admin")
    const ids = session.body.projects.map((p: { id: string }) => p.id)
    expect(ids).toEqual(expect.arrayContaining([project.project_id, other.project_id]))
    expect(session.body.projects.find((p: { id: string }) => p.id === project.project_id).name).toBe("Dashboard A")
    // The admin reads any project.
    expect((await as(gateway, cookie)("GET", `/projects/${other.project_id}/threads`)).status).toBe(200)
    expect((await as(gateway, cookie)("GET", "/projects/prj_unknown/threads")).status).toBe(404)
  })

  it("keeps only the secret's hash in the store", async () => {
    const { cookie } = await signIn(gateway, ADMIN_TOKEN)
    const secret = cookie.slice("svc_session=".length)
    const rows = await gateway.sql<{ id_hash: string }>("SELECT id_hash FROM dashboard_sessions")
    expect(rows.some((row) => row.id_hash.includes(secret))).toBe(false)
    expect(rows.every((row) => /^[0-9a-f]{64}$/.test(row.id_hash))).toBe(true)
  })

  it("gives an API key's session its own project only: another project's id is 404", async () => {
    const { reply, cookie } = await signIn(gateway, project.api_key)
    expect(reply.status).toBe(204)
    const session = await as(gateway, cookie)("GET", "/session")
    expect(session.body).toEqual({ kind: "project", projects: [{ id: project.project_id, name: "Dashboard A" }] })
    expect((await as(gateway, cookie)("GET", `/projects/${project.project_id}/threads`)).status).toBe(200)
    for (const path of ["/threads", "/runs", "/traces", "/scores", "/usage/daily"]) {
      const reply = await as(gateway, cookie)("GET", `/projects/${other.project_id}${path}`)
      expect(reply.status, path).toBe(404)
      expect(reply.text).not.toContain("secret")
    }
  })

  it("refuses a wrong token with 401 and sets no cookie", async () => {
    for (const token of ["nope", `${ADMIN_TOKEN}x`, "sk_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"]) {
      const { reply, setCookie } = await signIn(gateway, token)
      expect(reply.status).toBe(401)
      expect(reply.body.error).toBe("unauthorized")
      expect(setCookie).toBe("")
    }
  })

  it("answers 401 on every dashboard route without a session, with a bearer API key, or with a made-up cookie", async () => {
    const routes = dashboardRoutes()
    expect(routes.length).toBeGreaterThanOrEqual(14)
    for (const { method, path } of routes) {
      const headers = { ...SAME_SITE(gateway) }
      expect((await call(gateway.baseUrl, method, path, { headers })).status, `${method} ${path}`).toBe(401)
      const bearer = await call(gateway.baseUrl, method, path, {
        headers: { ...headers, authorization: `Bearer ${project.api_key}` }
      })
      expect(bearer.status, `${method} ${path} with a bearer key`).toBe(401)
      const madeUp = await call(gateway.baseUrl, method, path, {
        headers: { ...headers, cookie: "svc_session=ds_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA" }
      })
      expect(madeUp.status, `${method} ${path} with a made-up cookie`).toBe(401)
    }
  })

  it("refuses a changing call without the header or from another origin (CSRF)", async () => {
    const { cookie } = await signIn(gateway, ADMIN_TOKEN)
    const signOut = as(gateway, cookie)
    expect((await signOut("DELETE", "/session", { origin: gateway.baseUrl })).status).toBe(403)
    expect(
      (await signOut("DELETE", "/session", { origin: "https://evil.example", "x-svc-dashboard": "1" })).status
    ).toBe(403)
    expect((await signOut("DELETE", "/session", { "x-svc-dashboard": "1" })).status).toBe(403)
    // Still signed in: nothing ended.
    expect((await signOut("GET", "/session")).status).toBe(200)
    // Sign-in too (login CSRF).
    expect((await signIn(gateway, ADMIN_TOKEN, { origin: gateway.baseUrl })).reply.status).toBe(403)
    expect(
      (await signIn(gateway, ADMIN_TOKEN, { origin: "https://evil.example", "x-svc-dashboard": "1" })).reply.status
    ).toBe(403)
  })

  it("ends a session at sign-out, at once", async () => {
    const { cookie } = await signIn(gateway, ADMIN_TOKEN)
    const session = as(gateway, cookie)
    const out = await session("DELETE", "/session", SAME_SITE(gateway))
    expect(out.status).toBe(204)
    expect(out.headers.get("set-cookie")).toMatch(/^svc_session=;.*Max-Age=0/i)
    expect((await session("GET", "/session")).status).toBe(401)
  })

  it("ends an API key's session when the key is revoked", async () => {
    const created = await admin(gateway)("POST", `/projects/${project.project_id}/api-keys`, {})
    expect(created.status).toBe(201)
    const { cookie } = await signIn(gateway, created.body.api_key)
    const session = as(gateway, cookie)
    expect((await session("GET", `/projects/${project.project_id}/threads`)).status).toBe(200)
    expect(
      (await admin(gateway)("DELETE", `/projects/${project.project_id}/api-keys/${created.body.key_id}`)).status
    ).toBe(204)
    expect((await session("GET", `/projects/${project.project_id}/threads`)).status).toBe(401)
    expect((await session("GET", "/session")).status).toBe(401)
  })

  it("ends a session after 12 hours without use, not before", async () => {
    const { cookie } = await signIn(gateway, ADMIN_TOKEN)
    const session = as(gateway, cookie)
    await gateway.sql("UPDATE dashboard_sessions SET last_used_at = now() - interval '11 hours 59 minutes'")
    expect((await session("GET", "/session")).status).toBe(200)
    await gateway.sql("UPDATE dashboard_sessions SET last_used_at = now() - interval '12 hours 1 minute'")
    expect((await session("GET", "/session")).status).toBe(401)
  })
})

describe.each(stores.slice(0, 1))("dashboard sign-in limits and cookie flags ($name)", (storeUnderTest) => {
  const handle = useGateway(storeUnderTest, { PUBLIC_URL: "https://gateway.example", TRUSTED_PROXIES: "127.0.0.1" })

  it("marks the cookie Secure when PUBLIC_URL is https, and accepts that origin", async () => {
    const gateway = handle.current
    const { reply, setCookie } = await signIn(gateway, ADMIN_TOKEN, {
      origin: "https://gateway.example",
      "x-svc-dashboard": "1"
    })
    expect(reply.status).toBe(204)
    expect(setCookie).toMatch(/;\s*Secure/i)
  })

  it("answers 429 with Retry-After past 10 sign-in attempts a minute from one address", async () => {
    const gateway = handle.current
    const statuses: Array<number> = []
    let retryAfter: string | null = null
    // 25 attempts: whatever minute boundary falls among them, one window gets more than 10.
    for (let attempt = 0; attempt < 25; attempt++) {
      const { reply } = await signIn(gateway, "wrong", {
        origin: gateway.baseUrl,
        "x-svc-dashboard": "1",
        "x-forwarded-for": "10.9.9.9"
      })
      statuses.push(reply.status)
      if (reply.status === 429) retryAfter = reply.headers.get("retry-after")
    }
    expect(statuses.filter((status) => status === 429).length).toBeGreaterThanOrEqual(1)
    expect(statuses.slice(0, 5).every((status) => status === 401)).toBe(true)
    expect(Number(retryAfter)).toBeGreaterThan(0)
    // Another address is not held back by this one's attempts.
    expect((await signIn(gateway, ADMIN_TOKEN, { origin: gateway.baseUrl, "x-svc-dashboard": "1" })).reply.status).toBe(
      204
    )
  })
})
