/**
 * Each view of the dashboard, as seeded data fills it, in headless Chromium
 * on every store: no serious or critical axe-core finding, no console or page
 * error, a screenshot at 1280 px (test-results/dashboard/<view>.png, which the
 * README's pictures are copied from) and at 390 px, where nothing but a
 * scrolling box may be wider than the screen.
 *
 * axe-core goes in through page.evaluate rather than a script tag: the
 * page's CSP (script-src 'self') refuses an inline script, and bypassCSP
 * would also hide any CSP violation of the page itself from the error check.
 */
import { mkdirSync } from "node:fs"
import * as path from "node:path"
import type { Browser, BrowserContext, Page } from "playwright-core"
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest"
import { runJob } from "../../support/helpers.js"
import { ADMIN_TOKEN, type Gateway, stores, useGateway } from "../../support/layers.js"
import { type Seeded, seed, spanId, TRACE_ID } from "./browser-seed.js"
import {
  chromiumAvailable,
  closePages,
  collectErrors,
  expectNarrowFits,
  launchChromium,
  narrowOverflow,
  SHOTS,
  seriousViolations,
  settled,
  shown,
  signedInContext,
  WIDE
} from "./browser-support.js"

const available = chromiumAvailable("test/protocols/dashboard/browser-a11y.test.ts")

interface View {
  readonly name: string
  readonly path: (seeded: Seeded) => string
  /** Resolves once the view shows its data. */
  readonly ready: (page: Page) => Promise<void>
}

const table = (label: string) => (page: Page) => shown(page.getByRole("region", { name: `${label} table` }))

const VIEWS: ReadonlyArray<View> = [
  {
    name: "overview",
    path: () => "overview",
    ready: (page) => page.waitForFunction(() => document.querySelectorAll(".plot canvas").length >= 6).then(() => {})
  },
  { name: "threads", path: () => "threads", ready: table("Threads") },
  {
    name: "thread",
    path: (seeded) => `threads/${seeded.threads.branched}`,
    ready: async (page) => {
      await shown(page.getByText("Second answer: light rain."))
      await shown(page.getByRole("link", { name: "gpt-browser" }))
      await shown(page.getByText("quality: 0.9"))
    }
  },
  { name: "runs", path: () => "runs", ready: table("Runs") },
  {
    name: "run",
    path: (seeded) => `runs/${seeded.runId}`,
    ready: (page) => shown(page.getByRole("heading", { name: "Step 2" }))
  },
  { name: "traces", path: () => "traces", ready: table("Traces") },
  {
    name: "trace",
    // Step 1's chat span (the third row), open under its row.
    path: (seeded) => `traces/${TRACE_ID}?span=${spanId(seeded.trace.chats.get(1) ?? 0)}`,
    ready: (page) => shown(page.locator(".span-detail").getByText("gen_ai.request.model", { exact: true }))
  },
  {
    name: "scores",
    path: () => "scores",
    ready: async (page) => {
      await shown(page.getByRole("article", { name: /^helpful/ }))
      await table("Scores")(page)
    }
  },
  {
    name: "topics",
    path: () => "topics",
    // The seed's few threads: a topic or two, or none to group; either is a finished view.
    ready: (page) => shown(page.getByRole("region", { name: "Topics table" }).or(page.getByText(/^No topics/)))
  }
]

/** Screenshot at 1280 px, axe, then the same page at 390 px: its screenshot and nothing wider than the screen. */
const check = async (page: Page, name: string) => {
  await settled(page)
  await page.screenshot({ path: path.join(SHOTS, `${name}.png`) })
  expect(await seriousViolations(page), `axe on ${name}`).toEqual([])
  const overflow = await narrowOverflow(page)
  await page.screenshot({ path: path.join(SHOTS, `${name}-390.png`) })
  expectNarrowFits(overflow, name)
}

describe.skipIf(!available).each(stores)("the dashboard's views: axe, errors, widths ($name)", (storeUnderTest) => {
  const handle = useGateway(storeUnderTest)
  let gateway: Gateway
  let browser: Browser
  let context: BrowserContext
  let seeded: Seeded
  const errors: Array<string> = []

  beforeAll(async () => {
    gateway = handle.current
    mkdirSync(SHOTS, { recursive: true })
    const launching = launchChromium().then((launched) => {
      browser = launched
    })
    try {
      seeded = await seed(gateway)
      // The Topics view shows what the topics job made of the seed.
      await runJob(gateway, "topics")
    } finally {
      await launching
    }
    context = await signedInContext(browser, gateway, ADMIN_TOKEN, WIDE)
  })
  afterEach(async () => {
    await closePages(context)
    expect(errors.splice(0), "console errors and page errors").toEqual([])
  })
  afterAll(async () => {
    await browser?.close()
  })

  it("sign-in: the form alone; its only console error is the 401 of the session check", async () => {
    const signedOut = await browser.newContext({ viewport: WIDE })
    try {
      const page = await signedOut.newPage()
      const seen: Array<string> = []
      collectErrors(page, seen)
      await page.goto(`${gateway.baseUrl}/dashboard/`)
      await shown(page.getByLabel("Token", { exact: true }))
      await check(page, "sign-in")
      expect(seen).toEqual([expect.stringMatching(/status of 401 .*\/v1\/dashboard\/session\)$/)])
    } finally {
      await signedOut.close()
    }
  })

  it.each(VIEWS)("$name", async (view) => {
    const page = await context.newPage()
    collectErrors(page, errors)
    await page.goto(`${gateway.baseUrl}/dashboard/projects/${seeded.projectId}/${view.path(seeded)}`)
    await view.ready(page)
    await check(page, view.name)
  })
})
