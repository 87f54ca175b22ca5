/**
 * The dashboard's page and assets (docs/dashboard.md "How it is served"),
 * read once at start from the built folder (dist/dashboard, about 0.5 MB with
 * its compressed copies) and served from memory:
 *
 * - `/dashboard` redirects to `/dashboard/`; every path under `/dashboard/`
 *   that is not an asset answers the page (the page routes itself);
 * - assets carry content hashes in their names: cached for a year,
 *   immutable; the page itself is never cached;
 * - the build wrote a Brotli and a gzip copy of each file: the response is
 *   the best one the client accepts, with no compression work per request;
 * - a strict Content-Security-Policy (scripts and styles from this origin
 *   only, no inline script, calls to this origin only) and framing refused.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs"
import * as path from "node:path"
import * as HttpLayerRouter from "@effect/platform/HttpLayerRouter"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

/** Where the built page is; undefined: the dashboard routes say it is not built. */
export class DashboardDir extends Context.Reference<DashboardDir>()("svc/DashboardDir", {
  defaultValue: (): string | undefined => undefined
}) {}

export const DASHBOARD_PATH = "/dashboard" as const
const ASSETS_PREFIX = "/dashboard/assets/"

export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'"
].join("; ")

const SECURITY_HEADERS = {
  "content-security-policy": CONTENT_SECURITY_POLICY,
  "x-frame-options": "DENY",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "cross-origin-opener-policy": "same-origin"
} as const

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".woff2": "font/woff2",
  ".map": "application/json"
}

interface StoredFile {
  readonly type: string
  readonly raw: Uint8Array
  readonly br: Uint8Array | undefined
  readonly gzip: Uint8Array | undefined
}

const readIfThere = (file: string) => (existsSync(file) ? new Uint8Array(readFileSync(file)) : undefined)

const load = (file: string): StoredFile => ({
  type: TYPES[path.extname(file)] ?? "application/octet-stream",
  raw: new Uint8Array(readFileSync(file)),
  br: readIfThere(`${file}.br`),
  gzip: readIfThere(`${file}.gz`)
})

/** The built files: the page and every asset by its URL path. */
export const loadBuild = (dir: string) => {
  const assets = new Map<string, StoredFile>()
  const assetsDir = path.join(dir, "assets")
  const walk = (folder: string) => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const full = path.join(folder, entry.name)
      if (entry.isDirectory()) walk(full)
      else if (!entry.name.endsWith(".br") && !entry.name.endsWith(".gz")) {
        assets.set(`${ASSETS_PREFIX}${path.relative(assetsDir, full).split(path.sep).join("/")}`, load(full))
      }
    }
  }
  if (existsSync(assetsDir)) walk(assetsDir)
  return { page: load(path.join(dir, "index.html")), assets }
}

/** The best stored encoding the client accepts (Brotli, then gzip, then none). */
const encoded = (file: StoredFile, accept: string) => {
  const accepts = (coding: string) =>
    accept.split(",").some((part) => {
      const [name, ...params] = part.trim().split(";")
      return name?.trim() === coding && !params.some((param) => /^\s*q=0(\.0*)?\s*$/.test(param))
    })
  if (file.br !== undefined && accepts("br")) return { body: file.br, encoding: "br" }
  if (file.gzip !== undefined && accepts("gzip")) return { body: file.gzip, encoding: "gzip" }
  return { body: file.raw, encoding: undefined }
}

const respond = (file: StoredFile, accept: string, cacheControl: string) => {
  const { body, encoding } = encoded(file, accept)
  return HttpServerResponse.uint8Array(body, {
    contentType: file.type,
    headers: {
      ...SECURITY_HEADERS,
      "cache-control": cacheControl,
      vary: "accept-encoding",
      ...(encoding === undefined ? {} : { "content-encoding": encoding })
    }
  })
}

const notBuilt = HttpServerResponse.text(
  "The dashboard is not built: run `npm run build` (npm start builds it when stale).",
  { status: 503, headers: { "cache-control": "no-store", "retry-after": "30" } }
)

export const DashboardRoutes = Layer.effectDiscard(
  Effect.gen(function* () {
    const router = yield* HttpLayerRouter.HttpRouter
    const dir = yield* DashboardDir
    const build = dir !== undefined && existsSync(path.join(dir, "index.html")) ? loadBuild(dir) : undefined
    const serve = Effect.map(HttpServerRequest.HttpServerRequest, (request) => {
      const pathname = new URL(request.url, "http://x").pathname
      // The page's URLs are under `/dashboard/`.
      if (pathname === DASHBOARD_PATH) return HttpServerResponse.redirect(`${DASHBOARD_PATH}/`, { status: 301 })
      if (build === undefined) return notBuilt
      const accept = request.headers["accept-encoding"] ?? ""
      if (pathname.startsWith(ASSETS_PREFIX)) {
        const asset = build.assets.get(pathname)
        return asset === undefined
          ? HttpServerResponse.text("no such asset", { status: 404, headers: { "cache-control": "no-store" } })
          : respond(asset, accept, "public, max-age=31536000, immutable")
      }
      return respond(build.page, accept, "no-cache")
    })
    // `/dashboard` matches `/dashboard/` too (the router ignores a trailing slash); `/dashboard/*` the rest.
    yield* router.add("GET", DASHBOARD_PATH, serve)
    yield* router.add("GET", `${DASHBOARD_PATH}/*`, serve)
  })
)
