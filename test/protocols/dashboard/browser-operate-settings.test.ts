/**
 * The Settings and API keys views in headless Chromium on every store
 * (docs/dashboard.md "Operating views" and "Roles"): Settings shows what the
 * admin API holds; each change made in the page is seen through the admin
 * API afterwards (and a value the schema refuses is said in words, nothing
 * changed); a key is created (shown once, and it works), revoked through the
 * confirmation (refused afterwards), and the dashboard session opened with
 * it ends at its next call. An API key's session sees Settings read-only,
 * and the server's refusal of Keys in words. axe-core finds nothing serious
 * on either view; no console error but the refusals the tests cause;
 * screenshots test-results/dashboard/settings.png and keys.png at 1280 px.
 */
import { mkdirSync } from "node:fs"
import * as path from "node:path"
import type { Browser, BrowserContext, Page } from "playwright-core"
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest"
import { asProject } from "../../support/helpers.js"
import {
  ADMIN_TOKEN,
  admin,
  asUser,
  createProject,
  type Gateway,
  NOW,
  stores,
  useGateway
} from "../../support/layers.js"
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
  textOf,
  WIDE
} from "./browser-support.js"

const available = chromiumAvailable("test/protocols/dashboard/browser-operate-settings.test.ts")

const ISSUER = {
  issuer: "https://auth.example.com/",
  jwks_url: "https://auth.example.com/.well-known/jwks.json",
  audience: "travel-assistant",
  user_claim: "uid",
  workspace_claim: "org_id"
}

/** The operating views a key's session is not offered. */
const ADMIN_ONLY = ["Keys", "Alerts", "Evaluators", "Webhooks", "Erasure", "Jobs"]

/** The status message (an ActionResult's "done") that says `text`. */
const said = (page: Page, text: string | RegExp) => shown(page.getByRole("status").filter({ hasText: text }))

/** The alert (a refusal in words) that says `text`. */
const refused = (page: Page, text: string | RegExp) => shown(page.getByRole("alert").filter({ hasText: text }))

