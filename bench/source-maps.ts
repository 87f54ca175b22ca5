/**
 * `npm run bench:source-maps`: what Node's source maps would cost the
 * compiled gateway (bin/gateway.mjs leaves them off; NODE_OPTIONS=
 * --enable-source-maps turns them on).
 *
 * 1. With them on, Node parses a file's map at the first stack trace through
 *    that file and keeps it for the life of the process. Here each map of
 *    dist/ is parsed the same way (node:module's SourceMap, one lookup): the
 *    heap it keeps (after full collections) and the time it takes.
 * 2. Start to `/readyz` on PostgreSQL (a database made once, so later
 *    starts), with and without --enable-source-maps, alternating, and the
 *    resident memory after 200 requests: with them on, Node reads every
 *    map as it loads the bundle.
 *
 * BENCH_SOURCE_MAPS_RUNS (default 6) starts per variant; BENCH_DATABASE_URL
 * (default postgres://postgres@127.0.0.1:5432/postgres).
 */
import { execFileSync } from "node:child_process"
import { readdirSync, readFileSync } from "node:fs"
import { SourceMap, type SourceMapPayload } from "node:module"
import { join } from "node:path"
import { setFlagsFromString } from "node:v8"
import { runInNewContext } from "node:vm"
import { createDatabase } from "./lib/db.js"
import { memoryMb } from "./lib/gateway-process.js"
import { freePort, killAllNow, spawnChild } from "./lib/proc.js"
import { ROOT } from "./lib/settings.js"
import { median } from "./lib/stats.js"

const RUNS = Number(process.env.BENCH_SOURCE_MAPS_RUNS ?? 6)
const BASE_URL = process.env.BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres"

setFlagsFromString("--expose-gc")
const gc = runInNewContext("gc") as () => void
const liveHeap = () => {
  gc()
  gc()
  return process.memoryUsage().heapUsed
}
const mb = (bytes: number) => Math.round(bytes / 1e5) / 10

const parseMaps = () => {
  const dist = join(ROOT, "dist")
  const files = [
    ...readdirSync(dist).filter((f) => f.endsWith(".js.map")),
    ...readdirSync(join(dist, "chunks"))
      .filter((f) => f.endsWith(".js.map"))
      .map((f) => `chunks/${f}`)
  ]
  const kept: Array<SourceMap> = []
  const rows: Array<{ file: string; "map KB": number; "kept MB": number; "parse ms": number }> = []
  const start = liveHeap()
  for (const file of files) {
    const text = readFileSync(join(dist, file), "utf8")
    const before = liveHeap()
    const t0 = performance.now()
    const map = new SourceMap(JSON.parse(text) as SourceMapPayload)
    map.findEntry(0, 0)
    const ms = performance.now() - t0
    kept.push(map)
    rows.push({
      file,
      "map KB": Math.round(text.length / 1000),
      "kept MB": mb(liveHeap() - before),
      "parse ms": Math.round(ms)
    })
  }
  const total = { "kept MB": mb(liveHeap() - start), "parse ms": rows.reduce((sum, r) => sum + r["parse ms"], 0) }
  return { files: rows.length, rows: rows.filter((r) => r["map KB"] >= 50), total, kept: kept.length }
}

const start = async (url: string, sourceMaps: boolean) => {
  const port = await freePort()
  const started = performance.now()
  const child = spawnChild({
    name: sourceMaps ? "source maps on" : "source maps off",
    command: process.execPath,
    args: [...(sourceMaps ? ["--enable-source-maps"] : []), join(ROOT, "bin", "gateway.mjs")],
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? "", HOST: "127.0.0.1", PORT: String(port), DATABASE_URL: url }
  })
  try {
    for (;;) {
      const ok = await fetch(`http://127.0.0.1:${port}/readyz`).then(
        (response) => response.ok,
        () => false
      )
      if (ok) break
      if (performance.now() - started > 120_000) throw new Error(`not ready: ${child.stderrTail()}`)
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
    const ms = performance.now() - started
    for (let i = 0; i < 200; i++) await (await fetch(`http://127.0.0.1:${port}/healthz`)).arrayBuffer()
    return { ms, rssMb: memoryMb(child.pid, "VmRSS") }
  } finally {
    await child.stop(10_000)
  }
}

const main = async () => {
  execFileSync(process.execPath, [join(ROOT, "scripts", "build.mjs")], { stdio: "inherit" })
  const maps = parseMaps()
  console.log(`1. Parsing dist/'s ${maps.files} maps as Node does at a stack trace through each:`)
  console.table(maps.rows)
  console.log(`   all of them: ${maps.total["kept MB"]} MB of heap kept, ${maps.total["parse ms"]} ms`)

  const database = await createDatabase(BASE_URL)
  const figures = { off: [] as Array<{ ms: number; rssMb: number }>, on: [] as Array<{ ms: number; rssMb: number }> }
  try {
    await start(database.url, false) // migrates the new database: the runs below are later starts
    for (let run = 0; run < RUNS; run++) {
      figures.off.push(await start(database.url, false))
      figures.on.push(await start(database.url, true))
    }
  } finally {
    await database.drop()
  }
  const summary = (list: ReadonlyArray<{ ms: number; rssMb: number }>) => ({
    "start ms": Math.round(median(list.map((f) => f.ms))),
    "RSS MiB": median(list.map((f) => f.rssMb))
  })
  const off = summary(figures.off)
  const on = summary(figures.on)
  console.log(`2. Start to /readyz on PostgreSQL, ${RUNS} alternating runs each (medians):`)
  console.table({ "source maps off (default)": off, "--enable-source-maps": on })
  console.log(
    `   start ratio on/off ${(on["start ms"] / off["start ms"]).toFixed(2)}, RSS ratio ${(on["RSS MiB"] / off["RSS MiB"]).toFixed(2)}`
  )
  console.log(JSON.stringify({ maps: { total: maps.total, rows: maps.rows }, start: { runs: RUNS, off, on } }))
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error)
    killAllNow()
    process.exit(1)
  }
)
