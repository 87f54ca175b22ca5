/**
 * `npm run bench:dashboard`: how fast the dashboard's heavy views show in
 * headless Chromium, against a real gateway started as users start it
 * (lib/dashboard-gateway.ts: `node bin/gateway.mjs`, default settings, the
 * embedded store; BENCH_DATABASE_URL a PostgreSQL server to make a database
 * on instead).
 *
 * 1. Seeds through the public API (lib/dashboard-seed.ts): 1,000 threads in
 *    one project, a thread of 1,000 messages in a chain, a trace of 500 spans.
 * 2. Signs in through the page once (`Token`, `Sign in`). Then, per view,
 *    the time from the navigation's start until its last item is shown
 *    (lib/dashboard-browser.ts): the threads table's 50th row, the thread's
 *    last message, the trace's 500th span row. Once with an empty cache
 *    (cold), then BENCH_RUNS (7) times in the signed-in context with its
 *    cache (warm; one unmeasured load of each first): in a new tab, and in
 *    the tab left on the previous view; and the baseline, the same data by
 *    plain fetch() from inside a page of the dashboard
 *    (lib/dashboard-baseline.ts). The three alternate, in reverse order on
 *    odd runs.
 * 3. The first load's transferred size, from a cold load of the threads view
 *    (lib/dashboard-transfer.ts).
 *
 * Prints the tables (lib/dashboard-report.ts) with the aims beside them
 * (each view within 1 s warm, in a new tab; under 250 KB compressed), and
 * writes bench/results/dashboard-<run>.json.
 */
import { loadavg } from "node:os"
import type { Page } from "playwright-core"
import {
  type Baseline,
  type BaselineRun,
  threadBaseline,
  threadsBaseline,
  traceBaseline
} from "./lib/dashboard-baseline.js"
import {
  coldContext,
  launchBrowser,
  openInNewTab,
  openView,
  signIn,
  type Target,
  VIEWPORT,
  type ViewRun,
  watchViews
} from "./lib/dashboard-browser.js"
import { startDashboardGateway } from "./lib/dashboard-gateway.js"
import { AIM_INITIAL_BYTES, AIM_VIEW_MS, printReport, writeResults } from "./lib/dashboard-report.js"
import { seed } from "./lib/dashboard-seed.js"
import { coldTransfer } from "./lib/dashboard-transfer.js"
import { killAllNow } from "./lib/proc.js"
import { intEnv, log, runId } from "./lib/settings.js"

const RUNS = Math.max(1, intEnv("BENCH_RUNS", 7))
const SEED = { threads: 1000, messages: 1000, spans: 500 } as const

interface View {
  readonly name: string
  readonly what: string
  readonly url: string
  readonly target: Target
  /** What the target's count selector and the baseline must both find. */
  readonly expect: number
  readonly baseline: Baseline
}

const checked = (view: View, found: number, where: string) => {
  if (found !== view.expect) throw new Error(`${view.name}: ${where} found ${found}, expected ${view.expect}`)
}

