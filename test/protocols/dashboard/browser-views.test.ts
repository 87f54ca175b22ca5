/**
 * Every view of the dashboard in headless Chromium shows what the project
 * API and the OTLP receiver stored (docs/dashboard.md): Overview's totals,
 * threads with a filter kept in the URL and search snippets, a branched
 * conversation with tool calls and feedback, runs, a 500-span trace as a
 * waterfall with its selected span in the URL, and score distributions.
 * On every store; one browser for the file, an admin session; no view
 * logs an error.
 */
import type { Browser, BrowserContext, Page } from "playwright-core"
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest"
import { ADMIN_TOKEN, asUser, createProject, type Gateway, stores, useGateway } from "../../support/layers.js"
import { type Seeded, seed, spanId, TRACE_ID } from "./browser-seed.js"
import {
  chromiumAvailable,
  closePages,
  collectErrors,
  launchChromium,
  settled,
  shown,
  signedInContext,
  textOf
} from "./browser-support.js"

const available = chromiumAvailable("test/protocols/dashboard/browser-views.test.ts")

/** The cells of the table row holding the link `name`. */
const rowCells = async (page: Page, name: string): Promise<Array<string>> => {
  const row = page.getByRole("row").filter({ has: page.getByRole("link", { name, exact: true }) })
  await shown(row)
  return (await row.getByRole("cell").allTextContents()).map((text) => text.trim())
}

/** The value of a term in a description list. */
const described = (page: Page, term: string) =>
  textOf(
    page
      .locator("dl > div")
      .filter({ has: page.getByText(term, { exact: true }) })
      .locator("dd")
  )

const bodyRows = (page: Page, table: string) =>
  page
    .getByRole("region", { name: `${table} table` })
    .locator("tbody")
    .getByRole("row")

