/**
 * The dashboard in headless Chromium (Debian's /usr/bin/chromium driven by
 * playwright-core): signing in through the page, timing a view from the
 * navigation's start until a given element is shown, and where that time
 * went (the page's own Resource Timing entries).
 *
 * "Shown" is taken in the page: a MutationObserver (an init script of the
 * context, so it is there before the page's own scripts; it looks its
 * target up by the page's path) sees the element attached with a non-empty
 * box and not `visibility: hidden` (what Playwright calls visible); the time
 * is read after the next animation frame has run (a message posted from its
 * callback), so the frame's style, layout and paint of that element are in
 * it. It is `performance.now()` there, which counts from the navigation's
 * start. The page says it on the console, so that nothing of Playwright's
 * runs in the page while it loads (its injected script costs the page's
 * main thread about 100 ms here); Playwright checks the element is visible
 * afterwards. The wall time from `goto` to that console line, seen from this
 * process, is kept beside it.
 */
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core"

export const CHROMIUM = "/usr/bin/chromium"
export const VIEWPORT = { width: 1280, height: 800 } as const
/** The most a single load may take before the bench gives up. */
const LOAD_TIMEOUT_MS = 120_000

export const launchBrowser = (): Promise<Browser> =>
  chromium.launch({
    executablePath: CHROMIUM,
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--no-first-run"
    ]
  })

/** The element a view is waited for: the `index`th match of `selector`; `count` is checked after. */
export interface Target {
  readonly selector: string
  readonly index: number
  readonly count: string
}

/** Milliseconds from the navigation's start, from the page's Resource Timing. */
export interface Phases {
  /** index.html received. */
  readonly html: number
  /** The first stylesheet or script asked for (index.html parsed in the tab's renderer), and every script received. */
  readonly assetsStart: number
  readonly js: number
  /** The session check sent (the app has started) and answered. */
  readonly sessionStart: number
  readonly sessionEnd: number
  /** The view's own data calls: the first sent, the last answered, how many. */
  readonly dataStart: number
  readonly dataEnd: number
  readonly dataCalls: number
}

export interface ViewRun {
  /** Navigation start to the element shown (in the page). */
  readonly shownMs: number
  /** `goto` to the page's "shown" line on the console (from this process). */
  readonly wallMs: number
  readonly phases: Phases
  /** Elements matching `target.count` once shown. */
  readonly count: number
  readonly errors: ReadonlyArray<string>
}

/** What the page writes on its console when the element is shown, before the time. */
const SHOWN = "bench-dashboard shown at"

/**
 * `fn(arg)` as a script for the page. tsx (esbuild's keepNames) wraps named
 * inner functions in `__name(...)`, which the page does not have: the script
 * brings its own.
 */
export const inPage = <A>(fn: (arg: A) => unknown, arg: A): string =>
  `(() => { const __name = (f) => f; return (${fn.toString()})(${JSON.stringify(arg) ?? "undefined"}) })()`

interface Watched {
  readonly targets: Record<string, { readonly selector: string; readonly index: number }>
  readonly line: string
}

/** Runs in every page of the context before its scripts (see above). */
const watch = ({ targets, line }: Watched) => {
  const target = targets[location.pathname]
  if (target === undefined) return
  let seen = false
  const check = () => {
    if (seen) return
    const element = document.querySelectorAll(target.selector)[target.index]
    if (element === undefined) return
    const box = element.getBoundingClientRect()
    if (box.width === 0 || box.height === 0 || getComputedStyle(element).visibility === "hidden") return
    seen = true
    observer.disconnect()
    requestAnimationFrame(() => {
      const channel = new MessageChannel()
      channel.port1.onmessage = () => console.log(line, performance.now())
      channel.port2.postMessage(null)
    })
  }
  const observer = new MutationObserver(check)
  observer.observe(document, { childList: true, subtree: true })
}

/** Has every page of `context` say when the target of its path (a view's URL) is shown. */
export const watchViews = (context: BrowserContext, views: ReadonlyArray<{ url: string; target: Target }>) => {
  const targets = Object.fromEntries(
    views.map(({ url, target }) => [new URL(url).pathname, { selector: target.selector, index: target.index }])
  )
  return context.addInitScript({ content: inPage(watch, { targets, line: SHOWN }) })
}

