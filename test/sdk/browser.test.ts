/**
 * svc-client in real headless Chromium against a gateway (issue 13;
 * docs/client-library.md "Three modes"): localStorage, Web
 * Locks, pagehide, visibilitychange and keepalive as a browser does them.
 * The page is served from an origin of its own and calls the gateway through
 * a recording proxy, so CORS is the gateway's and every request the browser
 * sent is seen, even one that outlives its page. One browser for the file,
 * one context (fresh storage) per test, one project per test. The embedded
 * store only: what is tested is the browser's side.
 *
 * Without /usr/bin/chromium the suite skips and says so; under CI=true a
 * missing browser fails.
 */
import type { Browser, BrowserContext, Page } from "playwright-core"
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest"
import { pglite, useGateway } from "../support/layers.js"
import {
  browserProject,
  browserSupport,
  bundleClient,
  CHROMIUM,
  hideListeners,
  launchChromium,
  openApp,
  type RecordingProxy,
  requestsTo,
  type StaticSite,
  startRecordingProxy,
  startStaticSite,
  until
} from "./browser-helpers.js"

const support = browserSupport()
const SCOPED = "svc:refresh_token:"
const LEGACY = "svc:refresh_token"
const LOCK = "svc-client:anonymous-auth:"

if (!support.available) {
  if (support.required)
    describe("svc-client in headless Chromium", () => {
      it("needs Chromium under CI", () => {
        throw new Error(`${CHROMIUM} is missing, and CI=true requires the browser tests (.ci/run installs chromium)`)
      })
    })
  else
    console.warn(
      `test/sdk/browser.test.ts: skipped, ${CHROMIUM} is missing (apt-get install chromium); under CI=true this fails`
    )
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/** Closes the tab as a user does (beforeunload, pagehide, unload); playwright does not wait for that close. */
const closeWithUnload = async (page: Page) => {
  const closed = page.waitForEvent("close")
  await page.close({ runBeforeUnload: true })
  await closed
}

describe.skipIf(!support.available)("svc-client in headless Chromium", () => {
  const handle = useGateway(pglite)
  let browser: Browser
  let site: StaticSite
  let proxy: RecordingProxy
  const contexts: Array<BrowserContext> = []

  beforeAll(async () => {
    const [bundle, launched] = await Promise.all([bundleClient(), launchChromium()])
    browser = launched
    site = await startStaticSite(bundle)
    proxy = await startRecordingProxy(handle.current)
  })

  afterAll(async () => {
    await browser?.close()
    await site?.close()
    await proxy?.close()
  })

  afterEach(async () => {
    proxy.before = () => undefined
    await Promise.all(contexts.splice(0).map((context) => context.close()))
  })

  /** A fresh context (its own storage and locks, as a browser profile) and a project for this test. */
  const setup = async (name: string) => {
    const context = await browser.newContext()
    contexts.push(context)
    const project = await browserProject(handle.current, proxy, site.origin, name)
    const page = await context.newPage()
    await openApp(page, site)
    return { context, page, ...project }
  }

  /** The project's frontend requests the proxy saw to `suffix`. */
  const sent = (projectId: string, suffix: string, method = "POST") =>
    requestsTo(proxy, suffix, method).filter((request) => request.path.startsWith(`/p/${projectId}/`))

  const anonymousUsers = async (projectId: string) =>
    Number(
      (
        await handle.current.sql<{ n: number | string }>(
          "SELECT count(DISTINCT user_id) AS n FROM refresh_tokens WHERE project_id = $1",
          [projectId]
        )
      )[0]?.n
    )

  const storedEvents = (projectId: string) =>
    handle.current.sql<{ kind: string; thread_id: string | null; value: number | string | null }>(
      "SELECT kind, thread_id, value FROM events WHERE project_id = $1 ORDER BY kind",
      [projectId]
    )

  /** An anonymous client on `window.cloud`, signed in by making a thread (so a flush needs no token request). */
  const signedIn = (page: Page, baseUrl: string): Promise<string> =>
    page.evaluate(async (baseUrl) => {
      const w = window as any
      w.cloud = new w.svc.AssistantCloud({ baseUrl, anonymous: true })
      return (await w.cloud.threads.create({ last_message_at: new Date() })).thread_id as string
    }, baseUrl)

  it("an anonymous session survives a reload: same user, through the refresh route", async () => {
    const { page, projectId, baseUrl } = await setup("reload")
    const first = await page.evaluate(
      async ({ baseUrl, key }) => {
        const svc = (window as any).svc
        const cloud = new svc.AssistantCloud({ baseUrl, anonymous: true })
        const { thread_id } = await cloud.threads.create({ last_message_at: new Date(), title: "kept" })
        return {
          threadId: thread_id as string,
          stored: localStorage.getItem(key),
          read: svc.readAnonymousRefreshToken(baseUrl) as string | null,
          readWithSlash: svc.readAnonymousRefreshToken(`${baseUrl}/`) as string | null,
          keys: Object.keys(localStorage)
        }
      },
      { baseUrl, key: SCOPED + baseUrl }
    )
    expect(first.keys).toEqual([SCOPED + baseUrl])
    const record = JSON.parse(first.stored ?? "null")
    expect(Object.keys(record).sort()).toEqual(["expires_at", "token"])
    expect(record.token).toMatch(/^rt_/)
    expect((Date.parse(record.expires_at) - Date.now()) / 86_400_000).toBeGreaterThan(29.9)
    expect(first.read).toBe(record.token)
    expect(first.readWithSlash).toBe(record.token)
    expect(sent(projectId, "/v1/auth/tokens/anonymous")).toHaveLength(1)
    expect(sent(projectId, "/v1/auth/tokens/refresh")).toHaveLength(0)

    await page.reload()
    await page.waitForFunction(() => (window as any).svc !== undefined)
    const after = await page.evaluate(async (baseUrl) => {
      const svc = (window as any).svc
      const read = svc.readAnonymousRefreshToken(baseUrl) as string | null
      const { threads } = await new svc.AssistantCloud({ baseUrl, anonymous: true }).threads.list()
      return { read, threads: threads.map((thread: any) => ({ id: thread.id, title: thread.title })) }
    }, baseUrl)
    expect(after.read).toBe(record.token)
    expect(after.threads).toEqual([{ id: first.threadId, title: "kept" }])
    expect(sent(projectId, "/v1/auth/tokens/anonymous")).toHaveLength(1)
    const refreshes = sent(projectId, "/v1/auth/tokens/refresh")
    expect(refreshes).toHaveLength(1)
    expect(JSON.parse(refreshes[0]?.body ?? "{}")).toEqual({ refresh_token: record.token })
    expect(await anonymousUsers(projectId)).toBe(1)
  })

  it("the legacy key svc:refresh_token moves to the scoped key once", async () => {
    const { page, projectId, baseUrl } = await setup("legacy")
    // A session made outside the page, as an older client would have stored it, with a thread of its own.
    const session = await (await fetch(`${baseUrl}/v1/auth/tokens/anonymous`, { method: "POST" })).json()
    const made = await fetch(`${baseUrl}/v1/threads`, {
      method: "POST",
      headers: { authorization: `Bearer ${session.access_token}`, "content-type": "application/json" },
      body: JSON.stringify({ last_message_at: new Date().toISOString(), title: "from the legacy session" })
    })
    expect(made.status).toBe(201)
    const { thread_id } = await made.json()

    const migrated = await page.evaluate(
      async ({ baseUrl, legacy, record }) => {
        const svc = (window as any).svc
        localStorage.setItem(legacy, JSON.stringify(record))
        const { threads } = await new svc.AssistantCloud({ baseUrl, anonymous: true }).threads.list()
        return {
          ids: threads.map((thread: any) => thread.id as string),
          storage: Object.fromEntries(Object.keys(localStorage).map((key) => [key, localStorage.getItem(key)]))
        }
      },
      { baseUrl, legacy: LEGACY, record: session.refresh_token }
    )
    expect(migrated.ids).toEqual([thread_id])
    expect(Object.keys(migrated.storage)).toEqual([SCOPED + baseUrl])
    expect(JSON.parse(migrated.storage[SCOPED + baseUrl] ?? "null").token).toBe(session.refresh_token.token)
    expect(sent(projectId, "/v1/auth/tokens/anonymous")).toHaveLength(1) // the test's own, above
    expect(sent(projectId, "/v1/auth/tokens/refresh").map((request) => JSON.parse(request.body))).toEqual([
      { refresh_token: session.refresh_token.token }
    ])

    // Once: with the scoped key present, a legacy record is neither read nor moved.
    await page.reload()
    await page.waitForFunction(() => (window as any).svc !== undefined)
    const again = await page.evaluate(
      async ({ baseUrl, legacy }) => {
        const svc = (window as any).svc
        const other = JSON.stringify({ token: "rt_someone_else", expires_at: "2099-01-01T00:00:00.000Z" })
        localStorage.setItem(legacy, other)
        const { threads } = await new svc.AssistantCloud({ baseUrl, anonymous: true }).threads.list()
        return {
          ids: threads.map((thread: any) => thread.id as string),
          legacy: localStorage.getItem(legacy) === other
        }
      },
      { baseUrl, legacy: LEGACY }
    )
    expect(again).toEqual({ ids: [thread_id], legacy: true })
    expect(sent(projectId, "/v1/auth/tokens/refresh").map((request) => JSON.parse(request.body).refresh_token)).toEqual(
      [session.refresh_token.token, session.refresh_token.token]
    )
    expect(await anonymousUsers(projectId)).toBe(1)
  })

  /** Starts, in `page`, a client that makes a thread; its outcome is on `window.started`. */
  const startTab = (page: Page, baseUrl: string) =>
    page.evaluate((baseUrl) => {
      const w = window as any
      const cloud = new w.svc.AssistantCloud({ baseUrl, anonymous: true })
      w.cloud = cloud
      w.started = cloud.threads.create({ last_message_at: new Date() }).then(
        (answer: any) => answer.thread_id as string,
        (error: any) => `failed: ${error}`
      )
    }, baseUrl)

  /** Holds every anonymous token request at the proxy until `release()`. */
  const holdAnonymous = () => {
    let release = () => {}
    const released = new Promise<void>((resolve) => {
      release = resolve
    })
    proxy.before = (request) => (request.path.endsWith("/v1/auth/tokens/anonymous") ? released : undefined)
    return release
  }

  it("Web Locks: two tabs starting with no stored token make one anonymous session between them", async () => {
    const { context, page: first, projectId, baseUrl } = await setup("locks")
    const second = await context.newPage()
    await openApp(second, site)
    const release = holdAnonymous()
    try {
      await startTab(first, baseUrl)
      await until(
        () => sent(projectId, "/v1/auth/tokens/anonymous").length,
        (n) => n === 1
      )
      await startTab(second, baseUrl)
      // The first tab holds the lock over its token request; the second waits for it.
      const locks = await until(
        () => second.evaluate(() => navigator.locks.query()),
        (state) => (state.pending ?? []).length === 1
      )
      expect(locks.held?.map((lock) => lock.name)).toEqual([LOCK + baseUrl])
      expect(locks.pending?.map((lock) => lock.name)).toEqual([LOCK + baseUrl])
    } finally {
      release()
    }
    const threads = await Promise.all([first, second].map((page) => page.evaluate(() => (window as any).started)))
    expect(
      threads.every((id) => typeof id === "string" && id.startsWith("thread_")),
      String(threads)
    ).toBe(true)
    expect(sent(projectId, "/v1/auth/tokens/anonymous")).toHaveLength(1)
    expect(sent(projectId, "/v1/auth/tokens/refresh")).toHaveLength(1)
    expect(await anonymousUsers(projectId)).toBe(1)
    // One user: each tab sees both threads.
    const listed = await first.evaluate(async () =>
      (await (window as any).cloud.threads.list()).threads.map((thread: any) => thread.id as string)
    )
    expect([...listed].sort()).toEqual([...threads].sort())
    expect((await second.evaluate(() => navigator.locks.query())).held).toEqual([])
  })

  it("without Web Locks the same two tabs make two sessions (what the lock prevents)", async () => {
    const { context, page: first, projectId, baseUrl } = await setup("no-locks")
    await context.addInitScript(() => {
      Object.defineProperty(Navigator.prototype, "locks", { configurable: true, get: () => undefined })
    })
    await first.reload()
    await first.waitForFunction(() => (window as any).svc !== undefined && navigator.locks === undefined)
    const second = await context.newPage()
    await openApp(second, site)
    const release = holdAnonymous()
    try {
      await startTab(first, baseUrl)
      await until(
        () => sent(projectId, "/v1/auth/tokens/anonymous").length,
        (n) => n === 1
      )
      await startTab(second, baseUrl)
      await until(
        () => sent(projectId, "/v1/auth/tokens/anonymous").length,
        (n) => n === 2
      )
    } finally {
      release()
    }
    await Promise.all([first, second].map((page) => page.evaluate(() => (window as any).started)))
    expect(sent(projectId, "/v1/auth/tokens/anonymous")).toHaveLength(2)
    expect(await anonymousUsers(projectId)).toBe(2)
  })

  const THREE_EVENTS = (threadId: string) => [
    { kind: "message_copied", thread_id: threadId },
    { kind: "suggestions_shown", value: 3, props: { surface: "composer" } },
    { kind: "message_sent", thread_id: threadId }
  ]

  const expectThreeStored = async (projectId: string, threadId: string) => {
    const rows = await until(
      () => storedEvents(projectId),
      (rows) => rows.length >= 3
    )
    expect(rows.map((row) => ({ ...row, value: row.value === null ? null : Number(row.value) }))).toEqual([
      { kind: "message_copied", thread_id: threadId, value: null },
      { kind: "message_sent", thread_id: threadId, value: null },
      { kind: "suggestions_shown", thread_id: null, value: 3 }
    ])
  }

  it("events buffered before the page closes reach the server (pagehide, keepalive)", async () => {
    const { page, projectId, baseUrl } = await setup("pagehide")
    const threadId = await signedIn(page, baseUrl)
    // Closing a tab also makes its document hidden (visibilitychange, before pagehide); that event is
    // kept from the client here, so the pagehide listener alone must deliver.
    await page.evaluate(() => {
      window.addEventListener("visibilitychange", (event) => event.stopImmediatePropagation(), true)
    })
    // The preflight of the events request answers late: only a keepalive request outlives its page.
    proxy.before = (request) =>
      request.method === "OPTIONS" && request.path.endsWith("/v1/events") ? sleep(300) : undefined
    const trackedAt = Date.now()
    await page.evaluate((events) => {
      for (const event of events) (window as any).cloud.events.track(event)
    }, THREE_EVENTS(threadId))
    await closeWithUnload(page)

    await expectThreeStored(projectId, threadId)
    const posts = sent(projectId, "/v1/events")
    expect(posts).toHaveLength(1)
    expect(JSON.parse(posts[0]?.body ?? "{}")).toEqual({ events: THREE_EVENTS(threadId) })
    expect(posts[0]?.headers.origin).toBe(site.origin)
    const [preflight] = sent(projectId, "/v1/events", "OPTIONS")
    expect(preflight).toBeDefined()
    // Sent on the hide, not by the 2 s timer (which died with the page), and after the late preflight.
    expect((posts[0]?.at ?? 0) - trackedAt).toBeLessThan(2_000)
    expect(posts[0]?.at ?? 0).toBeGreaterThanOrEqual((preflight?.at ?? Infinity) + 290)
  })

  it("events buffered before the document becomes hidden reach the server, with keepalive; then the listeners go", async () => {
    const { context, page, projectId, baseUrl } = await setup("visibility")
    const threadId = await signedIn(page, baseUrl)
    const cdp = await context.newCDPSession(page)
    // What the client hands to fetch (its init's keepalive), seen from the page.
    await page.evaluate(() => {
      const w = window as any
      const real = window.fetch.bind(window)
      w.fetches = []
      window.fetch = (input: RequestInfo | URL, init?: RequestInit) => {
        w.fetches.push({ url: String(input), keepalive: init?.keepalive === true })
        return real(input, init)
      }
    })
    expect(await hideListeners(cdp)).toEqual({ pagehide: 0, visibilitychange: 0 })
    const trackedAt = Date.now()
    await page.evaluate((events) => {
      for (const event of events) (window as any).cloud.events.track(event)
    }, THREE_EVENTS(threadId))
    expect(await hideListeners(cdp)).toEqual({ pagehide: 1, visibilitychange: 1 })
    expect(sent(projectId, "/v1/events")).toHaveLength(0)

    // Headless Chromium keeps a page visible (another tab in front, a minimized window), so the
    // document is made hidden as a browser would report it.
    await page.evaluate(() => {
      Object.defineProperty(document, "visibilityState", { configurable: true, get: () => "hidden" })
      Object.defineProperty(document, "hidden", { configurable: true, get: () => true })
      document.dispatchEvent(new Event("visibilitychange"))
    })
    await expectThreeStored(projectId, threadId)
    const posts = sent(projectId, "/v1/events")
    expect(posts).toHaveLength(1)
    expect(JSON.parse(posts[0]?.body ?? "{}")).toEqual({ events: THREE_EVENTS(threadId) })
    expect((posts[0]?.at ?? Infinity) - trackedAt).toBeLessThan(1_500)
    const fetches: Array<{ url: string; keepalive: boolean }> = await page.evaluate(() => (window as any).fetches)
    expect(fetches).toEqual([{ url: `${baseUrl}/v1/events`, keepalive: true }])

    // Drained: the listeners are gone, and a later hide sends nothing.
    expect(
      await until(
        () => hideListeners(cdp),
        (listeners) => listeners.pagehide === 0 && listeners.visibilitychange === 0,
        2_000
      )
    ).toEqual({ pagehide: 0, visibilitychange: 0 })
    await page.goto(`${site.origin}/other`)
    await sleep(300)
    expect(sent(projectId, "/v1/events")).toHaveLength(1)
  })

  it("after the 2 s flush drains the buffer, the listeners are removed and a page hide sends nothing more", async () => {
    const { context, page, projectId, baseUrl } = await setup("drain")
    const threadId = await signedIn(page, baseUrl)
    const cdp = await context.newCDPSession(page)
    const trackedAt = Date.now()
    await page.evaluate((threadId) => {
      ;(window as any).cloud.events.track({ kind: "message_copied", thread_id: threadId })
    }, threadId)
    expect(await hideListeners(cdp)).toEqual({ pagehide: 1, visibilitychange: 1 })
    const posts = await until(
      () => sent(projectId, "/v1/events"),
      (posts) => posts.length > 0,
      4_000
    )
    expect(posts).toHaveLength(1)
    expect(posts[0]?.at ?? 0).toBeGreaterThanOrEqual(trackedAt + 1_900)
    expect(
      await until(
        () => hideListeners(cdp),
        (listeners) => listeners.pagehide === 0 && listeners.visibilitychange === 0,
        2_000
      )
    ).toEqual({ pagehide: 0, visibilitychange: 0 })
    await closeWithUnload(page)
    await sleep(300)
    expect(sent(projectId, "/v1/events")).toHaveLength(1)
    expect(sent(projectId, "/v1/events", "OPTIONS")).toHaveLength(1)
    expect((await storedEvents(projectId)).map((row) => row.kind)).toEqual(["message_copied"])
  })
})
