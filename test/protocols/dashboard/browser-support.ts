/**
 * Helpers for the dashboard's Chromium suites: signing in (through the form,
 * or over HTTP for a ready cookie), the errors a page logs, axe-core's
 * serious findings, what overflows a narrow viewport, a view's common check
 * (axe, screenshot, 390 px) and the text of captioned tables.
 */
import * as path from "node:path"
import axe from "axe-core"
import type { Browser, BrowserContext, Locator, Page } from "playwright-core"
import { describe, expect, it } from "vitest"
import { browserSupport, CHROMIUM } from "../../sdk/browser-helpers.js"
import { call, type Gateway } from "../../support/layers.js"

export { launchChromium } from "../../sdk/browser-helpers.js"

/**
 * Whether the file's browser suite runs: without Chromium it skips and says
 * so, except under CI=true, where a failing test says the browser is missing.
 */
export const chromiumAvailable = (file: string): boolean => {
  const support = browserSupport()
  if (support.available) return true
  if (support.required)
    describe(`${file} in headless Chromium`, () => {
      it("needs Chromium under CI", () => {
        throw new Error(`${CHROMIUM} is missing, and CI=true requires the browser tests (.ci/run installs chromium)`)
      })
    })
  else console.warn(`${file}: skipped, ${CHROMIUM} is missing (apt-get install chromium); under CI=true this fails`)
  return false
}

export const SESSION_COOKIE = "svc_session"

/** Waits until the (first) element the locator finds is visible; a timeout fails with the locator in the message. */
export const shown = (locator: Locator, timeout = 10_000): Promise<void> =>
  locator.first().waitFor({ state: "visible", timeout })

/** The element's text once it shows, trimmed. */
export const textOf = async (locator: Locator): Promise<string> => {
  await shown(locator)
  return ((await locator.first().textContent()) ?? "").trim()
}

/** Opens the dashboard, signs in through its form and waits for the signed-in header. */
export const signInWithForm = async (page: Page, gateway: Gateway, token: string, path = "/dashboard/") => {
  await page.goto(`${gateway.baseUrl}${path}`)
  await page.getByLabel("Token", { exact: true }).fill(token)
  await page.getByRole("button", { name: "Sign in" }).click()
  await shown(page.getByRole("button", { name: "Sign out" }))
}

/** A session cookie's value, signed in over HTTP as the page does (its origin, the CSRF header). */
export const sessionCookie = async (gateway: Gateway, token: string): Promise<string> => {
  const reply = await call(gateway.baseUrl, "POST", "/v1/dashboard/session", {
    body: { token },
    headers: { origin: gateway.baseUrl, "x-svc-dashboard": "1" }
  })
  const value = /^svc_session=([^;]+)/.exec(reply.headers.get("set-cookie") ?? "")?.[1]
  if (reply.status !== 204 || value === undefined) throw new Error(`sign-in failed: ${reply.status} ${reply.text}`)
  return value
}

/** A fresh browser context holding a session for `token`, with the cookie's flags as the gateway sets them. */
export const signedInContext = async (
  browser: Browser,
  gateway: Gateway,
  token: string,
  viewport = { width: 1280, height: 800 }
): Promise<BrowserContext> => {
  const context = await browser.newContext({ viewport })
  const value = await sessionCookie(gateway, token)
  await context.addCookies([{ name: SESSION_COOKIE, value, url: gateway.baseUrl, httpOnly: true, sameSite: "Strict" }])
  return context
}

/** GET /v1/dashboard/session with a cookie value: its status. */
export const sessionStatus = async (gateway: Gateway, value: string): Promise<number> =>
  (await call(gateway.baseUrl, "GET", "/v1/dashboard/session", { headers: { cookie: `${SESSION_COOKIE}=${value}` } }))
    .status

/** Keeps every console error and uncaught page error of `page` in `into`, with the page's address. */
export const collectErrors = (page: Page, into: Array<string>): void => {
  page.on("console", (message) => {
    if (message.type() === "error") into.push(`${page.url()} console: ${message.text()} (${message.location().url})`)
  })
  page.on("pageerror", (error) => into.push(`${page.url()} pageerror: ${error.message}`))
}

interface AxeWindow {
  readonly axe?: { readonly run: (context: Document, options: axe.RunOptions) => Promise<axe.AxeResults> }
}

/**
 * axe-core's violations of impact serious or critical on the page as it is,
 * one line each. The source goes in through page.evaluate (DevTools
 * evaluation), so the page's CSP stays in force for the rest of the test.
 */
