/**
 * `npm run bench:startup`: start time and memory of the compiled gateway
 * (`npm start`: node bin/gateway.mjs over dist/) beside the same gateway run
 * through tsx (`npm run dev` without watch: the old `npm start`), on the
 * embedded store and on PostgreSQL, alternating A B A B in one run; prints
 * medians and the ratios compiled/tsx.
 *
 * - first start: on an empty store (a new DATA_DIR; a new PostgreSQL
 *   database), each run its own;
 * - later start: on the store a warm-up run made;
 * - start: from spawn to `/readyz` answering 200;
 * - peak: the highest resident memory of the whole process tree (tsx runs
 *   the gateway in a child of its own), sampled every 5 ms from spawn until
 *   200 requests after ready; rss: the same after those requests.
 *
 * BENCH_STARTUP_RUNS (default 5) runs per variant and store;
 * BENCH_DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres)
 * is where a database of its own is created and dropped.
 */
import { execFileSync } from "node:child_process"
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { createDatabase } from "./lib/db.js"
import { freePort, killAllNow, spawnChild } from "./lib/proc.js"
import { ROOT } from "./lib/settings.js"

const RUNS = Number(process.env.BENCH_STARTUP_RUNS ?? 5)
const BASE_URL = process.env.BENCH_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres"

const VARIANTS = {
  compiled: [join(ROOT, "bin", "gateway.mjs")],
  tsx: [join(ROOT, "node_modules", "tsx", "dist", "cli.mjs"), "app/main.ts"]
} as const
type Variant = keyof typeof VARIANTS

/** RSS in bytes of `pid` and every descendant (Linux /proc). */
const treeRss = (pid: number): number => {
  const children = new Map<number, Array<number>>()
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8")
      const parent = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1])
      children.set(parent, [...(children.get(parent) ?? []), Number(entry)])
    } catch {
      // gone
    }
  }
  const rssOf = (one: number) => {
    try {
      const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${one}/status`, "utf8"))
      return match?.[1] ? Number(match[1]) * 1024 : 0
    } catch {
      return 0
    }
  }
  const walk = (one: number): number => rssOf(one) + (children.get(one) ?? []).reduce((sum, c) => sum + walk(c), 0)
  return walk(pid)
}

const once = async (variant: Variant, env: Record<string, string>) => {
  const port = await freePort()
  const started = performance.now()
  const child = spawnChild({
    name: `${variant}`,
    command: process.execPath,
    args: VARIANTS[variant],
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? "", HOST: "127.0.0.1", PORT: String(port), LOG_LEVEL: "warn", ...env }
  })
  let peak = 0
  const sampler = setInterval(() => {
    peak = Math.max(peak, treeRss(child.pid))
  }, 5)
  try {
    // At warn, the "Listening" line is not logged: readiness is polled instead.
    let ready = false
    while (!ready) {
      ready = await fetch(`http://127.0.0.1:${port}/readyz`).then(
        (response) => response.ok,
        () => false
      )
      if (!ready) await new Promise((resolve) => setTimeout(resolve, 10))
      if (performance.now() - started > 120_000) throw new Error(`${variant}: not ready: ${child.stderrTail()}`)
    }
    const startMs = performance.now() - started
    for (let i = 0; i < 200; i++) await (await fetch(`http://127.0.0.1:${port}/v1/openapi.json`)).arrayBuffer()
    const rss = treeRss(child.pid)
    return { startMs, rss, peak: Math.max(peak, rss) }
  } finally {
    clearInterval(sampler)
    await child.stop(10_000)
  }
}

const median = (values: ReadonlyArray<number>) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN
}

type Figures = Record<Variant, Array<{ startMs: number; rss: number; peak: number }>>

const row = (store: string, figures: Figures) => {
  const pick = (variant: Variant, key: "startMs" | "rss" | "peak") => median(figures[variant].map((f) => f[key]))
  const mib = (bytes: number) => Math.round(bytes / 2 ** 20)
  return {
    store,
    "compiled start ms": Math.round(pick("compiled", "startMs")),
    "tsx start ms": Math.round(pick("tsx", "startMs")),
    "start ratio": Number((pick("compiled", "startMs") / pick("tsx", "startMs")).toFixed(2)),
    "compiled peak MiB": mib(pick("compiled", "peak")),
    "tsx peak MiB": mib(pick("tsx", "peak")),
    "compiled RSS MiB": mib(pick("compiled", "rss")),
    "tsx RSS MiB": mib(pick("tsx", "rss")),
    "RSS ratio": Number((pick("compiled", "rss") / pick("tsx", "rss")).toFixed(2))
  }
}

const main = async () => {
  execFileSync(process.execPath, [join(ROOT, "scripts", "build.mjs")], { stdio: "inherit" })
  const scratch = mkdtempSync(join(tmpdir(), "svc-bench-startup-"))
  const databases: Array<{ drop: () => Promise<void> }> = []
  const fresh = {
    embedded: async () => ({ DATA_DIR: mkdtempSync(join(scratch, "data-")) }),
    postgres: async () => {
      const database = await createDatabase(BASE_URL)
      databases.push(database)
      return { DATABASE_URL: database.url }
    }
  }
  const rows: Array<Record<string, string | number>> = []
  try {
    for (const [store, make] of Object.entries(fresh)) {
      const first: Figures = { compiled: [], tsx: [] }
      const later: Figures = { compiled: [], tsx: [] }
      const env = await make()
      await once("compiled", env) // warm-up: the later starts' store, the page cache
      for (let run = 0; run < RUNS; run++) {
        for (const variant of ["compiled", "tsx"] as const) {
          first[variant].push(await once(variant, await make()))
          later[variant].push(await once(variant, env))
        }
      }
      rows.push(row(`${store}, first start`, first), row(`${store}, later start`, later))
    }
  } finally {
    for (const database of databases) await database.drop()
    rmSync(scratch, { recursive: true, force: true })
  }
  console.table(rows)
  console.log(JSON.stringify({ runs: RUNS, rows }))
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error)
    killAllNow()
    process.exit(1)
  }
)
