/**
 * npm run bench:sdk-size — the client library's entries as a browser app
 * ships them: bundled by esbuild for the browser, minified, gzipped (level
 * 9), with the largest contributors of each. Peers (`ai`, `@opentelemetry/*`)
 * are left out, as the original's figures leave them out; `./effect` counts
 * effect and @effect/platform in, since an Effect app bundles them anyway
 * (the figure is what the entry adds to an app that has none of them).
 * Beside each figure: the original 0.2.2 client's (docs/client-library.md "Size").
 */
import { gzipSync } from "node:zlib"
import * as esbuild from "esbuild"

const BUDGET_KB = 60
const AIM_KB = 30

const entries = [
  { name: ".", file: "sdk/index.ts", original: 12.4 },
  { name: "./effect", file: "sdk/effect.ts", original: undefined },
  { name: "./ai-sdk", file: "sdk/ai-sdk.ts", original: 1.6 },
  { name: "./telemetry", file: "sdk/telemetry.ts", original: 0.7 }
] as const

const kb = (bytes: number) => (bytes / 1024).toFixed(1)

const measure = async (file: string) => {
  const result = await esbuild.build({
    entryPoints: [file],
    bundle: true,
    minify: true,
    format: "esm",
    platform: "browser",
    target: "es2022",
    external: ["ai", "@opentelemetry/*"],
    write: false,
    metafile: true,
    logLevel: "silent"
  })
  const code = result.outputFiles[0]?.contents ?? new Uint8Array()
  const output = Object.values(result.metafile.outputs)[0]
  // Minified bytes per source module, grouped by package (or by our folder).
  const byOwner = new Map<string, number>()
  for (const [input, { bytesInOutput }] of Object.entries(output?.inputs ?? {})) {
    const owner = input.includes("node_modules/")
      ? (/node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input)?.[1] ?? input)
      : input.split("/").slice(0, -1).join("/") || input
    byOwner.set(owner, (byOwner.get(owner) ?? 0) + bytesInOutput)
  }
  const modules = Object.entries(output?.inputs ?? {})
    .map(([input, { bytesInOutput }]) => ({ input, bytes: bytesInOutput }))
    .sort((a, b) => b.bytes - a.bytes)
  return { minified: code.length, gzipped: gzipSync(code, { level: 9 }).length, byOwner, modules }
}

const rows = []
for (const entry of entries) {
  const size = await measure(entry.file)
  rows.push({ entry, size })
  console.log(
    `\n${entry.name}: ${kb(size.minified)} KB minified, ${kb(size.gzipped)} KB min+gzip` +
      (entry.original === undefined
        ? ""
        : ` (original ${entry.original} KB, ratio ${(size.gzipped / 1024 / entry.original).toFixed(2)})`)
  )
  const owners = [...size.byOwner].sort((a, b) => b[1] - a[1]).slice(0, 6)
  console.log(
    `  by package or folder (minified): ${owners.map(([owner, bytes]) => `${owner} ${kb(bytes)}`).join(", ")}`
  )
  console.log(
    `  largest modules: ${size.modules
      .slice(0, 6)
      .map((m) => `${m.input} ${kb(m.bytes)}`)
      .join(", ")}`
  )
}

const main = rows[0]
if (main !== undefined) {
  const gz = main.size.gzipped / 1024
  console.log(
    `\nmain entry: ${gz.toFixed(1)} KB min+gzip; budget ${BUDGET_KB} KB ${gz <= BUDGET_KB ? "held" : "EXCEEDED"}, aim ${AIM_KB} KB ${gz <= AIM_KB ? "met" : "missed"}`
  )
  if (gz > BUDGET_KB) process.exitCode = 1
}
console.log(
  JSON.stringify(
    rows.map(({ entry, size }) => ({
      entry: entry.name,
      minified: size.minified,
      gzipped: size.gzipped,
      original_kb: entry.original ?? null
    }))
  )
)
