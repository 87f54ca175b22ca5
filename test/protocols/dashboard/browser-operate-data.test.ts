/**
 * The dashboard's Webhooks, Erasure and Jobs views in headless Chromium on
 * every store (docs/dashboard.md "Operating views"), an admin session: each
 * view shows what the admin API holds, and each change made in the page is
 * seen afterwards through the admin API (or the public API, or a local
 * webhook receiver). Webhooks: the list, one created (its secret shown once
 * and verified on a real delivery), the delivery log with every attempt, its
 * status filter in the URL, a failed delivery redelivered, deletion after a
 * confirmation. Erasure: the preview's counts, the erasure only after the id
 * is typed again, the data gone and the log saying dashboard. Jobs: the list
 * and a job run from the page. Each view: no serious or critical axe-core
 * finding, no console error, a screenshot at 1280 px.
 */
import { createHash } from "node:crypto"
import { mkdirSync } from "node:fs"
import type { Browser, BrowserContext, Page } from "playwright-core"
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest"
import { asProject, newMessage, newThread, runJob } from "../../support/helpers.js"
import { ADMIN_TOKEN, admin, asUser, createProject, type Gateway, stores, useGateway } from "../../support/layers.js"
import { type Receiver, startReceiver, verifySignature } from "../../support/webhook-receiver.js"
import {
  bodyRows,
  checkView,
  chromiumAvailable,
  closePages,
  collectErrors,
  launchChromium,
  SHOTS,
  seriousViolations,
  shown,
  signedInContext,
  tableCells,
  textOf
} from "./browser-support.js"

const available = chromiumAvailable("test/protocols/dashboard/browser-operate-data.test.ts")
const HOUR = 3_600_000

interface AdminDelivery {
  readonly id: string
  readonly status: string
  readonly attempts: number
  readonly attempt_log: ReadonlyArray<{ readonly status_code: number | null; readonly error: string | null }>
}

interface AdminJob {
  readonly name: string
  readonly runs: number
  readonly last_started_at: string | null
  readonly next_run_at: string | null
  readonly running: boolean
}

/** Waits until `check` holds (polling `read`), else fails with the last value read. */
const eventually = async <A>(read: () => Promise<A>, check: (value: A) => boolean, what: string): Promise<A> => {
  const deadline = Date.now() + 10_000
  let value = await read()
  while (!check(value) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50))
    value = await read()
  }
  if (!check(value)) throw new Error(`${what}: still ${JSON.stringify(value)}`)
  return value
}