describe.skipIf(!available).each(stores)("the dashboard's views in Chromium ($name)", (storeUnderTest) => {
  const handle = useGateway(storeUnderTest)
  let gateway: Gateway
  let browser: Browser
  let context: BrowserContext
  let seeded: Seeded
  const errors: Array<string> = []
  const view = (path: string) => `${gateway.baseUrl}/dashboard/projects/${seeded.projectId}/${path}`
  const open = async (path: string): Promise<Page> => {
    const page = await context.newPage()
    collectErrors(page, errors)
    await page.goto(view(path))
    return page
  }

  beforeAll(async () => {
    gateway = handle.current
    const launching = launchChromium().then((launched) => {
      browser = launched
    })
    try {
      seeded = await seed(gateway)
    } finally {
      await launching
    }
    context = await signedInContext(browser, gateway, ADMIN_TOKEN)
  })
  afterEach(async () => {
    await closePages(context)
    expect(errors.splice(0), "console errors and page errors").toEqual([])
  })
  afterAll(async () => {
    await browser?.close()
  })

  it("Overview: the period's totals and the charts' text, for the period chosen", async () => {
    const page = await open("overview")
    await shown(page.getByRole("heading", { name: /^Totals, / }))
    expect(await described(page, "Threads")).toBe("3")
    expect(await described(page, "Messages")).toBe(String(seeded.messages))
    expect(await described(page, "Runs")).toBe(String(seeded.runs))
    expect(await described(page, "Scores")).toBe(String(seeded.scores))
    await shown(page.getByRole("img", { name: /^Threads and messages by day, .*Threads: 3 in all/ }))
    await page.getByLabel("Period").selectOption("7")
    await page.waitForURL(/\?days=7$/)
    await shown(page.getByRole("heading", { name: new RegExp(`^Totals, ${utcDaysAgo(6)} to `) }))
    expect(await described(page, "Threads")).toBe("3")
  })

  it("Threads: the table, a user filter kept in the URL across a reload, and search with a marked snippet", async () => {
    const page = await open("threads")
    await shown(bodyRows(page, "Threads"))
    expect(await bodyRows(page, "Threads").count()).toBe(3)
    expect((await rowCells(page, "Weather in Paris")).slice(0, 4)).toEqual([
      "Weather in Paris",
      "alice",
      "ws-north",
      "3"
    ])
    expect((await rowCells(page, "Tool use")).slice(0, 4)).toEqual(["Tool use", "bob", "ws-south", "2"])

    await page.getByLabel("User", { exact: true }).fill("bob")
    await page.getByRole("button", { name: "Apply" }).click()
    await page.waitForURL(/[?&]user_id=bob(&|$)/)
    await shown(page.getByRole("link", { name: "Tool use" }))
    expect(await bodyRows(page, "Threads").count()).toBe(1)
    await page.reload()
    await shown(page.getByRole("link", { name: "Tool use" }))
    expect(await bodyRows(page, "Threads").count()).toBe(1)
    expect(await page.getByLabel("User", { exact: true }).inputValue()).toBe("bob")

    await page.getByRole("button", { name: "Clear" }).click()
    await page.getByLabel("Search").fill("aardvark")
    await page.getByRole("button", { name: "Find" }).click()
    await shown(page.getByRole("heading", { name: "Threads matching “aardvark”" }))
    const matches = page.getByRole("region", { name: "Matching threads table" })
    expect(await textOf(matches.locator("mark"))).toBe("aardvark")
    expect(await textOf(matches.getByRole("link"))).toBe("Notes")
  })

  it("a thread: one branch with a switcher to the other, feedback, and the thread's runs and scores", async () => {
    const page = await open(`threads/${seeded.threads.branched}`)
    const conversation = page.getByRole("region", { name: "Conversation" })
    await shown(conversation.getByText("Second answer: light rain."))
    expect(await conversation.getByText("First answer").count()).toBe(0)
    expect(await textOf(conversation.locator(".branches .count"))).toBe("2 / 2")
    const feedback = conversation.getByRole("list", { name: "Feedback" })
    expect(await textOf(feedback)).toMatch(/^Positive feedback\s+“?Spot on”?\s+by alice,/)

    await conversation.getByRole("button", { name: "Previous branch" }).click()
    await shown(conversation.getByText("First answer: sunny and warm."))
    expect(await conversation.getByText("Second answer").count()).toBe(0)
    expect(await textOf(conversation.locator(".branches .count"))).toBe("1 / 2")
    await conversation.getByRole("button", { name: "Next branch" }).click()
    await shown(conversation.getByText("Second answer: light rain."))

    const side = page.getByRole("complementary", { name: "Runs and scores" })
    await shown(side.getByRole("link", { name: "gpt-browser" }))
    // Runs and scores load apart: the runs' link can show while the scores still load.
    await settled(page)
    const scores = await textOf(side.getByRole("region", { name: "Scores" }))
    for (const each of ["quality: 0.9", "topic: billing", "topic: weather", "helpful: true", "helpful: false"])
      expect(scores).toContain(each)
  })

  it("a thread in ai-sdk/v6 parts: the tool call with its arguments and result, then the text", async () => {
    const page = await open(`threads/${seeded.threads.tools}`)
    const tool = page.locator(".part.tool")
    await shown(tool)
    const text = await textOf(tool)
    expect(text).toMatch(/^Tool call getWeather call_weather_1 · output-available/)
    expect(text).toContain('"city": "Lyon"')
    expect(text).toContain('"celsius": 21')
    await shown(page.getByText("It is 21 degrees in Lyon."))
  })

  it("Runs: the table, and a run's steps, tool calls, tokens, tags and links to its thread and trace", async () => {
    const page = await open("runs")
    await shown(bodyRows(page, "Runs"))
    expect(await bodyRows(page, "Runs").count()).toBe(seeded.runs)
    const row = bodyRows(page, "Runs").filter({ hasText: "gpt-browser" })
    expect(await textOf(row)).toContain("beta, eu")
    await row.getByRole("link").first().click()
    await page.waitForURL(view(`runs/${seeded.runId}`))
    await shown(page.getByRole("heading", { level: 1, name: "Run: gpt-browser" }))
    expect(await described(page, "Input tokens")).toBe("150")
    expect(await described(page, "Output tokens")).toBe("57")
    expect(await page.locator(".tags .badge").allTextContents()).toEqual(["beta", "eu"])
    const steps = page.getByRole("region", { name: "Steps" })
    expect(await steps.getByRole("heading", { level: 3 }).allTextContents()).toEqual(["Step 1", "Step 2"])
    const call = await textOf(steps.locator(".part.tool"))
    expect(call).toMatch(/^Tool call lookup_weather call_w1/)
    expect(call).toContain('"city": "Paris"')
    expect(call).toContain("rain")
    expect(await page.getByRole("link", { name: "Open its thread" }).getAttribute("href")).toBe(
      `/dashboard/projects/${seeded.projectId}/threads/${seeded.threads.branched}`
    )
    await page.getByRole("link", { name: "Open its trace" }).click()
    await page.waitForURL(view(`traces/${TRACE_ID}?span=${spanId(1)}`))
    await shown(page.getByRole("button", { name: /agent run, /, expanded: true }))
  })

  it("Traces: 500 spans as a nested waterfall; a selected span shows its attributes, in the URL across a reload", async () => {
    const page = await open("traces")
    const cells = await rowCells(page, "agent run")
    expect(cells.slice(1, 2)).toEqual(["browser-app"])
    expect(cells.slice(4)).toEqual(["500", "1 error", String(seeded.runs)])
    await page.getByRole("link", { name: "agent run" }).click()
    const spans = page.getByRole("region", { name: "Spans" })
    await shown(spans.getByRole("button").first())
    expect(await spans.getByRole("button").count()).toBe(500)
    // Depth first, each row indented by its depth.
    const names = spans.getByRole("button").locator(".span-name")
    expect((await names.locator(".text").allTextContents()).slice(0, 5)).toEqual([
      "agent run",
      "step 1",
      "chat gpt-4o-mini",
      "tool lookup_1",
      "GET /lookup/1"
    ])
    const indents = await names.evaluateAll((all) =>
      all.slice(0, 5).map((each) => (each as HTMLElement).style.paddingLeft)
    )
    expect(indents).toEqual(["0rem", "0.75rem", "1.5rem", "1.5rem", "2.25rem"])
    const failed = spans.getByRole("button").filter({ hasText: "error" })
    expect(await failed.count()).toBe(1)
    expect(await failed.getAttribute("id")).toBe(`span-${spanId(seeded.trace.errorSpan)}`)

    const chat = seeded.trace.chats.get(2) ?? 0
    await spans
      .getByRole("button", { name: /^chat gpt-4o-mini · gpt-4o-mini · 102 in \/ 12 out tokens, [\d.,]+ m?s$/ })
      .click()
    await page.waitForURL(view(`traces/${TRACE_ID}?span=${spanId(chat)}`))
    expect(await described(page, "gen_ai.request.model")).toBe("gpt-4o-mini")
    await shown(page.locator(".span-detail").getByRole("link", { name: "Open the run made from this span" }))
    await page.reload()
    await shown(spans.getByRole("button", { name: / 102 in \/ 12 out tokens, /, expanded: true }))
    expect(await described(page, "gen_ai.usage.input_tokens")).toBe("102")
    expect(await spans.getByRole("button", { expanded: true }).count()).toBe(1)
  })

  it("Scores: the table and each name's distribution (numeric, categorical, boolean)", async () => {
    const page = await open("scores")
    await shown(bodyRows(page, "Scores"))
    expect(await bodyRows(page, "Scores").count()).toBe(seeded.scores)
    const quality = page.getByRole("article", { name: /^quality · numeric · 3 scores/ })
    await shown(quality.getByRole("img", { name: /^Histogram from 0\.2 to 0\.9\./ }))
    const topic = page.getByRole("article", { name: /^topic · categorical · 3 scores/ })
    expect(await textOf(topic.getByRole("row").filter({ hasText: "billing" }))).toMatch(/^billing\s*2 \(67%\)$/)
    const helpful = page.getByRole("article", { name: /^helpful · boolean · 3 scores/ })
    expect(await textOf(helpful)).toContain("True 2 (67%) · False 1 (33%)")
  })

  it("Threads: a full last page offers no next page; one more thread, and the next page holds it", async () => {
    const paged = await createProject(gateway, "Paging")
    const user = asUser(gateway, paged.api_key, "pat", "ws-paging")
    const make = async (n: number) => {
      const made = await user("POST", "/threads", {
        body: { title: `Paged ${n}`, last_message_at: new Date(Date.now() - n * 1000).toISOString() }
      })
      expect(made.status, made.text).toBe(201)
    }
    for (let n = 0; n < 25; n++) await make(n)
    const page = await context.newPage()
    collectErrors(page, errors)
    // The page asks whether a thread follows the 25th: none, so no next page (it was offered, and empty).
    const probed = page.waitForResponse((answer) => answer.url().includes("limit=1&"))
    await page.goto(`${gateway.baseUrl}/dashboard/projects/${paged.project_id}/threads?limit=25`)
    await shown(bodyRows(page, "Threads"))
    expect(await bodyRows(page, "Threads").count()).toBe(25)
    // The table is named by its caption, for a screen reader's list of tables.
    await shown(page.getByRole("table", { name: "Threads" }))
    const next = page.getByRole("button", { name: "Next page" })
    expect((await probed).status()).toBe(200)
    await expect.poll(() => next.isDisabled()).toBe(true)

    await make(25)
    await page.reload()
    await shown(bodyRows(page, "Threads"))
    await expect.poll(() => next.isEnabled()).toBe(true)
    await next.click()
    await expect.poll(() => bodyRows(page, "Threads").count()).toBe(1)
    expect(await next.isDisabled()).toBe(true)
  })

  it("Scores filtered to a run: its scores and only their distribution", async () => {
    const page = await open(`scores?run_id=${seeded.runId}`)
    await shown(bodyRows(page, "Scores"))
    expect(await bodyRows(page, "Scores").count()).toBe(3)
    await shown(page.getByRole("article", { name: /^quality · numeric · 3 scores/ }))
    expect(await page.getByRole("article").count()).toBe(1)
  })
})

/** The UTC day `n` days ago, as the Overview's period starts. */
const utcDaysAgo = (n: number) => new Date(Date.now() - n * 86_400_000).toISOString().slice(0, 10)
