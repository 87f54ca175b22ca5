// The build: app/main.ts (the gateway) and app/cli.ts (svc) bundled by esbuild
// into dist/, with the packages left as imports of node_modules, and the
// dashboard's page (dashboard/, scripts/build-dashboard.mjs) into dist/dashboard. `npm run
// build` runs it; bin/gateway.mjs and bin/svc.mjs run it first when dist/ is
// missing or older than the sources (so `npm install && npm start` stays two
// commands), and never where the sources are absent (the container image).
import { createHash } from "node:crypto"
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import * as path from "node:path"

export const root = path.resolve(import.meta.dirname, "..")
export const dist = path.join(root, "dist")
const SOURCE_DIRS = ["schema", "src", "protocols", "app", "dashboard"]
const SOURCE_TYPES = [".ts", ".tsx", ".css", ".svg", ".html"]
const INFO = path.join(dist, "build-info.json")

const sourceFiles = (dir) =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name)
    if (entry.isDirectory()) return sourceFiles(full)
    return SOURCE_TYPES.some((type) => entry.name.endsWith(type)) ? [full] : []
  })

/** A hash of every source file's path and content (about 10 ms): a moved, deleted or edited file changes it. */
const sourcesHash = () => {
  const hash = createHash("sha256")
  for (const dir of SOURCE_DIRS) {
    for (const file of sourceFiles(path.join(root, dir)).sort()) {
      hash.update(path.relative(root, file)).update("\0").update(readFileSync(file)).update("\0")
    }
  }
  return hash.digest("hex")
}

/** Whether the sources are here to build from (they are not in the container image, which ships dist/ only). */
export const hasSources = () => SOURCE_DIRS.every((dir) => existsSync(path.join(root, dir)))

/** dist/ is missing, or was built from other sources. */
export const isStale = () => {
  if (!existsSync(INFO)) return true
  try {
    return JSON.parse(readFileSync(INFO, "utf8")).sources !== sourcesHash()
  } catch {
    return true
  }
}

export const build = async () => {
  let esbuild
  try {
    esbuild = await import("esbuild")
  } catch {
    throw new Error("dist/ is missing or stale and esbuild is not installed: run `npm install`, then `npm run build`")
  }
  const sources = sourcesHash()
  // Chunk names carry hashes: what an earlier build left would pile up.
  rmSync(dist, { recursive: true, force: true })
  await esbuild.build({
    absWorkingDir: root,
    // The topics job's worker thread is an entry of its own (src/topics/TopicCompute.ts starts it).
    entryPoints: { main: "app/main.ts", cli: "app/cli.ts", "topics-worker": "src/topics/ClusterWorker.ts" },
    outdir: "dist",
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node20",
    // Dependencies stay imports of node_modules (PGlite finds its WebAssembly beside its own files).
    packages: "external",
    sourcemap: "linked",
    // Class and function names as written: stack traces and error names read as in the sources.
    keepNames: true,
    chunkNames: "chunks/[name]-[hash]",
    logLevel: "warning"
  })
  const { buildDashboard } = await import("./build-dashboard.mjs")
  await buildDashboard({ root, outdir: path.join(dist, "dashboard") })
  writeFileSync(INFO, `${JSON.stringify({ sources, built_at: new Date().toISOString() })}\n`)
}

/** Builds when needed; a no-op where there are no sources (dist/ is what there is). */
export const ensureBuilt = async () => {
  if (hasSources() && isStale()) await build()
}

if (process.argv[1] === import.meta.filename) {
  const started = performance.now()
  await build()
  process.stdout.write(`built dist/ in ${Math.round(performance.now() - started)} ms\n`)
}