describe.skipIf(!available).each(stores)("the dashboard's Webhooks, Erasure and Jobs ($name)", (storeUnderTest) => {
  // Jobs run only when asked (the page or the admin API); the receiver is on 127.0.0.1.
  const handle = useGateway(storeUnderTest, { JOBS_POLL_SECONDS: "0", WEBHOOK_ALLOW_PRIVATE: "true" })
  let gateway: Gateway
  let browser: Browser
  let context: BrowserContext
  let receiver: Receiver
  const errors: Array<string> = []
  const adminCall = (method: string, route: string, body?: unknown) => admin(gateway)(method, route, body)

  const open = async (projectId: string, view: string): Promise<Page> => {
    const page = await context.newPage()
    collectErrors(page, errors)
    await page.goto(`${gateway.baseUrl}/dashboard/projects/${projectId}/${view}`)
    await shown(page.getByRole("heading", { level: 1 }))
    return page
  }
  const webhooks = async (projectId: string) => {
    const reply = await adminCall("GET", `/projects/${projectId}/webhooks`)
    expect(reply.status, reply.text).toBe(200)
    return reply.body.webhooks as Array<{ id: string; url: string; events: Array<string>; created_at: string }>
  }
  const subscribe = async (projectId: string, url: string, events: ReadonlyArray<string>) => {
    const reply = await adminCall("POST", `/projects/${projectId}/webhooks`, { url, events })
    expect(reply.status, reply.text).toBe(201)
    return reply.body as { id: string; url: string; secret: string }
  }
  const deliveries = async (projectId: string, webhookId: string, status?: string) => {
    const query = status === undefined ? "" : `?status=${status}`
    const reply = await adminCall("GET", `/projects/${projectId}/webhooks/${webhookId}/deliveries${query}`)
    expect(reply.status, reply.text).toBe(200)
    return reply.body.deliveries as Array<AdminDelivery>
  }
  const jobs = async () => {
    const reply = await adminCall("GET", "/jobs")
    expect(reply.status, reply.text).toBe(200)
    return reply.body.jobs as Array<AdminJob>
  }

  beforeAll(async () => {
    gateway = handle.current
    mkdirSync(SHOTS, { recursive: true })
    receiver = await startReceiver()
    browser = await launchChromium()
    context = await signedInContext(browser, gateway, ADMIN_TOKEN)
    // A step that does not happen fails naming its locator, well inside the test's own time.
    context.setDefaultTimeout(10_000)
  })
  afterEach(async () => {
    await closePages(context)
    expect(errors.splice(0), "console errors and page errors").toEqual([])
  })
  afterAll(async () => {
    await browser?.close()
    await receiver?.close()
  })

  it("Webhooks: the list is the admin API's; one created in the page, its secret shown once and signing its deliveries", async () => {
    const project = await createProject(gateway, "Hooks")
    const pid = project.project_id
    const existingUrl = receiver.url(`/${pid}/existing`)
    await subscribe(pid, existingUrl, ["run.created", "score.created"])

    const page = await open(pid, "webhooks")
    const listed = await webhooks(pid)
    expect(await tableCells(page, "Webhooks")).toEqual(
      listed.map((hook) => [hook.url, hook.events.join(""), expect.any(String), "DeliveriesDelete"])
    )

    // Refused in words before anything goes: no event ticked.
    const createdUrl = receiver.url(`/${pid}/created`)
    await page.getByLabel("URL").fill(createdUrl)
    await page.getByRole("button", { name: "Create webhook" }).click()
    expect(await textOf(page.getByRole("alert"))).toBe("events must name at least one event type")
    expect(await webhooks(pid)).toHaveLength(1)

    await page.getByRole("checkbox", { name: "thread.created" }).check()
    await page.getByRole("button", { name: "Create webhook" }).click()
    const secretRegion = page.getByRole("region", { name: "Webhook secret" })
    const secret = await textOf(secretRegion.locator("code"))
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/)
    await shown(secretRegion.getByRole("button", { name: "Copy secret" }))
    expect(await seriousViolations(page), "axe with the secret shown").toEqual([])
    expect(await textOf(page.getByRole("status").filter({ hasText: "Created the webhook" }))).toBe(
      `Created the webhook to ${createdUrl}.`
    )

    // The admin API holds it (without the secret), and the page's table shows it.
    const after = await webhooks(pid)
    const created = after.find((hook) => hook.url === createdUrl)
    expect(created).toMatchObject({ url: createdUrl, events: ["thread.created"] })
    expect(JSON.stringify(after)).not.toContain(secret.slice(6))
    await shown(page.getByRole("link", { name: `Deliveries of ${createdUrl}` }))
    expect(await bodyRows(page, "Webhooks").count()).toBe(2)

    // The secret shown is the one that signs its deliveries.
    await newThread(asUser(gateway, project.api_key, "user_1", "ws_1"))
    expect((await runJob(gateway, "webhooks")).details.delivered).toBe(1)
    const [received] = receiver.at(`/${pid}/created`)
    expect(received).toBeDefined()
    expect(await verifySignature(secret, received ?? { path: "", headers: {}, body: "" })).toBe(true)

    // Once: a fresh load of the page does not show it.
    await page.reload()
    await shown(page.getByRole("table", { name: "Webhooks" }))
    expect(await page.getByRole("region", { name: "Webhook secret" }).count()).toBe(0)
    expect(await page.content()).not.toContain(secret)
  })

  it("Webhooks: the delivery log with every attempt, filtered by status in the URL; a failed delivery redelivered", async () => {
    const project = await createProject(gateway, "Deliveries")
    const pid = project.project_id
    const route = `/${pid}/flaky`
    const url = receiver.url(route)
    const hook = await subscribe(pid, url, ["thread.created"])
    const client = asUser(gateway, project.api_key, "user_1", "ws_1")

    // Delivered at once.
    await newThread(client)
    expect((await runJob(gateway, "webhooks")).details.delivered).toBe(1)
    // Failed: refused, then still refused past its 24 hours.
    receiver.answer(route, 500)
    await newThread(client)
    expect((await runJob(gateway, "webhooks")).details.retried).toBe(1)
    gateway.clock.advance(25 * HOUR)
    try {
      expect((await runJob(gateway, "webhooks")).details.failed).toBe(1)
    } finally {
      gateway.clock.advance(-25 * HOUR)
    }
    // Pending: refused once, its retry not due yet.
    await newThread(client)
    expect((await runJob(gateway, "webhooks")).details.retried).toBe(1)

    const all = await deliveries(pid, hook.id)
    const byStatus = (status: string) => all.filter((d) => d.status === status).map((d) => d.id)
    expect(all.map((d) => d.status).sort()).toEqual(["delivered", "failed", "pending"])
    const [failedId] = byStatus("failed")
    if (failedId === undefined) throw new Error("no failed delivery")

    const page = await open(pid, "webhooks")
    await page.getByRole("link", { name: `Deliveries of ${url}` }).click()
    await page.waitForURL((at) => at.searchParams.get("webhook") === hook.id)
    await shown(page.getByRole("table", { name: "Deliveries" }))
    // Every delivery the admin API lists, newest first, each with its attempts.
    const redeliverIds = async () =>
      Promise.all(
        (await bodyRows(page, "Deliveries").getByRole("button").all()).map(
          async (button) => (await button.getAttribute("aria-label")) ?? ""
        )
      )
    expect(await redeliverIds()).toEqual(all.map((d) => `Redeliver ${d.id}`))
    for (const delivery of all) {
      const row = bodyRows(page, "Deliveries").filter({
        has: page.getByRole("button", { name: `Redeliver ${delivery.id}`, exact: true })
      })
      const cells = (await row.getByRole("cell").allTextContents()).map((text) => text.trim())
      expect(cells[2], delivery.id).toBe(delivery.status)
      const attempts = (await row.locator("ol.attempts > li").allTextContents()).map((text) => text.trim())
      expect(attempts, delivery.id).toHaveLength(delivery.attempt_log.length)
      for (const [index, attempt] of delivery.attempt_log.entries()) {
        const said = attempts[index] ?? ""
        expect(said).toContain(attempt.status_code === null ? "no answer" : String(attempt.status_code))
        if (attempt.error !== null) expect(said).toContain(attempt.error)
        expect(said).toMatch(/\d ms$|\d s$/)
      }
    }
    await checkView(page, "webhooks")

    // The filter: in the URL, the rows those the admin API's ?status= gives.
    for (const status of ["pending", "delivered", "failed"]) {
      await page.getByLabel("Status").selectOption(status)
      await page.waitForURL((at) => at.searchParams.get("status") === status)
      const ids = (await deliveries(pid, hook.id, status)).map((d) => `Redeliver ${d.id}`)
      expect(ids).toHaveLength(1)
      await eventually(redeliverIds, (shownIds) => JSON.stringify(shownIds) === JSON.stringify(ids), status)
    }

    // Redeliver the failed one (the receiver answers again): pending at once, then delivered by the job.
    receiver.answer(route, 204)
    const sentBefore = receiver.at(route).length
    await page.getByRole("button", { name: `Redeliver ${failedId}` }).click()
    await shown(page.getByRole("status").filter({ hasText: `Delivery ${failedId} is pending again` }))
    const redelivered = (await deliveries(pid, hook.id)).find((d) => d.id === failedId)
    expect(redelivered).toMatchObject({ status: "pending", attempts: 2 })
    // The log loaded again: under "failed" it is gone.
    await page.getByText("No failed deliveries.").waitFor()
    // (The pending one may be due by now too.)
    expect((await runJob(gateway, "webhooks")).details.delivered).toBeGreaterThanOrEqual(1)
    const resent = receiver.at(route).slice(sentBefore)
    expect(resent.filter((entry) => entry.headers["webhook-id"] === failedId)).toHaveLength(1)
    const done = (await deliveries(pid, hook.id)).find((d) => d.id === failedId)
    expect(done).toMatchObject({ status: "delivered", attempts: 3 })
    expect(done?.attempt_log.map((attempt) => attempt.status_code)).toEqual([500, 500, 204])
    await page.getByLabel("Status").selectOption("delivered")
    await eventually(redeliverIds, (shownIds) => shownIds.includes(`Redeliver ${failedId}`), "delivered again")
  })

  it("Webhooks: delete asks first; Cancel keeps it, Delete removes it from the admin API", async () => {
    const project = await createProject(gateway, "Delete")
    const pid = project.project_id
    const url = receiver.url(`/${pid}/gone`)
    const keptUrl = receiver.url(`/${pid}/kept`)
    const hook = await subscribe(pid, url, ["message.created"])
    await subscribe(pid, keptUrl, ["message.created"])
    const page = await open(pid, `webhooks?webhook=${hook.id}`)
    await shown(page.getByRole("heading", { name: `Delivery log of ${url}` }))

    const dialog = page.getByRole("dialog", { name: "Delete webhook" })
    await page.getByRole("button", { name: `Delete ${url}` }).click()
    await shown(dialog)
    await dialog.getByRole("button", { name: "Cancel" }).click()
    await dialog.waitFor({ state: "hidden" })
    expect((await webhooks(pid)).map((each) => each.url).sort()).toEqual([url, keptUrl].sort())

    await page.getByRole("button", { name: `Delete ${url}` }).click()
    await shown(dialog)
    expect(await seriousViolations(page), "axe with the dialog open").toEqual([])
    await dialog.getByRole("button", { name: "Delete", exact: true }).click()
    await shown(page.getByRole("status").filter({ hasText: `Deleted the webhook to ${url}` }))
    expect((await webhooks(pid)).map((each) => each.url)).toEqual([keptUrl])
    // Its log was open: the address no longer names it.
    await page.waitForURL((at) => !at.searchParams.has("webhook"))
    await page.getByRole("link", { name: `Deliveries of ${url}` }).waitFor({ state: "detached" })
    expect(await bodyRows(page, "Webhooks").count()).toBe(1)
  })

  it("Erasure: the preview counts what the erasure deletes; it erases only once the id is typed again; the log says dashboard", async () => {
    const project = await createProject(gateway, "Erasure")
    const pid = project.project_id
    const erin = asUser(gateway, project.api_key, "erin", "ws_erin")
    const threadId = await newThread(erin, { title: "to forget" })
    const first = await newMessage(erin, threadId)
    await newMessage(erin, threadId, { parent: first })
    const run = await erin("POST", "/runs", { body: { thread_id: threadId, status: "completed", model_id: "m1" } })
    expect(run.status, run.text).toBe(201)
    const score = await erin("POST", "/scores", {
      body: { name: "quality", data_type: "numeric", value: 0.5, run_id: run.body.run_id }
    })
    expect(score.status, score.text).toBe(201)
    const events = await erin("POST", "/events", {
      body: { events: [{ kind: "message_sent", thread_id: threadId }, { kind: "thread_switched" }] }
    })
    expect(events.status, events.text).toBe(202)
    const frank = asUser(gateway, project.api_key, "frank", "ws_frank")
    const franksThread = await newThread(frank)
    const threadIds = async () =>
      ((await asProject(gateway, project.api_key)("/threads")).body.threads as Array<{ id: string }>)
        .map((thread) => thread.id)
        .sort()

    const page = await open(pid, "erasure")
    await shown(page.getByText("No erasures in this project."))
    await page.getByLabel("User id", { exact: true }).fill("erin")
    await page.getByRole("button", { name: "Preview erasure" }).click()
    const preview = Object.fromEntries(
      (await tableCells(page, "What will be erased")).map(([kind, count]) => [kind, Number(count)])
    )
    expect(preview).toMatchObject({ Threads: 1, Messages: 2, Feedback: 0, Runs: 1, Scores: 1, Events: 2 })
    expect(Object.keys(preview)).toHaveLength(12)

    // Nothing is deleted until the id is typed again.
    const erase = page.getByRole("button", { name: "Erase user" })
    expect(await erase.isDisabled()).toBe(true)
    const again = page.getByLabel("Type the user id again to confirm")
    await again.fill("eri")
    expect(await erase.isDisabled()).toBe(true)
    await again.fill("erin ")
    expect(await erase.isDisabled()).toBe(true)
    expect(await threadIds()).toEqual([threadId, franksThread].sort())
    expect((await adminCall("GET", `/projects/${pid}/erasures`)).body.erasures).toEqual([])
    await again.fill("erin")
    expect(await erase.isEnabled()).toBe(true)
    await checkView(page, "erasure")
    await erase.click()
    await shown(page.getByRole("status").filter({ hasText: "Erased user erin: " }))

    // The admin API's log: the dashboard asked, the counts those the preview showed.
    const log = (await adminCall("GET", `/projects/${pid}/erasures`)).body.erasures as Array<{
      user_sha256: string
      requested_by: string
      deleted: Record<string, number>
    }>
    expect(log).toHaveLength(1)
    const sha = createHash("sha256").update("erin").digest("hex")
    expect(log[0]).toMatchObject({ user_sha256: sha, requested_by: "dashboard" })
    expect(log[0]?.deleted).toMatchObject({ threads: 1, messages: 2, feedback: 0, runs: 1, scores: 1, events: 2 })
    const total = Object.values(log[0]?.deleted ?? {}).reduce((sum, n) => sum + n, 0)
    expect(total).toBe(Object.values(preview).reduce((sum, n) => sum + n, 0))
    // Erin's data is gone, Frank's stays.
    expect(await threadIds()).toEqual([franksThread])
    expect((await erin("GET", "/threads")).body.threads).toEqual([])
    expect((await asProject(gateway, project.api_key)("/runs")).body.runs).toEqual([])

    // The page's log, loaded again: the same record.
    const [row] = await eventually(
      () => tableCells(page, "Erasures"),
      (rows) => rows.length === 1,
      "the erasure log"
    )
    expect(row?.[2]).toBe("dashboard")
    expect(row?.[4]).toBe(String(total))
    expect(await page.getByRole("table", { name: "Erasures" }).locator(`code[title="${sha}"]`).count()).toBe(1)
    expect(await seriousViolations(page), "axe with the erasure log").toEqual([])
    // The preview is gone with the erasure.
    expect(await page.getByRole("table", { name: "What will be erased" }).count()).toBe(0)
  })

  it("Jobs: the list is the admin API's; Run <job> now runs it and the list shows the run", async () => {
    const project = await createProject(gateway, "Jobs")
    const before = await jobs()
    const page = await open(project.project_id, "jobs")
    const cells = await tableCells(page, "Jobs")
    expect(cells.map((row) => row[0])).toEqual(before.map((job) => job.name))
    expect(cells.map((row) => row[7])).toEqual(before.map((job) => String(job.runs)))
    expect(before.map((job) => job.name)).toContain("retention")
    // A next run already past says the job is due (these jobs run only when asked: none is scheduled ahead).
    const now = Date.now()
    for (const [at, job] of before.entries()) {
      const due = !job.running && job.next_run_at !== null && Date.parse(job.next_run_at) <= now
      expect(cells[at]?.[6]?.startsWith("due"), `${job.name}: ${job.next_run_at}`).toBe(due)
    }
    await checkView(page, "jobs")

    const retention = before.find((job) => job.name === "retention")
    await page.getByRole("button", { name: "Run retention now" }).click()
    await shown(page.getByRole("status").filter({ hasText: /^Ran retention in / }))
    const after = (await jobs()).find((job) => job.name === "retention")
    expect(after?.runs).toBe((retention?.runs ?? 0) + 1)
    expect(after?.last_started_at).not.toBeNull()
    expect(after?.last_started_at).not.toBe(retention?.last_started_at)
    // The others did not run.
    for (const job of before.filter((each) => each.name !== "retention")) {
      expect((await jobs()).find((each) => each.name === job.name)?.runs, job.name).toBe(job.runs)
    }
    // The table loaded again.
    await eventually(
      async () => (await tableCells(page, "Jobs")).find((row) => row[0] === "retention")?.[7],
      (runs) => runs === String(after?.runs),
      "the retention row's runs"
    )
  })

  it("a project key's session is told the three views are an admin's, and asks the gateway nothing it would refuse", async () => {
    const project = await createProject(gateway, "Key session")
    const keyContext = await signedInContext(browser, gateway, project.api_key)
    try {
      for (const [view, name] of [
        ["webhooks", "Webhooks"],
        ["erasure", "Erasure"],
        ["jobs", "Jobs"]
      ] as const) {
        const page = await keyContext.newPage()
        page.setDefaultTimeout(10_000)
        collectErrors(page, errors)
        const operating: Array<string> = []
        page.on("request", (request) => {
          if (
            new URL(request.url()).pathname.match(/^\/v1\/dashboard\/(projects\/[^/]+\/(webhooks|users|erasures)|jobs)/)
          )
            operating.push(request.url())
        })
        await page.goto(`${gateway.baseUrl}/dashboard/projects/${project.project_id}/${view}`)
        await shown(page.getByRole("heading", { level: 1, name }))
        await shown(page.getByText(`${name} is for an admin session`))
        expect(operating, view).toEqual([])
        expect(await page.getByRole("link", { name }).count(), "not offered in the navigation").toBe(0)
      }
    } finally {
      await closePages(keyContext)
      await keyContext.close()
    }
  })
})
