/**
 * The Alerts and Evaluators views in headless Chromium on every store, an
 * admin session (docs/dashboard.md "Operating views"): each shows what the
 * admin API holds (a rule's state and its firings with their delivery, an
 * evaluator's counts and latest labels linking to the run they label); each
 * change made in the page (create, edit, delete) is read back through the
 * admin API; the gateway's refusals (the plan's rule count, an unsafe
 * pattern) are said in words and change nothing. No serious or critical
 * axe-core finding, no console error but the refused request's own; a
 * screenshot of each view at 1280 px (test-results/dashboard/alerts.png,
 * evaluators.png).
 */
import { mkdirSync } from "node:fs"
import * as path from "node:path"
import type { Browser, BrowserContext, Page } from "playwright-core"
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest"
import { newThread, runJob } from "../../support/helpers.js"
import { ADMIN_TOKEN, admin, asUser, createProject, type Gateway, stores, useGateway } from "../../support/layers.js"
import { type Receiver, startReceiver, verifySignature } from "../../support/webhook-receiver.js"
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

const available = chromiumAvailable("test/protocols/dashboard/browser-operate-rules.test.ts")

interface Rule {
  rule_id: string
  name: string
  metric: string
  comparison: string
  threshold: number
  window_minutes: number
  cooldown_minutes: number
  filters: Record<string, string>
  webhook_url: string
  last_value: number | null
  last_checked_at: string | null
  last_fired_at: string | null
}

interface Evaluator {
  evaluator_id: string
  name: string
  kind: string
  target: string
  sampling_rate: number
  categories: Array<{ name: string; keywords?: Array<string>; pattern?: string }>
  stats: { evaluated: number; scored: number; no_match: number; retrying: number; failed: number }
}

/** The body row of the table `caption` that holds `text`, as its cells' texts. */
const rowOf = (page: Page, caption: string, text: string) =>
  page.getByRole("table", { name: caption }).locator("tbody tr").filter({ hasText: text })

const cellsOf = async (page: Page, caption: string, text: string): Promise<Array<string>> => {
  const row = rowOf(page, caption, text)
  await shown(row)
  return (await row.getByRole("cell").allTextContents()).map((each) => each.trim())
}

/** The header texts of the table `caption`. */
const headersOf = async (page: Page, caption: string): Promise<Array<string>> => {
  const table = page.getByRole("table", { name: caption })
  await shown(table)
  return (await table.getByRole("columnheader").allTextContents()).map((each) => each.trim())
}

/** A row's cell by its column's header. */
const cellAt = async (page: Page, caption: string, text: string, header: string): Promise<string> => {
  const headers = await headersOf(page, caption)
  const cells = await cellsOf(page, caption, text)
  const index = headers.indexOf(header)
  expect(index, `${header} in ${headers.join(", ")}`).toBeGreaterThanOrEqual(0)
  return cells[index] ?? ""
}

