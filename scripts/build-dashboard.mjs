// The dashboard page (dashboard/): bundled by esbuild into <outdir>, served by
// the gateway at /dashboard/. Entry and chunks carry content hashes under
// assets/; index.html loads them by absolute path with no inline script or
// style (the page is served with `script-src 'self'; style-src 'self'`), and
// every text file gets .gz and .br siblings for precompressed serving.
import { createHash } from "node:crypto"
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import * as path from "node:path"
import { brotliCompressSync, constants, gzipSync } from "node:zlib"

/** The page's sources, relative to the repository root (it also bundles what it imports from schema/). */
export const dashboardSourcesDir = "dashboard"
/** Where the page is served from: index.html refers to its assets under it. */
export const DASHBOARD_BASE = "/dashboard/"

const COMPRESSED = /\.(js|css|html|svg)$/

/**
 * Server code the page's dependencies import for one small function, taken
 * from dashboard/shims/ instead: @effect/platform's HttpApiEndpoint (used by
 * the schemas and the client) imports the server's router for `prefixPath`,
 * and with it a path matcher, a multipart parser and the server's request
 * (about 40 KB minified) the page would parse and run at every load. A name
 * the shim lacks fails the build (`import-is-undefined` is an error below).
 */
const SHIMS = [{ importer: /[\\/]@effect[\\/]platform[\\/]dist[\\/]esm[\\/]HttpApiEndpoint\.js$/, path: "./HttpRouter.js", shim: "HttpRouter.ts" }]

const shims = (root) => ({
  name: "dashboard-shims",
  setup(build) {
    for (const { importer, path: imported, shim } of SHIMS) {
      build.onResolve({ filter: new RegExp(`^${imported.replace(/[.]/g, "\\.")}$`) }, (args) =>
        importer.test(args.importer) ? { path: path.join(root, dashboardSourcesDir, "shims", shim) } : undefined
      )
    }
  }
})

/** Lazy chunks every start wants, fetched beside the entry (modulepreload): the views (dashboard/views.ts). */
const PRELOADED = [`${dashboardSourcesDir}/views/index.tsx`]

const filesUnder = (dir) =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name)
    return entry.isDirectory() ? filesUnder(full) : [full]
  })

const html = ({ scripts, styles, icon, preloads }) =>
  [
    "<!doctype html>",
    '<html lang="en">',
    "<head>",
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<meta name="color-scheme" content="light">',
    "<title>svc dashboard</title>",
    `<link rel="icon" href="${icon}" type="image/svg+xml">`,
    ...styles.map((href) => `<link rel="stylesheet" href="${href}">`),
    ...preloads.map((href) => `<link rel="modulepreload" href="${href}">`),
    ...scripts.map((src) => `<script type="module" src="${src}"></script>`),
    "</head>",
    "<body>",
    '<div id="app"><noscript>The dashboard needs JavaScript.</noscript></div>',
    "</body>",
    "</html>",
    ""
  ].join("\n")

/**
 * Builds the page into `outdir` (emptied first): returns the files index.html
 * loads at first (script, styles, static chunks, icon), paths relative to outdir.
 */
export async function buildDashboard({ root, outdir }) {
  const esbuild = await import("esbuild")
  const assets = path.join(outdir, "assets")
  rmSync(outdir, { recursive: true, force: true })
  mkdirSync(assets, { recursive: true })
  const result = await esbuild.build({
    absWorkingDir: root,
    // The prelude runs first (dashboard/prelude.ts says why), then the page.
    entryPoints: { prelude: path.join(dashboardSourcesDir, "prelude.ts"), main: path.join(dashboardSourcesDir, "main.tsx") },
    outdir: assets,
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "browser",
    target: "es2022",
    minify: true,
    jsx: "automatic",
    jsxImportSource: "preact",
    tsconfig: path.join(root, "tsconfig.dashboard.json"),
    define: { "process.env.NODE_ENV": '"production"' },
    entryNames: "[name]-[hash]",
    chunkNames: "chunk-[hash]",
    assetNames: "[name]-[hash]",
    publicPath: `${DASHBOARD_BASE}assets/`,
    legalComments: "none",
    metafile: true,
    plugins: [shims(root)],
    logOverride: { "import-is-undefined": "error" },
    logLevel: "warning"
  })
  const outputs = result.metafile.outputs
  const url = (file) => `${DASHBOARD_BASE}${path.relative(outdir, path.resolve(root, file)).split(path.sep).join("/")}`
  const entryOf = (name) => {
    const source = `${dashboardSourcesDir}/${name}`
    const found = Object.entries(outputs).find(([file, output]) => output.entryPoint === source && file.endsWith(".js"))
    if (!found) throw new Error(`the dashboard build wrote no ${source}`)
    return found
  }
  const [preludeFile] = entryOf("prelude.ts")
  const [entryFile, entry] = entryOf("main.tsx")
  const styles = entry.cssBundle ? [url(entry.cssBundle)] : []
  // The entry's static chunks, and the page's lazy chunk wanted at every start (the views, PRELOADED) with its
  // static chunks: fetched beside the entry. A chunk asked for later (the operating views) or a library loaded
  // on first use (uPlot) is not.
  const preloaded = new Set()
  const preload = (file) => {
    for (const each of outputs[file]?.imports ?? []) {
      const wanted =
        each.kind === "import-statement" ||
        (each.kind === "dynamic-import" && PRELOADED.includes(outputs[each.path]?.entryPoint))
      if (wanted && !preloaded.has(each.path)) {
        preloaded.add(each.path)
        preload(each.path)
      }
    }
  }
  preload(entryFile)
  const preloads = [...preloaded].map(url)

  // The icon, named by its content like the rest.
  const icon = readFileSync(path.join(root, dashboardSourcesDir, "favicon.svg"))
  const iconName = `favicon-${createHash("sha256").update(icon).digest("hex").slice(0, 8)}.svg`
  writeFileSync(path.join(assets, iconName), icon)
  const iconUrl = `${DASHBOARD_BASE}assets/${iconName}`

  const scripts = [url(preludeFile), url(entryFile)]
  writeFileSync(path.join(outdir, "index.html"), html({ scripts, styles, icon: iconUrl, preloads }))

  for (const file of filesUnder(outdir)) {
    if (!COMPRESSED.test(file)) continue
    const body = readFileSync(file)
    writeFileSync(`${file}.gz`, gzipSync(body, { level: constants.Z_BEST_COMPRESSION }))
    writeFileSync(
      `${file}.br`,
      brotliCompressSync(body, {
        params: {
          [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
          [constants.BROTLI_PARAM_SIZE_HINT]: body.length
        }
      })
    )
  }
  const toRelative = (href) => href.slice(DASHBOARD_BASE.length)
  return { initial: ["index.html", ...[...scripts, ...styles, ...preloads, iconUrl].map(toRelative)] }
}

// Run directly: node scripts/build-dashboard.mjs [outdir]
if (import.meta.url === `file://${process.argv[1]}`) {
  const root = path.resolve(import.meta.dirname, "..")
  const outdir = path.resolve(process.argv[2] ?? path.join(root, "dist", "dashboard"))
  const { initial } = await buildDashboard({ root, outdir })
  let gzip = 0
  for (const file of initial) gzip += readFileSync(path.join(outdir, `${file}.gz`)).length
  console.log(
    `dashboard built into ${outdir}: initial load ${(gzip / 1024).toFixed(1)} KB gzip (${initial.join(", ")})`
  )
}