/** Runs in the page once it is shown. */
const readPhases = (): Phases => {
  const navigation = performance.getEntriesByType("navigation")[0]
  const resources = performance.getEntriesByType("resource").filter((e) => e instanceof PerformanceResourceTiming)
  const pathOf = (entry: PerformanceEntry) => new URL(entry.name).pathname
  const latest = (entries: ReadonlyArray<PerformanceResourceTiming>) =>
    entries.reduce((most, e) => Math.max(most, e.responseEnd), 0)
  const earliest = (entries: ReadonlyArray<PerformanceResourceTiming>) =>
    entries.reduce((least, e) => Math.min(least, e.startTime), Number.POSITIVE_INFINITY)
  const api = resources.filter((e) => pathOf(e).startsWith("/v1/dashboard/"))
  const session = api.filter((e) => pathOf(e) === "/v1/dashboard/session")
  const data = api.filter((e) => pathOf(e) !== "/v1/dashboard/session")
  return {
    html: navigation instanceof PerformanceNavigationTiming ? navigation.responseEnd : 0,
    assetsStart: earliest(resources.filter((e) => /\.(js|css)$/.test(pathOf(e)))),
    js: latest(resources.filter((e) => pathOf(e).endsWith(".js"))),
    sessionStart: earliest(session),
    sessionEnd: latest(session),
    dataStart: earliest(data),
    dataEnd: latest(data),
    dataCalls: data.length
  }
}

/** Navigates `page` (of a context under watchViews) to `url` and waits until the view's target is shown. */
export const openView = async (page: Page, url: string, target: Target): Promise<ViewRun> => {
  const errors: Array<string> = []
  const onError = (error: Error) => errors.push(error.message)
  const onConsole = (message: { type: () => string; text: () => string }) => {
    if (message.type() === "error") errors.push(message.text())
  }
  page.on("pageerror", onError)
  page.on("console", onConsole)
  try {
    const shown = page.waitForEvent("console", {
      predicate: (message) => message.text().startsWith(SHOWN),
      timeout: LOAD_TIMEOUT_MS
    })
    const started = performance.now()
    await page.goto(url, { waitUntil: "commit", timeout: LOAD_TIMEOUT_MS })
    const line = await shown
    const wallMs = performance.now() - started
    const shownMs = Number(line.text().slice(SHOWN.length))
    await page.locator(target.selector).nth(target.index).waitFor({ state: "visible", timeout: 1000 })
    const phases = await page.evaluate<Phases>(inPage(readPhases, undefined))
    const count = await page.locator(target.count).count()
    return { shownMs, wallMs, phases, count, errors }
  } finally {
    page.off("pageerror", onError)
    page.off("console", onConsole)
  }
}

/** openView in a new tab of `context`, closed after. */
export const openInNewTab = async (context: BrowserContext, url: string, target: Target): Promise<ViewRun> => {
  const page = await context.newPage()
  try {
    return await openView(page, url, target)
  } finally {
    await page.close()
  }
}

/** Signs in through the page's form (`Token`, `Sign in`) and waits for the signed-in header. */
export const signIn = async (context: BrowserContext, baseUrl: string, token: string): Promise<void> => {
  const page = await context.newPage()
  try {
    await page.goto(`${baseUrl}/dashboard/`, { timeout: LOAD_TIMEOUT_MS })
    await page.getByLabel("Token", { exact: true }).fill(token)
    await page.getByRole("button", { name: "Sign in" }).click()
    await page.getByRole("button", { name: "Sign out" }).waitFor({ state: "visible", timeout: LOAD_TIMEOUT_MS })
  } finally {
    await page.close()
  }
}

/** A context with an empty cache holding the session cookie of `signedIn` (a returning user, cache cleared). */
export const coldContext = async (browser: Browser, signedIn: BrowserContext): Promise<BrowserContext> => {
  const context = await browser.newContext({ viewport: VIEWPORT })
  await context.addCookies(await signedIn.cookies())
  return context
}