describe.skipIf(!available).each(stores)("the Alerts and Evaluators views in Chromium ($name)", (storeUnderTest) => {
  const handle = useGateway(storeUnderTest, {
    JOBS_POLL_SECONDS: "0",
    WEBHOOK_ALLOW_PRIVATE: "true",
    EVALUATOR_RUN_DELAY_SECONDS: "0",
    EVALUATOR_THREAD_DELAY_SECONDS: "0"
  })
  let gateway: Gateway
  let browser: Browser
  let context: BrowserContext
  let receiver: Receiver
  const errors: Array<string> = []
  const adminCall = (method: string, route: string, body?: unknown) => admin(gateway)(method, route, body)

  const open = async (projectId: string, view: string): Promise<Page> => {
    const page = await context.newPage()
    // An action that cannot happen fails with its locator, within the test's time.
    page.setDefaultTimeout(10_000)
    collectErrors(page, errors)
    await page.goto(`${gateway.baseUrl}/dashboard/projects/${projectId}/${view}`)
    return page
  }
  /** A new project on `plan`. */
  const project = async (name: string, plan = "pro") => {
    const made = await createProject(gateway, name)
    const reply = await adminCall("PUT", `/projects/${made.project_id}/plan`, { plan })
    expect(reply.status, reply.text).toBe(200)
    return made
  }
  const rules = async (projectId: string): Promise<Array<Rule>> => {
    const reply = await adminCall("GET", `/projects/${projectId}/alert-rules`)
    expect(reply.status, reply.text).toBe(200)
    return reply.body.alert_rules
  }
  const createRule = async (projectId: string, body: Record<string, unknown>): Promise<Rule> => {
    const reply = await adminCall("POST", `/projects/${projectId}/alert-rules`, body)
    expect(reply.status, reply.text).toBe(201)
    return reply.body
  }
  const evaluators = async (projectId: string): Promise<Array<Evaluator>> => {
    const reply = await adminCall("GET", `/projects/${projectId}/evaluators`)
    expect(reply.status, reply.text).toBe(200)
    return reply.body.evaluators
  }
  /** Takes the refused request's own console line out of the errors (Chromium logs every 4xx answer). */
  const expectRefusalLogged = (status: number) => {
    const refused = errors.filter((line) => line.includes(`the server responded with a status of ${status}`))
    expect(refused, errors.join("\n")).toHaveLength(1)
    errors.splice(errors.indexOf(refused[0] ?? ""), 1)
  }
  const check = async (page: Page, name: string) => {
    await settled(page)
    await page.setViewportSize(WIDE)
    await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true })
    expect(await seriousViolations(page), `axe on ${name}`).toEqual([])
    // At 390 px nothing but a scrolling box is wider than the screen.
    const overflow = await narrowOverflow(page)
    await page.screenshot({ path: path.join(SHOTS, `${name}-390.png`), fullPage: true })
    expectNarrowFits(overflow, name)
    await page.setViewportSize(WIDE)
  }

  beforeAll(async () => {
    gateway = handle.current
    mkdirSync(SHOTS, { recursive: true })
    receiver = await startReceiver()
    browser = await launchChromium()
    context = await signedInContext(browser, gateway, ADMIN_TOKEN)
  })
  afterEach(async () => {
    await closePages(context)
    expect(errors.splice(0), "console errors and page errors").toEqual([])
  })
  afterAll(async () => {
    await browser?.close()
    await receiver?.close()
  })

  it("Alerts: the rules the admin API holds with their state; a rule's firings with each delivery (?rule=)", async () => {
    const { project_id: projectId, api_key: apiKey } = await project("alerts-list")
    const fires = await createRule(projectId, {
      name: "any run",
      metric: "runs",
      comparison: "gte",
      threshold: 1,
      window_minutes: 1_440,
      cooldown_minutes: 60,
      webhook_url: receiver.url("/fired")
    })
    const quiet = await createRule(projectId, {
      name: "m1 errors",
      metric: "run_errors",
      comparison: "gt",
      threshold: 1_000_000,
      window_minutes: 15,
      cooldown_minutes: 120,
      filters: { model_id: "m1", environment: "production" },
      webhook_url: receiver.url("/quiet")
    })
    const client = asUser(gateway, apiKey, "user_1", "ws_1")
    const threadId = await newThread(client)
    expect((await client("POST", "/runs", { body: { thread_id: threadId, status: "completed" } })).status).toBe(201)
    await runJob(gateway, "alerts")
    await runJob(gateway, "webhooks")
    const history = await adminCall("GET", `/projects/${projectId}/alert-rules/${fires.rule_id}/history`)
    expect(history.body.history).toHaveLength(1)
    expect(history.body.history[0].delivery).toMatchObject({ status: "delivered", attempts: 1 })
    const [heldFires, heldQuiet] = await rules(projectId)
    expect(heldFires).toMatchObject({ name: "any run", last_value: 1 })
    expect(heldFires?.last_fired_at).not.toBeNull()
    expect(heldQuiet).toMatchObject({ name: "m1 errors", last_value: 0, last_fired_at: null })

    const page = await open(projectId, "alerts")
    await shown(page.getByRole("heading", { level: 1, name: "Alert rules" }))
    expect(await headersOf(page, "Alert rules")).toEqual([
      "Name",
      "Metric",
      "Fires when",
      "Window",
      "Cooldown",
      "Last value",
      "Last checked",
      "State",
      "Actions"
    ])
    // Every rule the admin API holds, in its order, and no other.
    const names = await page
      .getByRole("table", { name: "Alert rules" })
      .locator("tbody tr td:first-child")
      .allTextContents()
    expect(names).toEqual((await rules(projectId)).map((rule) => rule.name))
    const firing = await cellsOf(page, "Alert rules", "any run")
    expect(firing.slice(0, 6)).toEqual(["any run", "Runs", "≥ 1", "1 day", "1 h", "1"])
    expect(firing[6]).not.toBe("—")
    expect(firing[7]).toMatch(/^In cooldownuntil .+last fired /)
    const firedAtShown = await rowOf(page, "Alert rules", "any run")
      .locator("td")
      .nth(7)
      .locator("time")
      .last()
      .getAttribute("datetime")
    expect(firedAtShown).toBe(heldFires?.last_fired_at)
    const waiting = await cellsOf(page, "Alert rules", "m1 errors")
    expect(waiting.slice(0, 6)).toEqual([
      "m1 errors",
      "Run errorsonly model id m1, environment production",
      "> 1,000,000",
      "15 min",
      "2 h",
      "0"
    ])
    expect(waiting[7]).toBe("Not fired")
    expect(await textOf(page.getByText(/plan allows/))).toBe("The pro plan allows 20 rules a project; this one has 2.")

    // The history of the rule that fired: its firing and the delivery's attempt, as the admin API has them.
    await page.getByRole("link", { name: "History any run" }).click()
    await page.waitForURL((url) => url.searchParams.get("rule") === fires.rule_id)
    await shown(page.getByRole("table", { name: "Firings of any run" }))
    const [held] = history.body.history
    const firingRows = page.getByRole("table", { name: "Firings of any run" }).locator("tbody tr")
    expect(await firingRows.count()).toBe(1)
    const cells = await cellsOf(page, "Firings of any run", "delivered")
    expect(cells[1]).toBe(String(held.value))
    expect(cells[2]).toBe("≥ 1")
    expect(cells[3]).toMatch(/^1 day/)
    expect(cells[4]).toMatch(/^delivered 1 attempt/)
    expect(cells[4]).toContain("HTTP 204")
    const firedAt = await page
      .getByRole("table", { name: "Firings of any run" })
      .locator("tbody tr td:first-child time")
      .getAttribute("datetime")
    expect(firedAt).toBe(held.fired_at)
    await check(page, "alerts")

    // The other rule's history, opened by its address: none yet.
    await page.goto(`${gateway.baseUrl}/dashboard/projects/${projectId}/alerts?rule=${quiet.rule_id}`)
    await shown(page.getByText("m1 errors has not fired yet."))
    expect(await page.getByRole("heading", { name: "Firings of m1 errors" }).count()).toBe(1)
    await page.getByRole("link", { name: "Close the history" }).click()
    await page.waitForURL((url) => !url.searchParams.has("rule"))
    await page.getByRole("heading", { name: /^Firings of/ }).waitFor({ state: "detached" })
  })

  it("Alerts: a rule created, edited and deleted in the page, each change seen through the admin API", async () => {
    const { project_id: projectId, api_key: apiKey } = await project("alerts-crud")
    const page = await open(projectId, "alerts")
    await shown(page.getByText("No alert rules yet: create one below."))
    const form = page.getByRole("form", { name: "New rule" })
    await form.getByLabel("Name").fill("error rate")
    await form.getByLabel("Metric").selectOption("run_error_rate")
    await form.getByLabel("Fires when the value is").selectOption("gt")
    await form.getByLabel("Threshold").fill("0.25")
    await form.getByLabel("Window (minutes)").fill("30")
    await form.getByLabel("Cooldown (minutes)").fill("120")
    await form.getByLabel("Model id").fill("gpt-4.1")
    await form.getByLabel("Webhook URL").fill(receiver.url("/rate"))
    await form.getByRole("button", { name: "Create rule" }).click()
    await shown(page.getByRole("status").filter({ hasText: "Created error rate." }))

    const [created] = await rules(projectId)
    expect(await rules(projectId)).toHaveLength(1)
    expect(created).toMatchObject({
      name: "error rate",
      metric: "run_error_rate",
      comparison: "gt",
      threshold: 0.25,
      window_minutes: 30,
      cooldown_minutes: 120,
      filters: { model_id: "gpt-4.1" },
      webhook_url: receiver.url("/rate")
    })
    // The signing secret, shown once after creating.
    const secret = page.getByRole("region", { name: "Signing secret" })
    const shownSecret = await textOf(secret.locator("code.secret-value"))
    expect(shownSecret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/)
    await shown(secret.getByRole("button", { name: "Copy secret" }))
    // It is the rule's own: a firing's delivery verifies with it.
    const client = asUser(gateway, apiKey, "user_1", "ws_1")
    const run = await client("POST", "/runs", {
      body: { thread_id: await newThread(client), status: "error", model_id: "gpt-4.1" }
    })
    expect(run.status, run.text).toBe(201)
    await runJob(gateway, "alerts")
    await runJob(gateway, "webhooks")
    const [delivered] = receiver.at("/rate")
    if (delivered === undefined) throw new Error("the rule made in the page did not fire")
    expect(await verifySignature(shownSecret, delivered)).toBe(true)
    expect(await cellsOf(page, "Alert rules", "error rate")).toContain("> 0.25")

    // Edited: the same form, filled with the rule.
    await page.getByRole("button", { name: "Edit error rate" }).click()
    const edit = page.getByRole("form", { name: "Edit error rate" })
    expect(await edit.getByLabel("Threshold").inputValue()).toBe("0.25")
    expect(await edit.getByLabel("Model id").inputValue()).toBe("gpt-4.1")
    expect(await page.getByRole("region", { name: "Signing secret" }).count()).toBe(0)
    await edit.getByLabel("Name").fill("errors")
    await edit.getByLabel("Metric").selectOption("events:error_shown")
    await edit.getByLabel("Fires when the value is").selectOption("gte")
    await edit.getByLabel("Threshold").fill("5")
    await edit.getByRole("button", { name: "Save rule" }).click()
    await shown(page.getByRole("status").filter({ hasText: "Saved errors." }))
    const [edited] = await rules(projectId)
    expect(edited).toMatchObject({
      rule_id: created?.rule_id,
      name: "errors",
      metric: "events:error_shown",
      comparison: "gte",
      threshold: 5,
      window_minutes: 30,
      cooldown_minutes: 120,
      // Filters are for the run metrics: the page dropped them with the metric.
      filters: {}
    })
    expect(await cellsOf(page, "Alert rules", "errors")).toContain("Events: error shown")

    // Deleted after a confirmation; cancelling first keeps it.
    await page.getByRole("button", { name: "Delete errors" }).click()
    const dialog = page.getByRole("dialog", { name: "Delete rule" })
    await shown(dialog)
    await dialog.getByRole("button", { name: "Cancel" }).click()
    expect(await rules(projectId)).toHaveLength(1)
    await page.getByRole("button", { name: "Delete errors" }).click()
    await shown(dialog)
    expect(await seriousViolations(page), "axe with the dialog open").toEqual([])
    await dialog.getByRole("button", { name: "Delete" }).click()
    await shown(page.getByText("No alert rules yet: create one below."))
    expect(await rules(projectId)).toEqual([])
  })

  it("Alerts: the plan's rule count, refused by the gateway, said in words; nothing created", async () => {
    const { project_id: projectId } = await project("alerts-hobby", "hobby")
    await createRule(projectId, {
      name: "the one",
      metric: "runs",
      comparison: "gt",
      threshold: 100,
      window_minutes: 60,
      cooldown_minutes: 60,
      webhook_url: receiver.url("/one")
    })
    const page = await open(projectId, "alerts")
    await shown(page.getByText("The hobby plan allows 1 rule a project; this one has 1."))
    const form = page.getByRole("form", { name: "New rule" })
    await form.getByLabel("Name").fill("a second")
    await form.getByLabel("Threshold").fill("3")
    await form.getByLabel("Webhook URL").fill(receiver.url("/two"))
    await form.getByRole("button", { name: "Create rule" }).click()
    expect(await textOf(page.getByRole("alert"))).toBe("the hobby plan allows 1 alert rule a project")
    expect((await rules(projectId)).map((rule) => rule.name)).toEqual(["the one"])
    expect(await page.getByRole("region", { name: "Signing secret" }).count()).toBe(0)
    expectRefusalLogged(409)
  })

  it("Alerts: a value the API's schema refuses is said in words before anything is sent", async () => {
    const { project_id: projectId } = await project("alerts-schema")
    const page = await open(projectId, "alerts")
    await shown(page.getByText("No alert rules yet: create one below."))
    const form = page.getByRole("form", { name: "New rule" })
    await form.getByLabel("Name").fill("rate")
    await form.getByLabel("Metric").selectOption("run_error_rate")
    await form.getByLabel("Threshold").fill("2")
    await form.getByLabel("Webhook URL").fill(receiver.url("/rate"))
    await form.getByRole("button", { name: "Create rule" }).click()
    expect(await textOf(page.getByRole("alert"))).toBe(
      "threshold: threshold of run_error_rate is a fraction from 0 to 1"
    )
    expect(await rules(projectId)).toEqual([])
    expect(await seriousViolations(page), "axe with the refusal shown").toEqual([])
  })

  it("Evaluators: created in the page (keywords and a pattern); an unsafe pattern refused in words, nothing created", async () => {
    const { project_id: projectId } = await project("evaluators-create")
    const page = await open(projectId, "evaluators")
    await shown(page.getByText("No evaluators yet: create one below."))
    const form = page.getByRole("form", { name: "New evaluator" })
    await form.getByLabel("Name", { exact: true }).first().fill("tone")
    await form.getByLabel("Labels").selectOption("run")
    await form.getByLabel("Sampling rate (0 to 1)").fill("0.5")
    const first = form.getByRole("group", { name: "Category 1" })
    await first.getByLabel("Name").fill("refusal")
    await first.getByLabel("Keywords (one a line)").fill("cannot help\nI can't help")
    await form.getByRole("button", { name: "Add category" }).click()
    const second = form.getByRole("group", { name: "Category 2" })
    await second.getByLabel("Name").fill("apology")
    await second.getByLabel("Pattern").fill("\\bsorr(y|ies)\\b")
    // A third, added and removed again.
    await form.getByRole("button", { name: "Add category" }).click()
    await form.getByRole("group", { name: "Category 3" }).getByLabel("Name").fill("dropped")
    await form.getByRole("button", { name: "Remove category 3" }).click()
    await form.getByRole("button", { name: "Create evaluator" }).click()
    await shown(page.getByRole("status").filter({ hasText: "Created tone." }))

    const [created] = await evaluators(projectId)
    expect(await evaluators(projectId)).toHaveLength(1)
    expect(created).toMatchObject({
      name: "tone",
      kind: "rule",
      target: "run",
      sampling_rate: 0.5,
      categories: [
        { name: "refusal", keywords: ["cannot help", "I can't help"] },
        { name: "apology", pattern: "\\bsorr(y|ies)\\b" }
      ]
    })
    expect(await cellAt(page, "Evaluators", "tone", "Categories")).toBe(
      "refusal keywords “cannot help”, “I can't help”apology pattern \\bsorr(y|ies)\\b"
    )

    // An unsafe pattern: the gateway's reason, in words; nothing created.
    await form.getByLabel("Name", { exact: true }).first().fill("echo")
    await form.getByRole("group", { name: "Category 1" }).getByLabel("Name").fill("repeated")
    await form.getByRole("group", { name: "Category 1" }).getByLabel("Pattern").fill("(a|b)\\1")
    await form.getByRole("button", { name: "Create evaluator" }).click()
    const alert = await textOf(page.getByRole("alert"))
    expect(alert).toContain('category "repeated"')
    expect(alert).toMatch(/backreference/)
    expect((await evaluators(projectId)).map((each) => each.name)).toEqual(["tone"])
    expectRefusalLogged(400)
    // The form keeps what was typed, to be corrected.
    expect(await form.getByRole("group", { name: "Category 1" }).getByLabel("Pattern").inputValue()).toBe("(a|b)\\1")
    expect(await seriousViolations(page), "axe with the refusal shown").toEqual([])
  })

  it("Evaluators: a model evaluator without an evaluator model, refused by the gateway in words", async () => {
    const { project_id: projectId } = await project("evaluators-model")
    const page = await open(projectId, "evaluators")
    await shown(page.getByText("No evaluators yet: create one below."))
    const form = page.getByRole("form", { name: "New evaluator" })
    await form.getByLabel("Name", { exact: true }).first().fill("judge")
    await form.getByLabel("Kind").selectOption("model")
    // A model's categories are names alone; a prompt says what to judge.
    await form.getByLabel("Pattern", { exact: true }).waitFor({ state: "detached" })
    expect(await form.getByLabel("Keywords (one a line)").count()).toBe(0)
    await form.getByLabel("Prompt (what to judge; optional)").fill("Was the answer helpful?")
    await form.getByRole("group", { name: "Category 1" }).getByLabel("Name").fill("helpful")
    await form.getByRole("button", { name: "Create evaluator" }).click()
    expect(await textOf(page.getByRole("alert"))).toBe(
      "model evaluators need an evaluator model (EVALUATOR_MODEL_BASE_URL is not set)"
    )
    expect(await evaluators(projectId)).toEqual([])
    expectRefusalLogged(400)
  })

  it("a project key's session: both views say they are the operator's, and ask the gateway nothing", async () => {
    const { project_id: projectId, api_key: apiKey } = await project("key-session")
    const keyContext = await signedInContext(browser, gateway, apiKey)
    try {
      for (const [view, heading] of [
        ["alerts", "Alert rules"],
        ["evaluators", "Evaluators"]
      ] as const) {
        const page = await keyContext.newPage()
        page.setDefaultTimeout(10_000)
        collectErrors(page, errors)
        const asked: Array<string> = []
        page.on("request", (request) => {
          if (request.url().includes("/v1/dashboard/projects/")) asked.push(request.url())
        })
        await page.goto(`${gateway.baseUrl}/dashboard/projects/${projectId}/${view}`)
        await shown(page.getByRole("heading", { level: 1, name: heading }))
        await shown(page.getByText(/are the operator's: sign in with the admin token/))
        expect(await page.getByRole("button", { name: /^Create / }).count()).toBe(0)
        expect(asked).toEqual([])
      }
    } finally {
      await closePages(keyContext)
      await keyContext.close()
    }
  })

  it("Evaluators: counts and latest labels linking to their runs; edited and deleted in the page, seen through the admin API", async () => {
    const { project_id: projectId, api_key: apiKey } = await project("evaluators-labels")
    const made = await adminCall("POST", `/projects/${projectId}/evaluators`, {
      name: "refusals",
      target: "run",
      categories: [{ name: "refused", keywords: ["cannot help"] }]
    })
    expect(made.status, made.text).toBe(201)
    const quiet = await adminCall("POST", `/projects/${projectId}/evaluators`, {
      name: "intent",
      target: "thread",
      sampling_rate: 0.25,
      categories: [{ name: "refund", pattern: "\\brefund" }]
    })
    expect(quiet.status, quiet.text).toBe(201)
    const client = asUser(gateway, apiKey, "user_1", "ws_1")
    const threadId = await newThread(client)
    const report = async (outputText: string) => {
      const reply = await client("POST", "/runs", {
        body: { thread_id: threadId, status: "completed", output_text: outputText }
      })
      expect(reply.status, reply.text).toBe(201)
      return reply.body.run_id as string
    }
    const labelled = await report("Sorry, I cannot help with that.")
    await report("Here is the forecast.")
    await runJob(gateway, "evaluators")
    const [held] = await evaluators(projectId)
    expect(held?.stats).toMatchObject({ evaluated: 2, scored: 1, no_match: 1 })

    const page = await open(projectId, "evaluators")
    await shown(page.getByRole("heading", { level: 1, name: "Evaluators" }))
    expect(await headersOf(page, "Evaluators")).toEqual([
      "Name",
      "Kind",
      "Labels",
      "Sampled",
      "Categories",
      "Evaluated",
      "Labelled",
      "No match",
      "Retrying",
      "Failed",
      "Actions"
    ])
    const names = await page
      .getByRole("table", { name: "Evaluators" })
      .locator("tbody tr td:first-child")
      .allTextContents()
    expect(names).toEqual((await evaluators(projectId)).map((each) => each.name))
    expect((await cellsOf(page, "Evaluators", "refusals")).slice(0, 10)).toEqual([
      "refusals",
      "rule",
      "runsby output_text",
      "100 %",
      "refused keywords “cannot help”",
      "2",
      "1",
      "1",
      "0",
      "0"
    ])
    expect((await cellsOf(page, "Evaluators", "intent")).slice(2, 4)).toEqual(["threadsby last_user_message", "25 %"])
    // The latest label: the score the evaluator wrote, linking to the run it labels.
    const labels = page.getByRole("table", { name: "Latest labels of refusals" })
    await shown(labels)
    expect(await labels.locator("tbody tr").count()).toBe(1)
    expect(await textOf(labels.locator("tbody tr td").first())).toBe("refused")
    const link = labels.getByRole("link", { name: /^Run / })
    expect(await link.getAttribute("href")).toBe(`/dashboard/projects/${projectId}/runs/${labelled}`)
    await shown(page.getByText("intent: no labels yet."))
    await check(page, "evaluators")

    // Edited: the same form, filled; a category added.
    await page.getByRole("button", { name: "Edit refusals" }).click()
    const form = page.getByRole("form", { name: "Edit refusals" })
    expect(await form.getByRole("group", { name: "Category 1" }).getByLabel("Keywords (one a line)").inputValue()).toBe(
      "cannot help"
    )
    await form.getByLabel("Sampling rate (0 to 1)").fill("0.75")
    await form.getByRole("button", { name: "Add category" }).click()
    await form.getByRole("group", { name: "Category 2" }).getByLabel("Name").fill("apology")
    await form.getByRole("group", { name: "Category 2" }).getByLabel("Pattern").fill("sorry")
    await form.getByRole("button", { name: "Save evaluator" }).click()
    await shown(page.getByRole("status").filter({ hasText: "Saved refusals." }))
    expect((await evaluators(projectId)).find((each) => each.name === "refusals")).toMatchObject({
      evaluator_id: made.body.evaluator_id,
      sampling_rate: 0.75,
      categories: [
        { name: "refused", keywords: ["cannot help"] },
        { name: "apology", pattern: "sorry" }
      ]
    })
    expect(await cellAt(page, "Evaluators", "refusals", "Sampled")).toBe("75 %")

    // Deleted after a confirmation; its labels stay (as scores), the other evaluator too.
    await page.getByRole("button", { name: "Delete refusals" }).click()
    const dialog = page.getByRole("dialog", { name: "Delete evaluator" })
    await shown(dialog)
    await dialog.getByRole("button", { name: "Delete" }).click()
    await shown(page.getByRole("status").filter({ hasText: "Deleted refusals." }))
    expect((await evaluators(projectId)).map((each) => each.name)).toEqual(["intent"])
    await rowOf(page, "Evaluators", "refusals").waitFor({ state: "detached" })
    await shown(rowOf(page, "Evaluators", "intent"))
  })
})
