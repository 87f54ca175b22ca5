/**
 * How the dashboard's page is served (docs/dashboard.md "How it is served"):
 * the built files of dist/dashboard over real HTTP, their caching,
 * compression and security headers, and the routes the page answers.
 */
import { request } from "node:http"
import { gunzipSync } from "node:zlib"
import { beforeAll, describe, expect, it } from "vitest"
import { call, createProject, type Gateway, stores, useGateway } from "../../support/layers.js"

/** A GET with the raw body (fetch would decode it) and the headers as sent. */
const rawGet = (url: string, headers: Record<string, string> = {}) =>
  new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }>(
    (resolve, reject) => {
      const req = request(url, { headers }, (response) => {
        const chunks: Array<Buffer> = []
        response.on("data", (chunk: Buffer) => chunks.push(chunk))
        response.on("end", () =>
          resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) })
        )
      })
      req.on("error", reject)
      req.end()
    }
  )

describe.each(stores.slice(0, 1))("dashboard page ($name)", (storeUnderTest) => {
  const handle = useGateway(storeUnderTest)
  let gateway: Gateway
  let page: string
  let assets: Array<string>

  beforeAll(async () => {
    gateway = handle.current
    const reply = await call(gateway.baseUrl, "GET", "/dashboard/")
    page = reply.text
    assets = [...page.matchAll(/(?:src|href)="(\/dashboard\/assets\/[^"]+)"/g)].map((match) => match[1] ?? "")
  })

  it("redirects /dashboard to /dashboard/", async () => {
    const reply = await rawGet(`${gateway.baseUrl}/dashboard`)
    expect(reply.status).toBe(301)
    expect(reply.headers.location).toBe("/dashboard/")
  })

  it("answers the page, never cached, with a strict CSP and framing refused, on every view path", async () => {
    for (const path of [
      "/dashboard/",
      "/dashboard/projects/proj_x/threads",
      "/dashboard/projects/proj_x/traces/abc?span=1"
    ]) {
      const reply = await call(gateway.baseUrl, "GET", path)
      expect(reply.status, path).toBe(200)
      expect(reply.headers.get("content-type")).toMatch(/^text\/html/)
      expect(reply.headers.get("cache-control")).toBe("no-cache")
      const csp = reply.headers.get("content-security-policy") ?? ""
      expect(csp).toContain("default-src 'none'")
      expect(csp).toContain("script-src 'self'")
      expect(csp).not.toContain("unsafe-inline")
      expect(csp).toContain("frame-ancestors 'none'")
      expect(reply.headers.get("x-frame-options")).toBe("DENY")
      expect(reply.headers.get("x-content-type-options")).toBe("nosniff")
      expect(reply.text).toBe(page)
    }
    // No inline script or style: every script has a src, and there is no style element.
    for (const script of page.match(/<script[^>]*>/g) ?? []) expect(script).toMatch(/\ssrc="/)
    expect(page).not.toMatch(/<style/)
    expect(page).not.toMatch(/\sstyle="/)
  })

  it("serves hashed assets for a year, immutable, precompressed as the client accepts", async () => {
    expect(assets.some((asset) => asset.endsWith(".js"))).toBe(true)
    expect(assets.some((asset) => asset.endsWith(".css"))).toBe(true)
    for (const asset of assets) {
      expect(asset).toMatch(/-[A-Za-z0-9]{8}\.(js|css|svg)$/)
      const plain = await rawGet(`${gateway.baseUrl}${asset}`)
      expect(plain.status, asset).toBe(200)
      expect(plain.headers["cache-control"]).toBe("public, max-age=31536000, immutable")
      expect(plain.headers["content-encoding"]).toBeUndefined()
      expect(plain.headers.vary).toBe("accept-encoding")
      const br = await rawGet(`${gateway.baseUrl}${asset}`, { "accept-encoding": "gzip, deflate, br" })
      expect(br.headers["content-encoding"]).toBe("br")
      expect(br.body.length).toBeLessThan(plain.body.length)
      const gzip = await rawGet(`${gateway.baseUrl}${asset}`, { "accept-encoding": "gzip" })
      expect(gzip.headers["content-encoding"]).toBe("gzip")
      expect(gunzipSync(gzip.body).equals(plain.body)).toBe(true)
      const refused = await rawGet(`${gateway.baseUrl}${asset}`, { "accept-encoding": "br;q=0, gzip;q=0" })
      expect(refused.headers["content-encoding"]).toBeUndefined()
    }
  })

  it("answers 404 for an asset that is not there", async () => {
    const reply = await call(gateway.baseUrl, "GET", "/dashboard/assets/main-XXXXXXXX.js")
    expect(reply.status).toBe(404)
  })

  it("is not served on a project's frontend base URL", async () => {
    const project = await createProject(gateway)
    const reply = await call(gateway.baseUrl, "GET", `/p/${project.project_id}/dashboard/`)
    expect(reply.status).toBe(404)
  })
})
