/**
 * The bench's settings (environment knobs, see bench/README.md), paths and
 * log. Env: BENCH_DURATION (s, 10), BENCH_CONNECTIONS (32), BENCH_ONLY (comma
 * list of WORKLOADS), BENCH_WARMUP (s, 4; then 2 s rounds until stable, at
 * most BENCH_WARMUP_MAX, 16), BENCH_PROFILE (1: --cpu-prof the gateway),
 * BENCH_LOG_LEVEL (both: each workload's gateway at the default logging, LOG_LEVEL unset (Info),
 * then at LOG_LEVEL=Warn; default or warn: only that one),
 * BENCH_PG_URL (postgres://postgres@127.0.0.1:5432/postgres), BENCH_POOL_MAX
 * (10), BENCH_SEED_THREADS (1000), BENCH_SEED_MESSAGES (10 per seeded
 * thread), BENCH_SEED_RUNS (5000, in the project list_runs reads).
 */
import { availableParallelism } from "node:os"
import { join, resolve } from "node:path"
import { fileURLToPath } from "node:url"

export const ROOT = resolve(fileURLToPath(new URL("../..", import.meta.url)))
export const RESULTS = join(ROOT, "bench/results")
export const PROFILE_DIR = join(RESULTS, "profile")

/** This run: its results file name and its scratch directory (removed at the end). */
export const runId = new Date().toISOString().replace(/:/g, "-")
export const workDir = join(RESULTS, `work-${runId}`)

/** A non-negative whole number from the environment; unset or empty: `fallback`. */
export const intEnv = (name: string, fallback: number): number => {
  const raw = process.env[name]
  if (raw === undefined || raw === "") return fallback
  const value = Number(raw)
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name} must be a non-negative integer, got ${raw}`)
  return value
}

/** Every workload, in the order they run and are reported. */
export const WORKLOADS = [
  "health",
  "create_thread",
  "get_thread",
  "append_message",
  "append_one_thread",
  "append_64_threads",
  "append_one_conn",
  "list_messages",
  "run_report",
  "list_runs"
] as const
export type WorkloadName = (typeof WORKLOADS)[number]
const isWorkload = (name: string): name is WorkloadName => (WORKLOADS as ReadonlyArray<string>).includes(name)

/** How a gateway under test logs: `default` is LOG_LEVEL unset (Info, one access line a request), as users run it. */
export type GatewayLogLevel = "default" | "Warn"

/** BENCH_LOG_LEVEL: both (default, then Warn), default or warn. */
const gatewayLogLevelsOf = (raw: string | undefined): ReadonlyArray<GatewayLogLevel> => {
  if (raw === undefined || raw === "" || raw === "both") return ["default", "Warn"]
  if (raw === "default") return ["default"]
  if (raw === "warn") return ["Warn"]
  throw new Error(`BENCH_LOG_LEVEL must be both, default or warn, got ${raw}`)
}

export const settings = (() => {
  const only = (process.env.BENCH_ONLY ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "")
  for (const name of only) {
    if (name === "logging") {
      throw new Error(
        "BENCH_ONLY: the logging workload is now the default and Warn columns of every workload (BENCH_LOG_LEVEL=both)"
      )
    }
    if (!isWorkload(name)) throw new Error(`BENCH_ONLY: unknown workload ${name}; known: ${WORKLOADS.join(", ")}`)
  }
  const connections = Math.max(1, intEnv("BENCH_CONNECTIONS", 32))
  return {
    durationS: Math.max(1, intEnv("BENCH_DURATION", 10)),
    /** Warm-up: at least this long, then 2 s rounds until two agree within 10 %, at most warmupMaxS. */
    warmupS: intEnv("BENCH_WARMUP", 4),
    warmupMaxS: intEnv("BENCH_WARMUP_MAX", 16),
    connections,
    only: only.length === 0 ? [...WORKLOADS] : only.filter(isWorkload),
    profile: process.env.BENCH_PROFILE === "1" || process.env.BENCH_PROFILE === "true",
    /** Each workload's gateway is measured once per level, in this order, against the same baseline runs. */
    gatewayLogLevels: gatewayLogLevelsOf(process.env.BENCH_LOG_LEVEL),
    pgUrl: process.env.BENCH_PG_URL ?? "postgres://postgres@127.0.0.1:5432/postgres",
    poolMax: Math.max(1, intEnv("BENCH_POOL_MAX", 10)),
    seedThreads: intEnv("BENCH_SEED_THREADS", 1000),
    seedMessagesPerThread: intEnv("BENCH_SEED_MESSAGES", 10),
    /** Runs in the project list_runs reads (a project of its own). */
    seedRuns: intEnv("BENCH_SEED_RUNS", 5000),
    listThreadMessages: 250,
    /** get_thread: round-robin over this many threads of one workspace. */
    getThreads: 16,
    /** append_64_threads: round-robin over this many threads. */
    spreadThreads: 64,
    /** pgbench -j: one thread per core, at most one per client. */
    pgbenchThreads: Math.min(availableParallelism(), connections)
  } as const
})()
export type Settings = typeof settings

export const log = (message: string) => process.stderr.write(`[bench] ${message}\n`)