describe.skipIf(!available).each(stores)("Settings and API keys in Chromium ($name)", (storeUnderTest) => {
  // Keys are not cached, so that a revoked key is refused at once.
  const handle = useGateway(storeUnderTest, { API_KEY_CACHE_MS: "0" })
  let gateway: Gateway
  let browser: Browser
  let operator: BrowserContext
  const errors: Array<string> = []
  const adminCall = (method: string, apiPath: string, body?: unknown) => admin(gateway)(method, apiPath, body)
  const adminSettings = async (projectId: string) => {
    const reply = await adminCall("GET", `/projects/${projectId}/settings`)
    expect(reply.status, reply.text).toBe(200)
    return reply.body
  }
  const view = (projectId: string, section: string) => `${gateway.baseUrl}/dashboard/projects/${projectId}/${section}`
  const open = async (context: BrowserContext, projectId: string, section: string, into = errors): Promise<Page> => {
    const page = await context.newPage()
    collectErrors(page, into)
    await page.goto(view(projectId, section))
    return page
  }
  /** axe at 1280 px; then at 390 px nothing but a scrolling box is wider than the screen (the size put back after). */
  const check = async (page: Page, name: string) => {
    await settled(page)
    expect(await seriousViolations(page), `axe on ${name}`).toEqual([])
    const overflow = await narrowOverflow(page)
    await page.screenshot({ path: path.join(SHOTS, `${name.replace(/\W+/g, "-")}-390.png`), fullPage: true })
    await page.setViewportSize(WIDE)
    expectNarrowFits(overflow, name)
  }

  beforeAll(async () => {
    gateway = handle.current
    mkdirSync(SHOTS, { recursive: true })
    browser = await launchChromium()
    operator = await signedInContext(browser, gateway, ADMIN_TOKEN, WIDE)
    await operator.grantPermissions(["clipboard-read", "clipboard-write"], { origin: gateway.baseUrl })
  })
  afterEach(async () => {
    await Promise.all(browser.contexts().map(closePages))
    expect(errors.splice(0), "console errors and page errors").toEqual([])
  })
  afterAll(async () => {
    await browser?.close()
  })

  it("Settings shows what the admin API holds, a shorter retention's start included", async () => {
    const project = await createProject(gateway, "Held settings")
    const base = `/projects/${project.project_id}`
    for (const [apiPath, body] of [
      ["/plan", { plan: "startup" }],
      ["/retention", { days: 90 }],
      ["/origins", { origins: ["https://app.example.com", "http://localhost:5173"] }],
      ["/topic-ceiling", { value: 25 }],
      ["/test-users", { prefixes: ["qa-", "test_"] }],
      ["/issuer", ISSUER]
    ] as const) {
      const reply = await adminCall("PUT", `${base}${apiPath}`, body)
      expect(reply.status, `${apiPath} ${reply.text}`).toBe(200)
    }
    const sdk = await asUser(
      gateway,
      project.api_key,
      "u",
      "w"
    )("POST", "/threads", {
      body: { last_message_at: NOW },
      headers: { "svc-sdk": "svc-client/0.2.1 my-app/1.4.0" }
    })
    expect(sdk.status, sdk.text).toBe(201)
    let clients: Array<{ name: string; version: string; last_seen_at: string }> = []
    for (let i = 0; i < 50 && clients.length < 2; i++) {
      clients = (await adminCall("GET", `${base}/sdk-clients`)).body.clients
      if (clients.length < 2) await new Promise((resolve) => setTimeout(resolve, 50))
    }
    expect(clients).toHaveLength(2)
    const held = await adminSettings(project.project_id)
    // Forever to 90 days is shorter: it waits, and forever holds until then.
    expect(held.retention).toMatchObject({ days: 90, effective_days: null, effective_at: expect.any(String) })

    const page = await open(operator, project.project_id, "settings")
    await shown(page.getByRole("heading", { name: "Settings", level: 1 }))
    await shown(page.getByLabel("Plan"))
    expect(await page.getByLabel("Plan").inputValue()).toBe(held.plan)
    expect(await page.getByLabel("Retention").inputValue()).toBe("90")
    const retention = page.locator(".retention-now")
    expect(await textOf(retention)).toMatch(
      /^Set to 90 days, which takes effect .+; until then data is kept forever\.$/
    )
    expect(await retention.locator("time").getAttribute("datetime")).toBe(held.retention.effective_at)
    expect((await page.getByLabel("Allowed origins").inputValue()).split("\n")).toEqual(held.origins)
    expect(await page.getByLabel("Topic ceiling").inputValue()).toBe(String(held.topic_ceiling))
    expect((await page.getByLabel("Test user prefixes").inputValue()).split("\n")).toEqual(held.test_user_prefixes)
    expect(held.issuer).toEqual(ISSUER)
    expect(await page.getByLabel("Issuer", { exact: true }).inputValue()).toBe(ISSUER.issuer)
    expect(await page.getByLabel("JWKS URL").inputValue()).toBe(ISSUER.jwks_url)
    expect(await page.getByLabel("Audience").inputValue()).toBe(ISSUER.audience)
    expect(await page.getByLabel("User claim").inputValue()).toBe(ISSUER.user_claim)
    expect(await page.getByLabel("Workspace claim").inputValue()).toBe(ISSUER.workspace_claim)
    await shown(page.getByRole("button", { name: "Remove issuer" }))

    const table = page.getByRole("table", { name: "SDK clients" })
    await shown(table)
    const rows = await table.locator("tbody tr").all()
    const shownClients = await Promise.all(
      rows.map(async (row) => {
        const cells = (await row.getByRole("cell").allTextContents()).map((text) => text.trim())
        const lastSeen = await row.locator("td:nth-child(4) time").getAttribute("datetime")
        return { name: cells[0], version: cells[1], last_seen_at: lastSeen }
      })
    )
    expect(shownClients.sort((a, b) => String(a.name).localeCompare(String(b.name)))).toEqual(
      clients
        .map(({ name, version, last_seen_at }) => ({ name, version, last_seen_at }))
        .sort((a, b) => a.name.localeCompare(b.name))
    )
    await check(page, "settings")
    await page.screenshot({ path: path.join(SHOTS, "settings.png"), fullPage: true })
  })

  it("each setting changed in the page is seen through the admin API; a refused value changes nothing", async () => {
    const project = await createProject(gateway, "Changed settings")
    const base = `/projects/${project.project_id}`
    const page = await open(operator, project.project_id, "settings")
    await shown(page.getByLabel("Retention"))

    // Retention: forever to 30 days is shorter, so it waits; the page says when.
    await page.getByLabel("Retention").selectOption({ label: "30 days" })
    await page.getByRole("button", { name: "Save", exact: true }).click()
    await said(page, "Retention set to 30 days")
    const retention = (await adminSettings(project.project_id)).retention
    expect(retention).toMatchObject({ days: 30, effective_days: null })
    await shown(page.locator(".retention-now").filter({ hasText: "Set to 30 days" }))
    expect(await page.locator(".retention-now time").getAttribute("datetime")).toBe(retention.effective_at)
    // Back to forever: longer, so at once.
    await page.getByLabel("Retention").selectOption({ label: "Forever" })
    await page.getByRole("button", { name: "Save", exact: true }).click()
    await said(page, "Retention set to forever.")
    expect((await adminSettings(project.project_id)).retention).toEqual({
      days: null,
      effective_days: null,
      effective_at: expect.any(String)
    })
    await shown(page.locator(".retention-now").filter({ hasText: "Data is kept forever." }))

    // Origins: one a line, blank lines and spaces left out; one the schema refuses says so and changes nothing.
    await page.getByLabel("Allowed origins").fill("https://app.example.com\n\n  http://localhost:5173  \n")
    await page.getByRole("button", { name: "Save origins" }).click()
    await said(page, "Allowed origins saved (2).")
    expect((await adminSettings(project.project_id)).origins.sort()).toEqual([
      "http://localhost:5173",
      "https://app.example.com"
    ])
    await page.getByLabel("Allowed origins").fill("https://app.example.com\nHTTPS://Shouting.example.com/path")
    await page.getByRole("button", { name: "Save origins" }).click()
    await refused(page, '"HTTPS://Shouting.example.com/path": an origin is scheme://host[:port] in lower case')
    expect((await adminSettings(project.project_id)).origins).toHaveLength(2)

    // Topic ceiling, and one out of range.
    await page.getByLabel("Topic ceiling").fill("20")
    await page.getByRole("button", { name: "Save topic ceiling" }).click()
    await said(page, "The topic ceiling is now 20.")
    expect((await adminSettings(project.project_id)).topic_ceiling).toBe(20)
    await page.getByLabel("Topic ceiling").fill("61")
    await page.getByRole("button", { name: "Save topic ceiling" }).click()
    await refused(page, "the topic ceiling is a whole number from 10 to 60")
    expect((await adminSettings(project.project_id)).topic_ceiling).toBe(20)

    // Plan.
    await page.getByLabel("Plan").selectOption("pro")
    await page.getByRole("button", { name: "Save plan" }).click()
    await said(page, "The plan is now Pro.")
    expect((await adminSettings(project.project_id)).plan).toBe("pro")

    // Test user prefixes.
    await page.getByLabel("Test user prefixes").fill("qa-\ntest_")
    await page.getByRole("button", { name: "Save test user prefixes" }).click()
    await said(page, "Test user prefixes saved (2).")
    expect((await adminSettings(project.project_id)).test_user_prefixes.sort()).toEqual(["qa-", "test_"])

    // Issuer: saved, then removed through the confirmation.
    await expect(page.getByRole("button", { name: "Remove issuer" }).count()).resolves.toBe(0)
    await page.getByLabel("Issuer", { exact: true }).fill(ISSUER.issuer)
    await page.getByLabel("JWKS URL").fill(ISSUER.jwks_url)
    await page.getByLabel("Audience").fill(ISSUER.audience)
    await page.getByLabel("User claim").fill(ISSUER.user_claim)
    await page.getByLabel("Workspace claim").fill(ISSUER.workspace_claim)
    await page.getByRole("button", { name: "Save issuer" }).click()
    await said(page, `Tokens from ${ISSUER.issuer} are accepted now.`)
    const issuer = await adminCall("GET", `${base}/issuer`)
    expect(issuer.status, issuer.text).toBe(200)
    expect(issuer.body).toEqual(ISSUER)

    await page.getByRole("button", { name: "Remove issuer" }).click()
    const dialog = page.getByRole("dialog", { name: "Remove issuer" })
    await shown(dialog)
    expect(await seriousViolations(page), "axe with the dialog open").toEqual([])
    await dialog.getByRole("button", { name: "Remove" }).click()
    await said(page, "The issuer is removed.")
    expect((await adminCall("GET", `${base}/issuer`)).status).toBe(404)
    expect((await adminSettings(project.project_id)).issuer).toBeNull()
    await page.getByRole("button", { name: "Remove issuer" }).waitFor({ state: "detached" })
    expect(await page.getByLabel("Issuer", { exact: true }).inputValue()).toBe("")

    // What the page shows now is what the admin API holds.
    const held = await adminSettings(project.project_id)
    await page.reload()
    await shown(page.getByLabel("Plan"))
    expect(await page.getByLabel("Plan").inputValue()).toBe(held.plan)
    expect(await page.getByLabel("Topic ceiling").inputValue()).toBe(String(held.topic_ceiling))
    expect((await page.getByLabel("Allowed origins").inputValue()).split("\n")).toEqual(held.origins)
    await check(page, "settings after changes")
  })

  it("a key created in the page is shown once and works; revoked through the confirmation it is refused, and its session ends", async () => {
    const project = await createProject(gateway, "Keys")
    const base = `/projects/${project.project_id}`
    const page = await open(operator, project.project_id, "keys")
    await shown(page.getByRole("heading", { name: "API keys", level: 1 }))
    const table = page.getByRole("table", { name: "API keys" })
    await shown(table)
    // The project's first key, as the admin API lists it.
    const [first] = (await adminCall("GET", `${base}/api-keys`)).body.api_keys
    expect(await table.locator("tbody tr").count()).toBe(1)
    await shown(table.getByRole("cell", { name: first.prefix }))

    await page.getByLabel("Name").fill("ci-key")
    await page.getByLabel("Expires").selectOption({ label: "30 days" })
    await page.getByRole("button", { name: "Create key" }).click()
    const secret = page.getByRole("region", { name: "New API key" })
    await shown(secret)
    await shown(secret.getByRole("button", { name: "Copy key" }))
    const apiKey = await textOf(secret.locator("code"))
    await secret.getByRole("button", { name: "Copy key" }).click()
    await shown(secret.getByRole("status").filter({ hasText: "Copied." }))
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(apiKey)
    const listed = (await adminCall("GET", `${base}/api-keys`)).body.api_keys as Array<{
      key_id: string
      name: string | null
      prefix: string
      expires_at: string | null
      revoked_at: string | null
    }>
    const made = listed.find((key) => key.name === "ci-key")
    expect(made).toMatchObject({ revoked_at: null, expires_at: expect.any(String) })
    expect(apiKey.startsWith(made?.prefix ?? "?")).toBe(true)
    const days = (Date.parse(made?.expires_at ?? "") - Date.now()) / 86_400_000
    expect(days).toBeGreaterThan(29.9)
    expect(days).toBeLessThan(30.1)
    // The key works, and the list shows it.
    expect((await asProject(gateway, apiKey)("/threads")).status).toBe(200)
    const row = table.getByRole("row").filter({ hasText: "ci-key" })
    await shown(row)
    expect(await row.locator("time").first().getAttribute("datetime")).not.toBeNull()
    await check(page, "keys")
    await page.screenshot({ path: path.join(SHOTS, "keys.png"), fullPage: true })

    // Shown once: not after a reload.
    await page.reload()
    await shown(table)
    await shown(table.getByRole("row").filter({ hasText: "ci-key" }))
    expect(await page.getByRole("region", { name: "New API key" }).count()).toBe(0)
    expect(await page.content()).not.toContain(apiKey)

    // A dashboard session opened with the new key, on its Settings.
    const keyErrors: Array<string> = []
    const keyContext = await signedInContext(browser, gateway, apiKey)
    try {
      const keyPage = await open(keyContext, project.project_id, "settings", keyErrors)
      await shown(keyPage.getByRole("heading", { name: "Settings", level: 1 }))
      await shown(keyPage.getByRole("heading", { name: "Plan" }))

      // Revoked through the dialog.
      await page.getByRole("button", { name: "Revoke ci-key" }).click()
      const dialog = page.getByRole("dialog", { name: "Revoke key" })
      await shown(dialog)
      await shown(dialog.getByRole("button", { name: "Cancel" }))
      expect(await seriousViolations(page), "axe with the dialog open").toEqual([])
      await dialog.getByRole("button", { name: "Revoke", exact: true }).click()
      await said(page, "Key ci-key revoked")
      const after = (await adminCall("GET", `${base}/api-keys`)).body.api_keys as typeof listed
      expect(after.find((key) => key.key_id === made?.key_id)?.revoked_at).toEqual(expect.any(String))
      expect(after.find((key) => key.key_id === first.key_id)?.revoked_at).toBeNull()
      expect((await asProject(gateway, apiKey)("/threads")).status).toBe(401)
      expect((await asProject(gateway, project.api_key)("/threads")).status).toBe(200)
      await page.getByRole("button", { name: "Revoke ci-key" }).waitFor({ state: "detached" })
      await shown(table.getByRole("row").filter({ hasText: "ci-key" }).getByText("Revoked"))

      // The key's page: its next call answers 401, and the sign-in form shows.
      await keyPage.getByRole("navigation", { name: "Sections" }).getByRole("link", { name: "Threads" }).click()
      await shown(keyPage.getByLabel("Token", { exact: true }))
      await shown(keyPage.getByText("Your session has ended. Sign in again."))
      expect(keyErrors).toEqual([expect.stringMatching(/status of 401 .*\/v1\/dashboard\/projects\/.*\/threads/)])
    } finally {
      await keyContext.close()
    }
  })

  it("an API key's session: Settings read-only, the admin's views not offered, Keys refused in words", async () => {
    const project = await createProject(gateway, "Key session")
    const base = `/projects/${project.project_id}`
    expect((await adminCall("PUT", `${base}/origins`, { origins: ["https://app.example.com"] })).status).toBe(200)
    expect((await adminCall("PUT", `${base}/test-users`, { prefixes: ["qa-"] })).status).toBe(200)
    expect((await adminCall("PUT", `${base}/issuer`, ISSUER)).status).toBe(200)
    expect((await adminCall("PUT", `${base}/retention`, { days: 60 })).status).toBe(200)
    const held = await adminSettings(project.project_id)
    const keyErrors: Array<string> = []
    const keyContext = await signedInContext(browser, gateway, project.api_key)
    try {
      const page = await open(keyContext, project.project_id, "settings", keyErrors)
      await shown(page.getByRole("heading", { name: "Settings", level: 1 }))
      await shown(page.getByRole("heading", { name: "Plan" }))
      const nav = page.getByRole("navigation", { name: "Sections" })
      await shown(nav.getByRole("link", { name: "Settings" }))
      for (const name of ADMIN_ONLY) expect(await nav.getByRole("link", { name }).count(), name).toBe(0)

      // Read-only: the values as text, no form control, no save.
      const main = page.locator("main")
      expect(await main.getByRole("button").count()).toBe(0)
      for (const role of ["textbox", "combobox", "spinbutton", "listbox"] as const) {
        expect(await main.getByRole(role).count(), role).toBe(0)
      }
      const section = (name: string) =>
        page.locator("section.setting").filter({ has: page.getByRole("heading", { name, exact: true }) })
      expect(await textOf(section("Plan").locator("p"))).toBe("Hobby")
      expect(held.plan).toBe("hobby")
      expect(await textOf(section("Retention").locator(".retention-now"))).toMatch(
        /^Set to 60 days, which takes effect .+; until then data is kept forever\.$/
      )
      expect(await section("Allowed origins").locator("li").allTextContents()).toEqual(held.origins)
      expect(await textOf(section("Topic ceiling").locator("p"))).toBe(String(held.topic_ceiling))
      expect(await section("Test user prefixes").locator("li").allTextContents()).toEqual(held.test_user_prefixes)
      const issuer = section("Issuer")
      for (const value of Object.values(ISSUER)) await shown(issuer.getByText(value, { exact: true }))
      await check(page, "settings (key session)")
      await page.screenshot({ path: path.join(SHOTS, "settings-key-session.png"), fullPage: true })

      // Keys, opened directly: what the session may not do, said, and nothing asked (the gateway would answer 403).
      const asked: Array<string> = []
      page.on("request", (request) => asked.push(request.url()))
      await page.goto(view(project.project_id, "keys"))
      await shown(page.getByRole("heading", { name: "API keys", level: 1 }))
      await shown(page.getByText("API keys is for an admin session"))
      expect(asked.filter((url) => url.includes("/api-keys"))).toEqual([])
      expect(await page.getByRole("button", { name: "Create key" }).count()).toBe(0)
      expect(await page.getByRole("table").count()).toBe(0)
      await check(page, "keys (key session)")
      expect(keyErrors).toEqual([])
    } finally {
      await keyContext.close()
    }
  })
})
