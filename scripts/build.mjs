// The build: app/main.ts (the gateway) and app/cli.ts (svc) bundled by esbuild
// into dist/, with the packages left as imports of node_modules, and the
// dashboard's page (dashboard/, scripts/build-dashboard.mjs) into dist/dashboard. `npm run
// build` runs it; bin/gateway.mjs and bin/svc.mjs run it first when dist/ is
// missing or older than the sources (so `npm install && npm start` stays two
// commands), and never where the sources are absent (the container image).
import { execFileSync } from "node:child_process"
import { createHash } from "node:crypto"
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
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

const IMAGE = path.join(dist, "pgdata.tar.gz")
const IMAGE_STAMP = path.join(dist, "pgdata.json")
/** What the embedded store's prepared image is made from: the migrations, the code that runs them, PGlite. */
const IMAGE_INPUTS = [
  "src/platform/db/migrations",
  "src/platform/db/Migrations.ts",
  "src/platform/db/Pglite.ts",
  "app/pgdata-image.ts"
]

const imageKey = () => {
  const hash = createHash("sha256")
  for (const input of IMAGE_INPUTS) {
    const full = path.join(root, input)
    const files = existsSync(full) && !full.endsWith(".ts") ? sourceFiles(full).sort() : [full]
    for (const file of files) hash.update(path.relative(root, file)).update("\0").update(readFileSync(file)).update("\0")
  }
  const pglite = path.join(path.dirname(createRequire(import.meta.url).resolve("@electric-sql/pglite")), "..")
  return hash.update(readFileSync(path.join(pglite, "package.json"))).digest("hex")
}

/** The previous build's image, if it was made from the same inputs (it takes seconds to make). */
const previousImage = (key) => {
  try {
    return JSON.parse(readFileSync(IMAGE_STAMP, "utf8")).key === key
      ? { image: readFileSync(IMAGE), stamp: readFileSync(IMAGE_STAMP) }
      : undefined
  } catch {
    return undefined
  }
}

/**
 * The embedded store's prepared image (src/platform/db/PgliteImage.ts), made
 * by the built dist/pgdata-image.js in a process of its own (its memory,
 * ~0.8 GB at its peak, is given back before the gateway starts).
 */
const buildImage = (key, previous) => {
  if (previous) {
    writeFileSync(IMAGE, previous.image)
    writeFileSync(IMAGE_STAMP, previous.stamp)
    return
  }
  execFileSync(process.execPath, [path.join(dist, "pgdata-image.js"), IMAGE, key], { stdio: "inherit" })
}

export const build = async () => {
  let esbuild
  try {
    esbuild = await import("esbuild")
  } catch {
    throw new Error("dist/ is missing or stale and esbuild is not installed: run `npm install`, then `npm run build`")
  }
  const sources = sourcesHash()
  const key = imageKey()
  const previous = previousImage(key)
  // Chunk names carry hashes: what an earlier build left would pile up.
  rmSync(dist, { recursive: true, force: true })
  await esbuild.build({
    absWorkingDir: root,
    // The topics job's worker thread is an entry of its own (src/topics/TopicCompute.ts starts it).
    entryPoints: {
      main: "app/main.ts",
      cli: "app/cli.ts",
      "topics-worker": "src/topics/ClusterWorker.ts",
      "pgdata-image": "app/pgdata-image.ts"
    },
    outdir: "dist",
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node20",
    // The dependencies are bundled too: Node resolving, reading and compiling ~1,400 files of node_modules one
    // by one was most of a start's CPU (docs/operations.md "Start-up and memory"). PGlite stays an import of
    // node_modules (it finds its WebAssembly beside its own files), and so does the AWS SDK (loaded only with
    // S3_BUCKET set).
    external: ["@electric-sql/pglite", "@aws-sdk/*"],
    // The CommonJS dependencies inside the bundle call require (node: modules, optional packages).
    banner: { js: 'import { createRequire as __svcRequire } from "node:module"; const require = __svcRequire(import.meta.url);' },
    sourcemap: "linked",
    // The maps carry positions only: the dependencies' sources would make them ~12 MB, which Node reads at start.
    sourcesContent: false,
    // Class and function names as written: stack traces and error names read as in the sources.
    keepNames: true,
    chunkNames: "chunks/[name]-[hash]",
    logLevel: "warning"
  })
  buildImage(key, previous)
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
