import { beforeAll, describe, expect, it } from "vitest"
import { expectError } from "../../support/helpers.js"
import {
  ADMIN_TOKEN,
  admin,
  asUser,
  call,
  createProject,
  type Gateway,
  NOW,
  stores,
  useGateway
} from "../../support/layers.js"

describe.each(stores)("admin API and API keys ($name)", (storeUnderTest) => {
  const handle = useGateway(storeUnderTest, { API_KEY_CACHE_MS: "0" })
  let gateway: Gateway
  let adminCall: ReturnType<typeof admin>

  beforeAll(() => {
    gateway = handle.current
    adminCall = admin(gateway)
  })

  it("creates a project with the exact shape and a working first key", async () => {
    const reply = await adminCall("POST", "/projects", { name: "Acme" })
    expect(reply.status).toBe(201)
    expect(Object.keys(reply.body).sort()).toEqual(["api_key", "project_id"])
    expect(reply.body.api_key).toMatch(/^sk_[A-Za-z0-9_-]{43}$/)
    const user = asUser(gateway, reply.body.api_key, "u", "w")
    expect((await user("GET", "/threads")).status).toBe(200)
    const list = await adminCall("GET", "/projects")
    expect(
      list.body.projects.some(
        (p: { project_id: string; name: string }) => p.project_id === reply.body.project_id && p.name === "Acme"
      )
    ).toBe(true)
  })

  it("refuses an empty or over-long project name", async () => {
    expect((await adminCall("POST", "/projects", { name: "" })).status).toBe(400)
    expect((await adminCall("POST", "/projects", { name: "x".repeat(101) })).status).toBe(400)
    expect((await adminCall("POST", "/projects", { name: "x".repeat(100) })).status).toBe(201)
  })

  it("needs the admin token", async () => {
    const none = await call(gateway.baseUrl, "GET", "/v1/admin/projects")
    expect(none.status).toBe(401)
    expect(none.body.error).toBe("unauthorized")
    const wrong = await call(gateway.baseUrl, "GET", "/v1/admin/projects", {
      headers: { authorization: "Bearer nope" }
    })
    expect(wrong.status).toBe(401)
    const sameLength = await call(gateway.baseUrl, "GET", "/v1/admin/projects", {
      headers: { authorization: `Bearer ${ADMIN_TOKEN.slice(0, -1)}x` }
    })
    expect(sameLength.status).toBe(401)
    const project = await createProject(gateway)
    const withApiKey = await call(gateway.baseUrl, "GET", "/v1/admin/projects", {
      headers: { authorization: `Bearer ${project.api_key}` }
    })
    expect(withApiKey.status).toBe(401)
  })

  it("creates keys with each expiry preset and refuses others", async () => {
    const { project_id } = await createProject(gateway)
    for (const days of [7, 30, 90, 365]) {
      const before = Date.now()
      const reply = await adminCall("POST", `/projects/${project_id}/api-keys`, {
        name: `k${days}`,
        expires_in_days: days
      })
      expect(reply.status).toBe(201)
      expect(Object.keys(reply.body).sort()).toEqual(["api_key", "expires_at", "key_id", "prefix"])
      expect(reply.body.api_key.startsWith(reply.body.prefix)).toBe(true)
      const expires = Date.parse(reply.body.expires_at)
      expect(expires - before).toBeGreaterThanOrEqual(days * 86_400_000 - 1000)
      expect(expires - before).toBeLessThanOrEqual(days * 86_400_000 + 60_000)
    }
    const never = await adminCall("POST", `/projects/${project_id}/api-keys`, {})
    expect(never.status).toBe(201)
    expect(never.body.expires_at).toBeNull()
    expect((await adminCall("POST", `/projects/${project_id}/api-keys`, { expires_in_days: 8 })).status).toBe(400)
    expect((await adminCall("POST", "/projects/proj_nope/api-keys", {})).status).toBe(404)
  })

  it("lists keys without secrets or hashes", async () => {
    const { api_key, project_id } = await createProject(gateway)
    const reply = await adminCall("GET", `/projects/${project_id}/api-keys`)
    expect(reply.status).toBe(200)
    expect(reply.body.api_keys).toHaveLength(1)
    expect(reply.text).not.toContain(api_key)
    expect(Object.keys(reply.body.api_keys[0]).sort()).toEqual([
      "created_at",
      "expires_at",
      "key_id",
      "name",
      "prefix",
      "revoked_at"
    ])
    const stored = await gateway.sql<{ key_hash: string }>("SELECT key_hash FROM api_keys WHERE project_id = $1", [
      project_id
    ])
    expect(stored[0]?.key_hash).toMatch(/^[0-9a-f]{64}$/)
    expect(stored[0]?.key_hash).not.toContain(api_key)
  })

  it("a revoked key is refused at once, another key of the project still works", async () => {
    const { api_key, project_id } = await createProject(gateway)
    const second = await adminCall("POST", `/projects/${project_id}/api-keys`, { name: "second" })
    const user = asUser(gateway, api_key, "u", "w")
    expect((await user("GET", "/threads")).status).toBe(200)
    const [first] = (await adminCall("GET", `/projects/${project_id}/api-keys`)).body.api_keys
    const revoked = await adminCall("DELETE", `/projects/${project_id}/api-keys/${first.key_id}`)
    expect(revoked.status).toBe(204)
    const refused = await user("GET", "/threads")
    expect(refused.status).toBe(401)
    expect(refused.body.error).toBe("unauthorized")
    expect((await asUser(gateway, second.body.api_key, "u", "w")("GET", "/threads")).status).toBe(200)
    expect((await adminCall("DELETE", `/projects/${project_id}/api-keys/key_nope`)).status).toBe(404)
    const other = await createProject(gateway)
    expect((await adminCall("DELETE", `/projects/${other.project_id}/api-keys/${first.key_id}`)).status).toBe(404)
  })

  it("an expired key is refused", async () => {
    const { project_id } = await createProject(gateway)
    const created = await adminCall("POST", `/projects/${project_id}/api-keys`, { expires_in_days: 7 })
    const user = asUser(gateway, created.body.api_key, "u", "w")
    expect((await user("GET", "/threads")).status).toBe(200)
    await gateway.sql("UPDATE api_keys SET expires_at = now() - interval '1 second' WHERE id = $1", [
      created.body.key_id
    ])
    expect((await user("GET", "/threads")).status).toBe(401)
  })

  it("records each Svc-Sdk name/version per project with its last-seen time", async () => {
    const { api_key, project_id } = await createProject(gateway)
    const user = asUser(gateway, api_key, "u", "w")
    const reply = await user("POST", "/threads", {
      body: { last_message_at: NOW },
      headers: { "svc-sdk": "svc-client/0.2.1 my-app/1.4.0 broken-token" }
    })
    expect(reply.status).toBe(201)
    let clients: Array<{ name: string; version: string; last_seen_at: string }> = []
    for (let i = 0; i < 50 && clients.length < 2; i++) {
      clients = (await adminCall("GET", `/projects/${project_id}/sdk-clients`)).body.clients
      if (clients.length < 2) await new Promise((resolve) => setTimeout(resolve, 50))
    }
    expect(clients.map((c) => `${c.name}/${c.version}`).sort()).toEqual(["my-app/1.4.0", "svc-client/0.2.1"])
    expect(Date.now() - Date.parse(clients[0]?.last_seen_at ?? "")).toBeLessThan(60_000)
    const other = await createProject(gateway)
    expect((await adminCall("GET", `/projects/${other.project_id}/sdk-clients`)).body.clients).toEqual([])
  })

  it("sets the plan, and refuses an unknown plan or project", async () => {
    const project = await createProject(handle.current, "planned")
    const set = await adminCall("PUT", `/projects/${project.project_id}/plan`, { plan: "startup" })
    expect(set.status, set.text).toBe(200)
    expect(set.body).toMatchObject({ project_id: project.project_id, plan: "startup" })
    const listed = await adminCall("GET", "/projects")
    expect(listed.body.projects.find((p: { project_id: string }) => p.project_id === project.project_id).plan).toBe(
      "startup"
    )
    expectError(await adminCall("PUT", `/projects/${project.project_id}/plan`, { plan: "gold" }), 400, "plan")
    expectError(await adminCall("PUT", "/projects/proj_nope/plan", { plan: "pro" }), 404)
  })

  it("sets test user prefixes: 10 of 64 characters at most, duplicates dropped", async () => {
    const project = await createProject(handle.current, "testers")
    const path = `/projects/${project.project_id}/test-users`
    expect((await adminCall("GET", path)).body).toEqual({ prefixes: [] })
    const ten = Array.from({ length: 10 }, (_, i) => `t${i}-`)
    const saved = await adminCall("PUT", path, { prefixes: [...ten.slice(0, 9), "x".repeat(64)] })
    expect(saved.status, saved.text).toBe(200)
    expect(saved.body.prefixes).toEqual([...ten.slice(0, 9), "x".repeat(64)])
    expect((await adminCall("GET", path)).body.prefixes).toHaveLength(10)
    expectError(await adminCall("PUT", path, { prefixes: [...ten, "t10-"] }), 400, "prefixes")
    expectError(await adminCall("PUT", path, { prefixes: ["x".repeat(65)] }), 400, "prefixes")
    expectError(await adminCall("PUT", path, { prefixes: [""] }), 400, "prefixes")
    expectError(await adminCall("GET", "/projects/proj_nope/test-users"), 404)
    const deduplicated = await adminCall("PUT", path, { prefixes: ["qa-", "qa-", "bot-"] })
    expect(deduplicated.body).toEqual({ prefixes: ["qa-", "bot-"] })
  })
})

describe.each(stores)("admin API without ADMIN_TOKEN ($name)", (storeUnderTest) => {
  const handle = useGateway(storeUnderTest, { ADMIN_TOKEN: "" })

  it("is off: every admin route answers 404, whatever the bearer", async () => {
    for (const token of ["", ADMIN_TOKEN]) {
      const reply = await call(handle.current.baseUrl, "POST", "/v1/admin/projects", {
        body: { name: "x" },
        headers: token ? { authorization: `Bearer ${token}` } : {}
      })
      expect(reply.status).toBe(404)
      expect(reply.body.error).toBe("not_found")
    }
  })
})
