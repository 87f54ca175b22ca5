// Builds the package: one ESM bundle per entry (schema/ compiled in, effect
// and @effect/platform left to the dependencies, shared code in chunks so a
// class is the same class in every entry), then the declarations with tsc.
import { execFileSync } from "node:child_process"
import { rmSync } from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import * as esbuild from "esbuild"

const sdk = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "sdk")
const dist = path.join(sdk, "dist")
rmSync(dist, { recursive: true, force: true })

await esbuild.build({
  entryPoints: ["index", "effect", "ai-sdk", "telemetry"].map((entry) => path.join(sdk, `${entry}.ts`)),
  outdir: dist,
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
execFileSync(process.execPath, [tsc, "-p", path.join(sdk, "tsconfig.build.json")], { stdio: "inherit" })
console.error(`built ${path.relative(process.cwd(), dist)}`)
