// Builds the package: one ESM bundle per entry (schema/ compiled in, effect
// and @effect/platform left to the dependencies, shared code in chunks so a
// class is the same class in every entry), then the declarations with tsc.
// The build goes to a folder of its own, which then replaces sdk/dist in two
// renames: whoever reads sdk/dist meanwhile (examples/assistant-ui links the
// package, and its test builds the app while test/sdk/package.test.ts may be
// packing) finds one whole build or the other, never a half-written one.
import { execFileSync } from "node:child_process"
import { existsSync, renameSync, rmSync } from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import * as esbuild from "esbuild"

const sdk = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "sdk")
const dist = path.join(sdk, "dist")
// Beside dist/, at the same depth, so that the source maps' relative paths hold after the move.
const out = path.join(sdk, `.dist-build-${process.pid}`)
rmSync(out, { recursive: true, force: true })

await esbuild.build({
  entryPoints: ["index", "effect", "ai-sdk", "telemetry"].map((entry) => path.join(sdk, `${entry}.ts`)),
  outdir: out,
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "neutral",
  target: "es2022",
  // The package's dependencies and peers stay imports: one copy of each in the app (assistant-ui's stream type is
  // assistant-stream's own class, not a bundled twin).
  external: [
    "effect",
    "effect/*",
    "@effect/platform",
    "@effect/platform/*",
    "assistant-stream",
    "assistant-stream/*",
    "ai",
    "@opentelemetry/*"
  ],
  chunkNames: "chunks/[name]-[hash]",
  sourcemap: true,
  logLevel: "warning"
})

const tsc = path.join(sdk, "..", "node_modules", "typescript", "bin", "tsc")
try {
  execFileSync(
    process.execPath,
    [tsc, "-p", path.join(sdk, "tsconfig.build.json"), "--outDir", path.join(out, "types")],
    { stdio: "inherit" }
  )
  // Another build may put its dist/ in place between the two renames: then that one moves aside too.
  for (let attempt = 1; ; attempt++) {
    const old = path.join(sdk, `.dist-old-${process.pid}-${attempt}`)
    if (existsSync(dist)) renameSync(dist, old)
    try {
      renameSync(out, dist)
      rmSync(old, { recursive: true, force: true })
      break
    } catch (error) {
      rmSync(old, { recursive: true, force: true })
      if (attempt >= 5 || !["ENOTEMPTY", "EEXIST"].includes(error.code)) throw error
    }
  }
} finally {
  rmSync(out, { recursive: true, force: true })
}
console.error(`built ${path.relative(process.cwd(), dist)}`)
