/**
 * The OpenAPI document as the running gateway serves it (issue 10): a real
 * linter finds no error in it, its security schemes, identity headers,
 * frontend routes and statuses say what the gateway does, and a request made
 * from each operation's documented examples is never answered 400. The docs
 * page sends nothing to a third party.
 */
import { createConfig, lintFromString } from "@redocly/openapi-core"
import { beforeAll, describe, expect, it } from "vitest"
import { Limits } from "../../../schema/Limits.js"
import { ADMIN_TOKEN, asUser, call, createProject, type Reply, stores, useGateway } from "../../support/layers.js"

interface Parameter {
  readonly name: string
  readonly in: "path" | "query" | "header"
  readonly required: boolean
  readonly example?: unknown
  readonly schema?: Record<string, unknown>
}

interface Operation {
  readonly operationId: string
  readonly summary?: string
  readonly description?: string
  readonly tags: ReadonlyArray<string>
  readonly parameters: ReadonlyArray<Parameter>
  readonly security: ReadonlyArray<Record<string, ReadonlyArray<string>>>
  readonly requestBody?: { readonly content: Record<string, { readonly example?: unknown }> }
  readonly responses: Record<string, { readonly description: string; readonly headers?: Record<string, unknown> }>
}

interface Document {
  readonly openapi: string
  readonly servers?: ReadonlyArray<{ readonly url: string }>
  readonly paths: Record<string, Record<string, Operation>>
  readonly components: { readonly securitySchemes: Record<string, Record<string, unknown>> }
}

interface Listed {
  readonly path: string
  readonly method: string
  readonly op: Operation
}

const operations = (doc: Document): Array<Listed> =>
  Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, op]) => ({ path, method: method.toUpperCase(), op }))
  )

const isFrontend = (path: string) => path.startsWith("/p/{project_id}/")
const schemeOf = (op: Operation): string | undefined => Object.keys(op.security[0] ?? {})[0]
const headerNames = (op: Operation) => op.parameters.filter((p) => p.in === "header").map((p) => p.name.toLowerCase())

