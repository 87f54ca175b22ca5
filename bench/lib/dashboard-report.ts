/**
 * The dashboard bench's figures: medians, ratios and the aims beside them,
 * printed as Markdown tables, and the JSON document written to
 * bench/results/dashboard-<run>.json.
 */
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import type { BaselineRun } from "./dashboard-baseline.js"
import type { Phases, ViewRun } from "./dashboard-browser.js"
import type { Transfer } from "./dashboard-transfer.js"
import { RESULTS } from "./settings.js"
import { median } from "./stats.js"

/** Each view shown within this long, warm. */
export const AIM_VIEW_MS = 1000
/** The first load's scripts, stylesheets and index.html, compressed. */
export const AIM_INITIAL_BYTES = 250 * 1024

export interface ViewResult {
  readonly name: string
  readonly what: string
  readonly url: string
  readonly cold: ViewRun
  /** Warm loads in a new tab of the signed-in context, and in a tab already on another view. */
  readonly newTab: ReadonlyArray<ViewRun>
  readonly sameTab: ReadonlyArray<ViewRun>
  readonly baseline: ReadonlyArray<BaselineRun>
}

const PHASES: ReadonlyArray<keyof Phases> = [
  "html",
  "assetsStart",
  "js",
  "sessionStart",
  "sessionEnd",
  "dataStart",
  "dataEnd"
]

const figures = (runs: ReadonlyArray<ViewRun>) => {
  const shown = runs.map((run) => run.shownMs)
  return {
    medianMs: median(shown),
    minMs: Math.min(...shown),
    maxMs: Math.max(...shown),
    wallMs: median(runs.map((run) => run.wallMs)),
    phases: Object.fromEntries(PHASES.map((phase) => [phase, median(runs.map((run) => run.phases[phase]))]))
  }
}

export const summarize = (view: ViewResult) => {
  const newTab = figures(view.newTab)
  const sameTab = figures(view.sameTab)
  const baselineMs = median(view.baseline.map((run) => run.ms))
  return {
    view: view.name,
    what: view.what,
    newTab,
    sameTab,
    coldMs: view.cold.shownMs,
    coldPhases: view.cold.phases,
    baselineMs,
    ratio: baselineMs / newTab.medianMs,
    ratioSameTab: baselineMs / sameTab.medianMs,
    aimMs: AIM_VIEW_MS,
    aimMet: newTab.medianMs <= AIM_VIEW_MS
  }
}

const ms = (value: number) => (Number.isFinite(value) ? Math.round(value).toLocaleString("en-US") : "-")
const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`
const spread = (f: ReturnType<typeof figures>) => `${ms(f.medianMs)} (${ms(f.minMs)}–${ms(f.maxMs)})`

export const printReport = (views: ReadonlyArray<ViewResult>, transfer: Transfer, runs: number) => {
  const rows = views.map(summarize)
  const out: Array<string> = []
  out.push(
    `\nWarm: medians of ${runs} loads in the signed-in context with its cache, in a new tab (a returning user opening`,
    "the view) and in the tab already on another view (same renderer). Cold: one load, new tab, empty cache.",
    "Page: navigation start to the element shown (next frame done). Baseline: fetch() + .json() of the same data.\n",
    "| view | new tab ms (min–max) | same tab ms (min–max) | cold ms | baseline ms | baseline/page (new, same) | aim | met |",
    "|---|---:|---:|---:|---:|---:|---:|:---:|"
  )
  for (const row of rows) {
    out.push(
      `| ${row.view}: ${row.what} | ${spread(row.newTab)} | ${spread(row.sameTab)} | ${ms(row.coldMs)} | ` +
        `${ms(row.baselineMs)} | ${row.ratio.toFixed(2)}, ${row.ratioSameTab.toFixed(2)} | ≤ ${ms(row.aimMs)} ms | ` +
        `${row.aimMet ? "yes" : "NO"} |`
    )
  }
  out.push(
    "\nWhere a warm load's time goes (medians, ms from the navigation's start; new tab / same tab):\n",
    "| view | index.html | assets asked | scripts in | session sent | session answered | data sent | data answered | shown |",
    "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
  )
  for (const row of rows) {
    const cell = (phase: keyof Phases) =>
      `${ms(row.newTab.phases[phase] ?? Number.NaN)} / ${ms(row.sameTab.phases[phase] ?? Number.NaN)}`
    out.push(
      `| ${row.view} | ${PHASES.map(cell).join(" | ")} | ${ms(row.newTab.medianMs)} / ${ms(row.sameTab.medianMs)} |`
    )
  }
  const met = transfer.totalBytes < AIM_INITIAL_BYTES
  out.push(
    `\nInitial load (cold threads view, ${transfer.encodings.join(", ")}): scripts + stylesheets ${kb(transfer.jsCssBytes)}, ` +
      `index.html ${kb(transfer.htmlBytes)}, total ${kb(transfer.totalBytes)}; aim < ${kb(AIM_INITIAL_BYTES)}: ${met ? "met" : "MISSED"}`
  )
  for (const file of transfer.files) {
    if (file.path.startsWith("image/")) continue
    out.push(
      `  ${file.type.padEnd(10)} ${String(file.bodyBytes).padStart(8)} B ${file.encoding.padEnd(8)} ${file.path}`
    )
  }
  console.log(out.join("\n"))
  return rows
}

export const writeResults = (runId: string, document: Record<string, unknown>): string => {
  mkdirSync(RESULTS, { recursive: true })
  const file = join(RESULTS, `dashboard-${runId}.json`)
  writeFileSync(file, `${JSON.stringify(document, null, 2)}\n`)
  return file
}