/** Waits until the baseline sees the whole of a view's data (a trace may take a moment to be stored). */
const settle = async (view: View, page: Page) => {
  const deadline = Date.now() + 30_000
  for (;;) {
    const { items } = await view.baseline(page)
    if (items === view.expect) return
    if (Date.now() > deadline) checked(view, items, "the baseline")
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
}

const main = async () => {
  const loadStart = loadavg()
  log("starting the gateway (node bin/gateway.mjs; it builds dist/ and the page first when stale)")
  const gateway = await startDashboardGateway()
  const browser = await launchBrowser().catch(async (error: unknown) => {
    await gateway.stop()
    throw error
  })
  try {
    const { baseUrl, projectId } = gateway
    log(`gateway at ${baseUrl} (${gateway.store} store); seeding`)
    const seeded = await seed({ baseUrl, apiKey: gateway.apiKey, ...SEED })
    log(`seeded in ${JSON.stringify(seeded.seconds)} s`)
    const project = `${baseUrl}/dashboard/projects/${encodeURIComponent(projectId)}`
    const views: ReadonlyArray<View> = [
      {
        name: "threads",
        what: "table, 50th row",
        url: `${project}/threads`,
        target: { selector: "main table tbody tr", index: 49, count: "main table tbody tr" },
        expect: 50,
        baseline: threadsBaseline(projectId)
      },
      {
        name: "thread",
        what: `${SEED.messages} messages, the last`,
        url: `${project}/threads/${encodeURIComponent(seeded.chatThreadId)}`,
        target: {
          selector: `[id="message-${seeded.lastMessageId}"]`,
          index: 0,
          count: ".conversation article.message"
        },
        expect: SEED.messages,
        baseline: threadBaseline(projectId, seeded.chatThreadId)
      },
      {
        name: "trace",
        what: `${SEED.spans} spans, the last row`,
        url: `${project}/traces/${seeded.traceId}`,
        target: { selector: ".span-list > li.span-row", index: SEED.spans - 1, count: ".span-list > li.span-row" },
        expect: SEED.spans,
        baseline: traceBaseline(projectId, seeded.traceId)
      }
    ]

    const warm = await browser.newContext({ viewport: VIEWPORT })
    await watchViews(warm, views)
    await signIn(warm, baseUrl, gateway.adminToken)
    // The baseline's page: the dashboard's origin and CSP, its app idle on "Not found".
    const baselinePage = await warm.newPage()
    await baselinePage.goto(`${baseUrl}/dashboard/baseline`)
    for (const view of views) await settle(view, baselinePage)
    // The tab that stays open: each view is navigated to from another one (a reload costs the same).
    const tab = await warm.newPage()

    log("warm-up: each view once in a new tab and once in the open tab")
    for (const view of views) {
      checked(view, (await openInNewTab(warm, view.url, view.target)).count, "the page")
      checked(view, (await openView(tab, view.url, view.target)).count, "the page")
    }

    log("cold loads (empty cache)")
    const cold = new Map<string, ViewRun>()
    for (const view of views) {
      const context = await coldContext(browser, warm)
      await watchViews(context, views)
      cold.set(view.name, await openInNewTab(context, view.url, view.target))
      await context.close()
    }
    const threadsView = views[0]
    if (threadsView === undefined) throw new Error("no threads view")
    const transfer = await coldTransfer(browser, warm, threadsView.url, threadsView.target)

    const results = views.map((view) => {
      const coldRun = cold.get(view.name)
      if (coldRun === undefined) throw new Error(`no cold load of ${view.name}`)
      const newTab: Array<ViewRun> = []
      const sameTab: Array<ViewRun> = []
      const baseline: Array<BaselineRun> = []
      return {
        name: view.name,
        what: view.what,
        url: view.url,
        cold: coldRun,
        newTab,
        sameTab,
        baseline
      }
    })
    for (let run = 0; run < RUNS; run++) {
      log(`run ${run + 1} of ${RUNS}`)
      for (const [i, view] of views.entries()) {
        const result = results[i]
        if (result === undefined) continue
        const loaded = (into: Array<ViewRun>) => (load: ViewRun) => {
          checked(view, load.count, "the page")
          into.push(load)
        }
        const steps = [
          async () => loaded(result.newTab)(await openInNewTab(warm, view.url, view.target)),
          async () => loaded(result.sameTab)(await openView(tab, view.url, view.target)),
          async () => {
            const fetched = await view.baseline(baselinePage)
            checked(view, fetched.items, "the baseline")
            result.baseline.push(fetched)
          }
        ]
        for (const step of run % 2 === 0 ? steps : steps.reverse()) await step()
      }
    }

    const rows = printReport(results, transfer, RUNS)
    const file = writeResults(runId, {
      bench: "dashboard",
      run: runId,
      command: "npm run bench:dashboard",
      runs: RUNS,
      store: gateway.store,
      chromium: browser.version(),
      node: process.version,
      seed: { ...SEED, seconds: seeded.seconds },
      aims: { viewMs: AIM_VIEW_MS, initialBytes: AIM_INITIAL_BYTES },
      summary: rows,
      transfer,
      views: results,
      load: { start: loadStart, end: loadavg() },
      pageErrors: results.flatMap((r) => [r.cold, ...r.newTab, ...r.sameTab].flatMap((run) => run.errors))
    })
    log(`wrote ${file}`)
  } finally {
    await browser.close()
    await gateway.stop()
  }
}

process.on("exit", killAllNow)
process.on("SIGINT", () => process.exit(130))
main().catch((error: unknown) => {
  console.error(error)
  process.exitCode = 1
})