describe.each(stores)("OpenAPI document ($name)", (storeUnderTest) => {
  const gateway = useGateway(storeUnderTest)
  let doc: Document
  let projectId: string
  let credentials: Record<string, string>

  beforeAll(async () => {
    const reply = await call(gateway.current.baseUrl, "GET", "/v1/openapi.json")
    expect(reply.status, reply.text).toBe(200)
    doc = reply.body as Document
    const project = await createProject(gateway.current, "openapi")
    projectId = project.project_id
    const token = await asUser(gateway.current, project.api_key, "user_42", "workspace_7")("POST", "/auth/tokens")
    expect(token.status, token.text).toBe(200)
    credentials = { apiKey: project.api_key, frontendJwt: token.body.token as string, adminToken: ADMIN_TOKEN }
    const signIn = await call(gateway.current.baseUrl, "POST", "/v1/dashboard/session", {
      body: { token: ADMIN_TOKEN },
      headers: sameSite()
    })
    expect(signIn.status, signIn.text).toBe(204)
    sessionCookie = (signIn.headers.get("set-cookie") ?? "").split(";")[0] ?? ""
  })

  /** What the dashboard's page sends on a changing call (docs/dashboard.md "Sign-in and session"). */
  const sameSite = () => ({ origin: gateway.current.baseUrl, "x-svc-dashboard": "1" })
  let sessionCookie = ""

  /**
   * The request a reader of the document would send: path, query and header
   * parameters from their examples (or defaults), the body's example, and the
   * operation's scheme with a live credential of that kind. The frontend
   * routes' `project_id` is the project's own (the reader's base URL); every
   * other id is the documented example, of a thing that does not exist.
   */
  const exampleRequest = (listed: Listed, options: { readonly omitHeader?: string } = {}) => {
    const { op } = listed
    const pathValue = (parameter: Parameter) =>
      parameter.name === "project_id" && isFrontend(listed.path) ? projectId : parameter.example
    const path = listed.path.replace(/\{(\w+)\}/g, (_, name: string) => {
      const parameter = op.parameters.find((p) => p.in === "path" && p.name === name)
      if (parameter === undefined) throw new Error(`${listed.path}: no parameter ${name}`)
      const value = pathValue(parameter)
      expect(value, `${op.operationId}: example of ${name}`).toBeDefined()
      return encodeURIComponent(String(value))
    })
    const query = new URLSearchParams()
    for (const parameter of op.parameters.filter((p) => p.in === "query" && p.example !== undefined)) {
      query.set(parameter.name, String(parameter.example))
    }
    const headers: Record<string, string> = {}
    for (const parameter of op.parameters.filter((p) => p.in === "header" && p.example !== undefined)) {
      if (parameter.name.toLowerCase() !== options.omitHeader) headers[parameter.name] = String(parameter.example)
    }
    const scheme = schemeOf(op)
    const signIn = listed.method === "POST" && listed.path === "/v1/dashboard/session"
    if (scheme === "dashboardSession" || signIn) Object.assign(headers, sameSite())
    if (scheme === "dashboardSession") headers.cookie = sessionCookie
    else if (scheme !== undefined) headers.authorization = `Bearer ${credentials[scheme]}`
    // The sign-in's example token is a placeholder: a reader signs in with their own.
    if (signIn) return { path, headers, body: { token: ADMIN_TOKEN } }
    const media = op.requestBody?.content["application/json"]
    const search = query.size > 0 ? `?${query}` : ""
    return { path: `${path}${search}`, headers, ...(media === undefined ? {} : { body: media.example }) }
  }

  const send = (listed: Listed, options: { readonly omitHeader?: string } = {}): Promise<Reply> => {
    const request = exampleRequest(listed, options)
    return call(gateway.current.baseUrl, listed.method, request.path, {
      headers: request.headers,
      ...(request.body === undefined ? {} : { body: request.body })
    })
  }

  it("passes Redocly's recommended rules with no error", async () => {
    const config = await createConfig({ extends: ["recommended"] })
    const problems = await lintFromString({ source: JSON.stringify(doc), absoluteRef: "openapi.json", config })
    const describe = (p: (typeof problems)[number]) => `${p.ruleId}: ${p.message} at ${p.location[0]?.pointer ?? "?"}`
    const errors = problems.filter((p) => p.severity === "error").map(describe)
    const warnings = problems.filter((p) => p.severity === "warn").map(describe)
    console.log(`redocly recommended: ${errors.length} errors, ${warnings.length} warnings`, warnings.slice(0, 10))
    expect(errors).toEqual([])
    expect(warnings).toEqual([])
  })

  it("names a summary, a description and a server", () => {
    expect(doc.servers).toEqual([expect.objectContaining({ url: "/" })])
    for (const { path, method, op } of operations(doc)) {
      expect(op.summary, `${method} ${path}`).toMatch(/\S/)
      expect(op.description, `${method} ${path}`).toMatch(/\S/)
    }
  })

  it("has four named security schemes, and each operation the one the gateway takes", () => {
    const { dashboardSession, ...bearers } = doc.components.securitySchemes
    expect(Object.keys(bearers).sort()).toEqual(["adminToken", "apiKey", "frontendJwt"])
    for (const scheme of Object.values(bearers)) {
      expect(scheme).toMatchObject({ type: "http", scheme: "bearer" })
    }
    expect(dashboardSession).toMatchObject({ type: "apiKey", in: "cookie", name: "svc_session" })
    for (const { path, method, op } of operations(doc)) {
      const expected = path.startsWith("/v1/admin/")
        ? "adminToken"
        : path.includes("/auth/tokens/") || (path === "/v1/dashboard/session" && method === "POST")
          ? undefined
          : path.startsWith("/v1/dashboard/")
            ? "dashboardSession"
            : isFrontend(path)
              ? "frontendJwt"
              : "apiKey"
      expect(schemeOf(op), `${method} ${path}`).toBe(expected)
    }
  })

  it("lists the frontend routes under /p/{project_id}, and only the routes served there", async () => {
    const paths = Object.keys(doc.paths)
    expect(paths).toEqual(
      expect.arrayContaining(["/p/{project_id}/v1/threads", "/p/{project_id}/v1/auth/tokens/anonymous"])
    )
    // Backend only (admin, token minting, the project API) and frontend only (anonymous sessions).
    expect(paths.filter((path) => /^\/p\/\{project_id\}\/v1\/(admin|projects|auth\/tokens$)/.test(path))).toEqual([])
    expect(paths.filter((path) => path.startsWith("/v1/auth/tokens/"))).toEqual([])
    for (const { path, op } of operations(doc).filter((listed) => isFrontend(listed.path))) {
      expect(op.parameters.find((p) => p.name === "project_id")).toMatchObject({ in: "path", required: true })
      expect(Object.keys(op.responses), path).toContain("403")
    }
    // The gateway agrees: every backend path of the document answers 404 on the frontend URL when it is not listed there.
    for (const listed of operations(doc).filter(({ path }) => path.startsWith("/v1/admin/projects"))) {
      const reply = await call(gateway.current.baseUrl, listed.method, `/p/${projectId}${listed.path}`)
      expect(reply.status, `${listed.method} ${listed.path}`).toBe(404)
    }
  })

  it("lists the identity headers on every route that reads them, required where the gateway requires them", async () => {
    for (const listed of operations(doc)) {
      const { path, method, op } = listed
      const names = headerNames(op)
      const scheme = schemeOf(op)
      if (scheme === "apiKey" || scheme === "frontendJwt") expect(names, `${method} ${path}`).toContain("svc-sdk")
      else expect(names, `${method} ${path}`).not.toContain("svc-sdk")
      // The project API and trace exports act for the whole project: no user or workspace.
      const acting = scheme === "apiKey" && !path.startsWith("/v1/projects/") && path !== "/v1/traces"
      for (const header of ["svc-user-id", "svc-workspace-id"]) {
        const parameter = op.parameters.find((p) => p.in === "header" && p.name.toLowerCase() === header)
        expect(parameter?.required, `${method} ${path} ${header}`).toBe(acting ? true : undefined)
        if (!acting) continue
        // Documented as required: the gateway refuses the request without it, naming it.
        const reply = await send(listed, { omitHeader: header })
        expect(reply.status, `${method} ${path} without ${header}: ${reply.text}`).toBe(400)
        expect(reply.body.issues.map((issue: { path: string }) => issue.path.toLowerCase())).toContain(header)
      }
    }
  })

  it("types every limit as an integer with the bounds of Limits", () => {
    const maxima: Record<string, number> = {
      "/v1/threads": Limits.thread.listMax,
      "/v1/threads/{thread_id}/messages": Limits.message.listMax,
      "/v1/projects/runs": Limits.run.listMax,
      "/v1/projects/scores": Limits.score.listMax
    }
    const limits = operations(doc).flatMap(({ path, op }) =>
      op.parameters.filter((p) => p.name === "limit").map((p) => ({ path, schema: p.schema }))
    )
    expect(limits.length).toBeGreaterThanOrEqual(Object.keys(maxima).length)
    for (const { path, schema } of limits) expect(schema, path).toMatchObject({ type: "integer", minimum: 1 })
    for (const [path, maximum] of Object.entries(maxima)) {
      const found = limits.find((limit) => limit.path === path)
      expect(found?.schema, path).toMatchObject({ type: "integer", minimum: 1, maximum })
    }
  })

  it("documents each status the gateway middleware answers: 415 everywhere, rate_limited 429 and 503 with Retry-After", async () => {
    for (const { path, method, op } of operations(doc)) {
      expect(Object.keys(op.responses), `${method} ${path}`).toEqual(
        expect.arrayContaining(["400", "413", "415", "500", "503"])
      )
      expect(op.responses["503"]?.headers?.["Retry-After"], `${method} ${path}`).toBeDefined()
      const tooMany = op.responses["429"]
      if (tooMany !== undefined) {
        const rateLimited = JSON.stringify(tooMany).includes("RateLimited")
        expect(tooMany.headers?.["Retry-After"] !== undefined, `${method} ${path}`).toBe(rateLimited)
      }
    }
    // And the gateway does answer 415 for a body that is not JSON.
    const threads = operations(doc).find(({ path, method }) => path === "/v1/threads" && method === "POST")
    if (threads === undefined) throw new Error("no POST /v1/threads")
    const request = exampleRequest(threads)
    const reply = await call(gateway.current.baseUrl, "POST", request.path, {
      headers: { ...request.headers, "content-type": "text/plain" },
      raw: JSON.stringify(request.body)
    })
    expect(reply.status, reply.text).toBe(415)
  })

  /**
   * Accepted: a success; 404 not_found for an id of the examples, which name
   * things that do not exist (never for the route itself); 401
   * invalid_refresh_token where the body's example is a refresh token, which
   * is not a live one. Never 400: the documented example is valid.
   */
  it("answers every operation's documented example without a 400", async () => {
    const statuses: Record<string, number> = {}
    // Deletions last, so the other examples run against the same state; the dashboard's sign-out after them all.
    const rank = ({ method, path }: Listed) => (method === "DELETE" ? (path === "/v1/dashboard/session" ? 2 : 1) : 0)
    const ordered = operations(doc).sort((a, b) => rank(a) - rank(b))
    expect(ordered.length).toBeGreaterThan(50)
    for (const listed of ordered) {
      const reply = await send(listed)
      const label = `${listed.method} ${listed.path} -> ${reply.status} ${reply.text.slice(0, 160)}`
      statuses[reply.status] = (statuses[reply.status] ?? 0) + 1
      const documented = Object.keys(listed.op.responses)
      expect(documented, label).toContain(String(reply.status))
      if (reply.status < 300) continue
      if (reply.status === 404) {
        expect(reply.body.error, label).toBe("not_found")
        expect(reply.body.message, label).not.toMatch(/no such route/)
        continue
      }
      const refreshBody = JSON.stringify(listed.op.requestBody?.content["application/json"]?.example ?? {})
      expect([reply.status, refreshBody.includes("refresh_token")], label).toEqual([401, true])
      expect(reply.body.error, label).toBe("invalid_refresh_token")
    }
    console.log(`documented examples: ${ordered.length} operations, statuses ${JSON.stringify(statuses)}`)
  })

  it("serves the docs page with the bundled Scalar and nothing sent to a third party", async () => {
    const reply = await call(gateway.current.baseUrl, "GET", "/docs")
    expect(reply.status).toBe(200)
    expect(reply.headers.get("content-type")).toMatch(/^text\/html/)
    // The script is inline: no <script src> to a CDN.
    expect(reply.text).not.toMatch(/<script[^>]+src=/)
    const configured = /dataset\.configuration = JSON\.stringify\((\{.*?\})\)/.exec(reply.text)?.[1]
    expect(configured).toBeDefined()
    const config = JSON.parse(configured ?? "{}")
    expect(config).toMatchObject({
      showToolbar: "never",
      hideClientButton: true,
      telemetry: false,
      withDefaultFonts: false
    })
    expect(config).not.toHaveProperty("proxyUrl")
    // The page's document is the served one, whose relative server is this gateway.
    expect(reply.text).toContain('"servers":[{"url":"/"')
  })
})
