/**
 * Top self-time functions of a V8 .cpuprofile (node --cpu-prof), aggregated by
 * function name + script url, plus the same by package.
 *
 *   npx tsx bench/profile-summary.ts <file.cpuprofile | directory> [--top 25] [--from-us N --to-us N]
 *
 * A directory means its newest .cpuprofile. --from-us/--to-us keep only the
 * samples in that window of the monotonic clock (process.hrtime, microseconds:
 * the clock V8 stamps profiles with), so startup and idle tails can be left out.
 */
import { readdirSync, readFileSync, statSync } from "node:fs"
import { join, resolve } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"

interface CallFrame {
  readonly functionName: string
  readonly url: string
  readonly lineNumber: number
}

interface ProfileNode {
  readonly id: number
  readonly callFrame: CallFrame
}

interface CpuProfile {
  readonly nodes: ReadonlyArray<ProfileNode>
  readonly startTime: number
  readonly endTime: number
  readonly samples: ReadonlyArray<number>
  readonly timeDeltas: ReadonlyArray<number>
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null

const numberArray = (value: unknown): ReadonlyArray<number> | undefined =>
  Array.isArray(value) && value.every((n) => typeof n === "number") ? (value as ReadonlyArray<number>) : undefined

const parseProfile = (text: string): CpuProfile => {
  const raw: unknown = JSON.parse(text)
  if (!isRecord(raw) || !Array.isArray(raw.nodes)) throw new Error("not a .cpuprofile: no nodes")
  const samples = numberArray(raw.samples)
  const timeDeltas = numberArray(raw.timeDeltas)
  if (samples === undefined || timeDeltas === undefined || typeof raw.startTime !== "number") {
    throw new Error("not a .cpuprofile: no samples / timeDeltas / startTime")
  }
  const nodes: Array<ProfileNode> = []
  for (const node of raw.nodes as ReadonlyArray<unknown>) {
    if (!isRecord(node) || typeof node.id !== "number" || !isRecord(node.callFrame)) continue
    const frame = node.callFrame
    nodes.push({
      id: node.id,
      callFrame: {
        functionName: typeof frame.functionName === "string" ? frame.functionName : "",
        url: typeof frame.url === "string" ? frame.url : "",
        lineNumber: typeof frame.lineNumber === "number" ? frame.lineNumber : -1
      }
    })
  }
  return {
    nodes,
    startTime: raw.startTime,
    endTime: typeof raw.endTime === "number" ? raw.endTime : raw.startTime,
    samples,
    timeDeltas
  }
}

const repoRoot = resolve(fileURLToPath(new URL("..", import.meta.url)))

/** A short location: `effect/src/internal/fiberRuntime.ts:123`, `src/platform/Ids.ts:50`, `node:internal/...`. */
const shortUrl = (url: string): string => {
  if (url === "") return ""
  let path = url.startsWith("file://") ? fileURLToPath(url) : url
  const nm = path.lastIndexOf("/node_modules/")
  if (nm >= 0) return path.slice(nm + "/node_modules/".length)
  if (path.startsWith(`${repoRoot}/`)) path = path.slice(repoRoot.length + 1)
  return path
}

/** The package a frame belongs to: `effect`, `@effect/platform`, `pg`, `app`, `node`, or a V8 pseudo-frame. */
const packageOf = (frame: CallFrame): string => {
  const url = frame.url
  if (url === "") return frame.functionName.startsWith("(") ? frame.functionName : "(native)"
  if (url.startsWith("node:")) return "node (core)"
  const path = url.startsWith("file://") ? fileURLToPath(url) : url
  const nm = path.lastIndexOf("/node_modules/")
  if (nm >= 0) {
    const parts = path.slice(nm + "/node_modules/".length).split("/")
    return parts[0]?.startsWith("@") ? `${parts[0]}/${parts[1]}` : (parts[0] ?? "?")
  }
  if (path.startsWith(`${repoRoot}/`)) return `app: ${path.slice(repoRoot.length + 1).split("/")[0]}`
  return path
}

export interface SummaryRow {
  readonly name: string
  readonly location: string
  readonly selfMs: number
  /** Share of the non-idle time. */
  readonly percent: number
}

export interface ProfileSummary {
  readonly file: string
  readonly windowMs: number
  readonly idleMs: number
  readonly busyMs: number
  readonly functions: ReadonlyArray<SummaryRow>
  readonly packages: ReadonlyArray<SummaryRow>
}

export interface SummaryOptions {
  readonly top?: number | undefined
  readonly fromUs?: number | undefined
  readonly toUs?: number | undefined
}

export const summarizeProfile = (file: string, options: SummaryOptions = {}): ProfileSummary => {
  const profile = parseProfile(readFileSync(file, "utf8"))
  const byId = new Map<number, ProfileNode>()
  for (const node of profile.nodes) byId.set(node.id, node)
  // Sample i lasts until sample i + 1 (as Chrome DevTools counts it).
  const stamps: Array<number> = []
  let t = profile.startTime
  for (const delta of profile.timeDeltas) {
    t += delta
    stamps.push(t)
  }
  let from = options.fromUs ?? Number.NEGATIVE_INFINITY
  let to = options.toUs ?? Number.POSITIVE_INFINITY
  if (from > profile.endTime || to < profile.startTime) {
    process.stderr.write(`profile-summary: window outside the profile (${file}); using the whole profile\n`)
    from = Number.NEGATIVE_INFINITY
    to = Number.POSITIVE_INFINITY
  }
  const fnSelf = new Map<string, { name: string; location: string; us: number }>()
  const pkgSelf = new Map<string, number>()
  let idleUs = 0
  let totalUs = 0
  for (let i = 0; i < profile.samples.length; i++) {
    const at = stamps[i] ?? 0
    if (at < from || at > to) continue
    const next = stamps[i + 1]
    const us = next === undefined ? 0 : next - at
    const node = byId.get(profile.samples[i] ?? -1)
    if (node === undefined) continue
    totalUs += us
    const frame = node.callFrame
    if (frame.functionName === "(idle)") {
      idleUs += us
      continue
    }
    const name = frame.functionName === "" ? "(anonymous)" : frame.functionName
    const url = shortUrl(frame.url)
    const key = `${name}\u0000${url}`
    const entry = fnSelf.get(key)
    if (entry) entry.us += us
    else fnSelf.set(key, { name, location: url === "" ? "" : `${url}:${frame.lineNumber + 1}`, us })
    const pkg = packageOf(frame)
    pkgSelf.set(pkg, (pkgSelf.get(pkg) ?? 0) + us)
  }
  const busyUs = totalUs - idleUs
  const top = options.top ?? 25
  const pct = (us: number) => (busyUs > 0 ? Math.round((us / busyUs) * 1000) / 10 : 0)
  const ms = (us: number) => Math.round(us / 100) / 10
  return {
    file,
    windowMs: ms(totalUs),
    idleMs: ms(idleUs),
    busyMs: ms(busyUs),
    functions: [...fnSelf.values()]
      .sort((a, b) => b.us - a.us)
      .slice(0, top)
      .map((e) => ({ name: e.name, location: e.location, selfMs: ms(e.us), percent: pct(e.us) })),
    packages: [...pkgSelf.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 12)
      .map(([name, us]) => ({ name, location: "", selfMs: ms(us), percent: pct(us) }))
  }
}

export const formatSummary = (summary: ProfileSummary): string => {
  const lines = [
    `${summary.file}`,
    `window ${summary.windowMs} ms, idle ${summary.idleMs} ms, busy ${summary.busyMs} ms (percentages are of busy time)`,
    "",
    "  self ms      %  function  (location)"
  ]
  for (const row of summary.functions) {
    lines.push(
      `${row.selfMs.toFixed(1).padStart(8)} ${row.percent.toFixed(1).padStart(6)}  ${row.name}  ${row.location === "" ? "" : `(${row.location})`}`
    )
  }
  lines.push("", "  self ms      %  package")
  for (const row of summary.packages) {
    lines.push(`${row.selfMs.toFixed(1).padStart(8)} ${row.percent.toFixed(1).padStart(6)}  ${row.name}`)
  }
  return lines.join("\n")
}

const newestProfile = (dir: string): string => {
  const files = readdirSync(dir)
    .filter((f) => f.endsWith(".cpuprofile"))
    .map((f) => join(dir, f))
    .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs)
  const first = files[0]
  if (first === undefined) throw new Error(`no .cpuprofile in ${dir}`)
  return first
}

const main = () => {
  const args = process.argv.slice(2)
  const option = (name: string): number | undefined => {
    const i = args.indexOf(name)
    if (i < 0) return undefined
    const value = Number(args[i + 1])
    args.splice(i, 2)
    if (!Number.isFinite(value)) throw new Error(`${name} needs a number`)
    return value
  }
  const top = option("--top")
  const fromUs = option("--from-us")
  const toUs = option("--to-us")
  const target = args[0] ?? join(repoRoot, "bench/results/profile")
  const file = statSync(target).isDirectory() ? newestProfile(target) : target
  process.stdout.write(`${formatSummary(summarizeProfile(file, { top, fromUs, toUs }))}\n`)
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  main()
}