export const seriousViolations = async (page: Page): Promise<Array<string>> => {
  if (!(await page.evaluate(() => (window as AxeWindow).axe !== undefined))) await page.evaluate(axe.source)
  const violations = await page.evaluate(async () => {
    const runner = (window as AxeWindow).axe
    if (runner === undefined) throw new Error("axe-core is not on the page")
    const results = await runner.run(document, { resultTypes: ["violations"] })
    return results.violations.map((violation) => ({
      id: violation.id,
      impact: violation.impact ?? null,
      help: violation.help,
      targets: violation.nodes.slice(0, 5).map((node) => node.target.join(" "))
    }))
  })
  return violations
    .filter((violation) => violation.impact === "serious" || violation.impact === "critical")
    .map((violation) => `${violation.id} (${violation.impact}): ${violation.help} at ${violation.targets.join(", ")}`)
}

/**
 * How wide the document is, and the elements that reach past the viewport's
 * right edge without a scrolling (or clipping) box around them.
 */
export const horizontalOverflow = (page: Page) =>
  page.evaluate(() => {
    const width = document.documentElement.clientWidth
    const inScroller = (element: Element): boolean => {
      for (let parent = element.parentElement; parent && parent !== document.body; parent = parent.parentElement) {
        if (getComputedStyle(parent).overflowX !== "visible") return true
      }
      return false
    }
    const outside: Array<string> = []
    for (const element of Array.from(document.body.querySelectorAll("*"))) {
      const box = element.getBoundingClientRect()
      if (box.width === 0 || box.right <= width + 0.5 || inScroller(element)) continue
      outside.push(`${element.tagName.toLowerCase()}.${element.className} (right ${Math.round(box.right)})`)
    }
    return { scrollWidth: document.documentElement.scrollWidth, width, outside: outside.slice(0, 8) }
  })

/**
 * Closes the context's pages, each given 5 s: Chromium can acknowledge a close
 * that races a navigation's commit and never close the page
 * (crbug.com/536385539; playwright issues 41900, 42366), and page.close()
 * then waits for ever. A page left open goes with its context or browser.
 */
export const closePages = async (context: BrowserContext): Promise<void> => {
  await Promise.all(
    context
      .pages()
      .map((page) => Promise.race([page.close(), new Promise<void>((done) => setTimeout(done, 5_000).unref())]))
  )
}

/** Where the suites write their screenshots (looked at, and copied into docs/images by hand). */
export const SHOTS = path.resolve(import.meta.dirname, "..", "..", "..", "test-results", "dashboard")
export const WIDE = { width: 1280, height: 800 }
export const NARROW = { width: 390, height: 844 }

/** No "Loading …" left on the page. */
export const settled = (page: Page) =>
  page.waitForFunction(() =>
    Array.from(document.querySelectorAll('[role="status"]')).every((each) => !each.textContent?.startsWith("Loading"))
  )

/** The page at 390 px, given up to 2 s to lay itself out again: what still overflows (horizontalOverflow). */
export const narrowOverflow = async (page: Page) => {
  await page.setViewportSize(NARROW)
  const deadline = Date.now() + 2_000
  let overflow = await horizontalOverflow(page)
  while (overflow.scrollWidth > NARROW.width && Date.now() < deadline) {
    await page.waitForTimeout(50)
    overflow = await horizontalOverflow(page)
  }
  return overflow
}

/** Fails when something but a scrolling box is wider than the 390 px screen. */
export const expectNarrowFits = (overflow: Awaited<ReturnType<typeof horizontalOverflow>>, name: string) =>
  expect(overflow.scrollWidth, `${name} at 390 px: ${overflow.outside.join("; ")}`).toBeLessThanOrEqual(NARROW.width)

/**
 * axe (no serious or critical finding) and the screenshot at 1280 px; then at
 * 390 px nothing but a scrolling box wider than the screen, and back.
 */
export const checkView = async (page: Page, name: string) => {
  await settled(page)
  expect(await seriousViolations(page), `axe on ${name}`).toEqual([])
  await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true })
  const overflow = await narrowOverflow(page)
  expectNarrowFits(overflow, name)
  await page.setViewportSize(WIDE)
}

/** The body rows of the table named `caption`. */
export const bodyRows = (page: Page, caption: string) =>
  page.getByRole("table", { name: caption, exact: true }).locator("tbody").getByRole("row")

/** Each body row's cells' text. */
export const tableCells = async (page: Page, caption: string): Promise<Array<Array<string>>> => {
  await shown(page.getByRole("table", { name: caption, exact: true }))
  const rows = await bodyRows(page, caption).all()
  return Promise.all(rows.map(async (row) => (await row.getByRole("cell").allTextContents()).map((t) => t.trim())))
}
