/**
 * The dashboard's Topics view in headless Chromium on every store
 * (docs/dashboard.md "Topics"): before the topics job has run it says so
 * in words; after, the project's three subjects (threads seeded through the
 * project API in distinct words, their starts spread over three weeks) are
 * its topics, most threads first, with the figures and days
 * GET /v1/projects/topics answers; a topic opens exactly its
 * threads, page by page, and a thread opens the thread view. A project API
 * key's session reads the view too; another project's topic is not found.
 * Each page: no serious or critical axe-core finding, no console error, a
 * screenshot at 1280 px, nothing wider than a 390 px screen but a scrolling box.
 */
import { mkdirSync } from "node:fs"
import type { Browser, BrowserContext, Page } from "playwright-core"
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest"
import { asProject, newMessage, newThread, runJob } from "../../support/helpers.js"
import { ADMIN_TOKEN, admin, asUser, createProject, type Gateway, stores, useGateway } from "../../support/layers.js"
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
  textOf,
  WIDE
} from "./browser-support.js"

const available = chromiumAvailable("test/protocols/dashboard/browser-topics.test.ts")
/** A step of a page (a locator, a navigation) that does not happen fails within this, naming it. */
const STEP_MS = 10_000
const DAY = 86_400_000

interface ApiTopic {
  readonly id: string
  readonly label: string
  readonly keywords: ReadonlyArray<string>
  readonly thread_count: number
  readonly daily: ReadonlyArray<{ readonly date: string; readonly threads: number }>
  readonly sample_threads: ReadonlyArray<{ readonly id: string; readonly title: string | null }>
}

interface ApiTopics {
  readonly topics: ReadonlyArray<ApiTopic>
  readonly computed_at: string | null
  readonly window_from: string
  readonly window_to: string
  readonly ceiling: number
  readonly unassigned: number
}

/**
 * A subject: the question each of its threads asks (their titles differ),
 * whose words its topic's label must be made of, and the day (days back)
 * each of its threads starts. One question a subject, in a frame the three
 * share (words in every subject are the job's function words), so that the
 * outcome is three topics however the job splits paraphrases
 * (test/protocols/rest/topics.test.ts and bench:topics measure grouping
 * itself); no subject holds half the threads, whose words the job would
 * take for function words too.
 */
interface Subject {
  readonly name: string
  readonly threads: number
  readonly question: string
  readonly daysBack: (i: number) => number
}

const SUBJECTS: ReadonlyArray<Subject> = [
  {
    name: "Password",
    threads: 26,
    question: "Hello, I need help with my password reset for the login page. Thank you!",
    // Lately more and more.
    daysBack: (i) => Math.floor(15 * (1 - Math.sqrt((i + 1) / 26)))
  },
  {
    name: "Flight",
    threads: 16,
    question: "Hello, I need help with my flight booking with the airline. Thank you!",
    daysBack: (i) => (i * 5) % 21
  },
  {
    name: "Pizza",
    threads: 12,
    question: "Hello, I need help with my pizza dough for the oven. Thank you!",
    // A while ago.
    daysBack: (i) => 8 + ((i * 3) % 12)
  }
]

/** The other project's subjects: only their topic ids matter here. */
const OTHER_SUBJECTS: ReadonlyArray<Subject> = [
  { name: "Tomato", threads: 6, question: "My tomato plants have yellow leaves in the garden.", daysBack: () => 0 },
  { name: "Guitar", threads: 6, question: "My guitar strings buzz on the third fret.", daysBack: () => 0 }
]

interface Seeded {
  readonly projectId: string
  readonly apiKey: string
  /** Each subject's thread ids and titles. */
  readonly threads: ReadonlyMap<string, ReadonlyArray<{ readonly id: string; readonly title: string }>>
  readonly questions: ReadonlyMap<string, string>
}

/** The project's threads, each with one user question and an answer, as an app writes them. */
const seedProject = async (gateway: Gateway, name: string, subjects: ReadonlyArray<Subject>): Promise<Seeded> => {
  const project = await createProject(gateway, name)
  const threads = new Map<string, Array<{ id: string; title: string }>>()
  const questions = new Map<string, string>()
  for (const subject of subjects) {
    const list: Array<{ id: string; title: string }> = []
    for (let i = 0; i < subject.threads; i++) {
      const user = asUser(gateway, project.api_key, `user_${subject.name}_${i % 4}`, `ws_${i % 2}`)
      const title = `${subject.name} question ${String(i + 1).padStart(2, "0")}`
      const question = subject.question
      const id = await newThread(user, { title })
      const asked = await newMessage(user, id, {
        content: { role: "user", content: [{ type: "text", text: question }] }
      })
      await newMessage(user, id, {
        parent: asked,
        content: { role: "assistant", content: [{ type: "text", text: "Thanks, let me look into that." }] }
      })
      // Started that many days ago. No API dates a thread's start (the store's clock does), so the
      // fixture moves it back in the store: the topics' days are what the view draws.
      const back = subject.daysBack(i)
      if (back > 0) {
        await gateway.sql("UPDATE threads SET created_at = created_at - make_interval(days => $2) WHERE id = $1", [
          id,
          back
        ])
      }
      list.push({ id, title })
      questions.set(id, question)
    }
    threads.set(subject.name, list)
  }
  return { projectId: project.project_id, apiKey: project.api_key, threads, questions }
}

/** The thread ids the "Threads" table links to, in its order. */
const linkedThreads = async (page: Page): Promise<Array<string>> => {
  await shown(page.getByRole("table", { name: "Threads", exact: true }))
  const links = await bodyRows(page, "Threads").locator("td:first-child a").all()
  return Promise.all(
    links.map(async (link) => decodeURIComponent((await link.getAttribute("href"))?.split("/threads/")[1] ?? ""))
  )
}

/** A term's value in the page's facts (`<dt>` then `<dd>`). */
const fact = (page: Page, term: string) =>
  textOf(
    page
      .locator("dl > div")
      .filter({ has: page.getByText(term, { exact: true }) })
      .locator("dd")
  )

/** A text's words, lower case. */
const wordsOf = (text: string): Array<string> => text.toLowerCase().match(/\p{L}+/gu) ?? []

/** The words of a label's terms (words and phrases, comma-separated). */
const labelWords = (label: string): Array<string> => label.split(",").flatMap(wordsOf)

const countText = (n: number) => new Intl.NumberFormat("en-US").format(n)

describe.skipIf(!available).each(stores)("the dashboard's Topics view ($name)", (storeUnderTest) => {
  // Jobs run only when asked; a thread is placed in a topic however new it is.
  const handle = useGateway(storeUnderTest, { JOBS_POLL_SECONDS: "0", TOPICS_SETTLE_SECONDS: "0" })
  let gateway: Gateway
  let browser: Browser
  let context: BrowserContext
  let seeded: Seeded
  let other: Seeded
  const errors: Array<string> = []

  const topicsOf = async (apiKey: string): Promise<ApiTopics> => {
    const reply = await asProject(gateway, apiKey)("/topics")
    expect(reply.status, reply.text).toBe(200)
    return reply.body as ApiTopics
  }
  /** Every thread id of a topic through the project API, page by page. */
  const topicThreadIds = async (apiKey: string, topicId: string): Promise<Array<string>> => {
    const ids: Array<string> = []
    let after = ""
    for (;;) {
      const reply = await asProject(gateway, apiKey)(`/topics/${topicId}/threads?limit=100${after}`)
      expect(reply.status, reply.text).toBe(200)
      const page = (reply.body.threads as Array<{ id: string; topic_id: string | null }>).map((thread) => {
        expect(thread.topic_id).toBe(topicId)
        return thread.id
      })
      ids.push(...page)
      if (page.length < 100) return ids
      after = `&after=${page[page.length - 1]}`
    }
  }
  const open = async (where: BrowserContext, projectId: string, view: string, into = errors): Promise<Page> => {
    const page = await where.newPage()
    page.setDefaultTimeout(STEP_MS)
    collectErrors(page, into)
    await page.goto(`${gateway.baseUrl}/dashboard/projects/${projectId}/${view}`)
    await shown(page.getByRole("heading", { level: 1 }), STEP_MS)
    return page
  }
  const navLinks = async (page: Page) =>
    (await page.getByRole("navigation", { name: "Sections" }).getByRole("link").allTextContents()).map((text) =>
      text.trim()
    )

  beforeAll(async () => {
    gateway = handle.current
    mkdirSync(SHOTS, { recursive: true })
    const launching = launchChromium().then((launched) => {
      browser = launched
    })
    try {
      seeded = await seedProject(gateway, "Topics", SUBJECTS)
      other = await seedProject(gateway, "Other topics", OTHER_SUBJECTS)
      const ceiling = await admin(gateway)("PUT", `/projects/${seeded.projectId}/topic-ceiling`, { value: 10 })
      expect(ceiling.status, ceiling.text).toBe(200)
    } finally {
      await launching
    }
    context = await signedInContext(browser, gateway, ADMIN_TOKEN, WIDE)
    // A step that does not happen fails naming its locator, well inside the test's own time.
    context.setDefaultTimeout(STEP_MS)
    // Some 200 calls of seeding: room on a busy machine.
  }, 120_000)
  afterEach(async () => {
    await closePages(context)
    expect(errors.splice(0), "console errors and page errors").toEqual([])
  })
  afterAll(async () => {
    await browser?.close()
  })

  it("before the topics job has run, it says there are no topics yet, with the window and the ceiling", async () => {
    const before = await topicsOf(seeded.apiKey)
    expect(before.computed_at).toBeNull()
    expect(before.topics).toEqual([])

    const page = await open(context, seeded.projectId, "topics")
    await shown(page.getByRole("heading", { level: 1, name: "Topics", exact: true }))
    // The navigation: Topics after Jobs, the current view.
    const links = await navLinks(page)
    expect(links.slice(-2)).toEqual(["Jobs", "Topics"])
    expect(await page.getByRole("link", { name: "Topics", exact: true }).getAttribute("aria-current")).toBe("page")
    expect(await textOf(page.getByText(/^No topics yet/))).toBe(
      "No topics yet: the topics job has not grouped this project's threads. It runs on its own; an admin can run it now in Jobs."
    )
    expect(await fact(page, "Computed")).toBe("Not yet")
    expect(await fact(page, "Topic ceiling")).toBe("at most 10")
    expect(await fact(page, "Window (UTC)")).toBe(
      `${before.window_from.slice(0, 10)} to ${before.window_to.slice(0, 10)}`
    )
    expect(await page.getByRole("table", { name: "Topics", exact: true }).count()).toBe(0)
    await checkView(page, "topics-none")
  })

  it("after the job: the three subjects as topics, most threads first, with the API's figures; axe and widths", async () => {
    const ran = await runJob(gateway, "topics")
    expect(ran.items).toBeGreaterThan(0)
    const answer = await topicsOf(seeded.apiKey)
    expect(answer.computed_at).not.toBeNull()
    expect(answer.ceiling).toBe(10)
    // Each subject is one topic, its label in the subject's words, holding exactly the subject's threads.
    expect(answer.topics).toHaveLength(SUBJECTS.length)
    const total = SUBJECTS.reduce((sum, subject) => sum + subject.threads, 0)
    expect(answer.topics.reduce((sum, topic) => sum + topic.thread_count, 0) + answer.unassigned).toBe(total)
    for (const [at, subject] of SUBJECTS.entries()) {
      const topic = answer.topics[at]
      expect(labelWords(topic?.label ?? ""), subject.name).not.toEqual([])
      for (const word of labelWords(topic?.label ?? "")) expect(wordsOf(subject.question), subject.name).toContain(word)
      expect((await topicThreadIds(seeded.apiKey, topic?.id ?? "")).sort()).toEqual(
        (seeded.threads.get(subject.name) ?? []).map((thread) => thread.id).sort()
      )
      expect(topic?.thread_count).toBe(subject.threads)
      // Its threads by the day they started.
      const days = new Map<string, number>()
      for (let i = 0; i < subject.threads; i++) {
        const day = new Date(Date.now() - subject.daysBack(i) * DAY).toISOString().slice(0, 10)
        days.set(day, (days.get(day) ?? 0) + 1)
      }
      expect(topic?.daily).toHaveLength(30)
      expect(
        Object.fromEntries((topic?.daily ?? []).filter((day) => day.threads > 0).map((d) => [d.date, d.threads]))
      ).toEqual(Object.fromEntries(days))
    }
    // The dashboard's route answers the same.
    const page = await open(context, seeded.projectId, "topics")
    const viaSession: ApiTopics = await page.evaluate(
      (id) => fetch(`/v1/dashboard/projects/${id}/topics`).then((reply) => reply.json()),
      seeded.projectId
    )
    // (The window ends now: its end moves from one answer to the next.)
    expect({ ...viaSession, window_to: undefined }).toEqual({ ...answer, window_to: undefined })

    // The table: every topic, most threads first, as the API has them.
    const cells = await tableCells(page, "Topics")
    expect(cells.map((row) => row.slice(0, 4))).toEqual(
      answer.topics.map((topic) => [
        topic.label,
        topic.keywords.join(", "),
        countText(topic.thread_count),
        countText(topic.daily.slice(-7).reduce((sum, day) => sum + day.threads, 0))
      ])
    )
    const counts = cells.map((row) => Number((row[2] ?? "").replace(/,/g, "")))
    expect(counts).toEqual([...counts].sort((a, b) => b - a))
    for (const topic of answer.topics) {
      await shown(page.getByRole("link", { name: topic.label, exact: true }))
      // Each topic's bars, said in words.
      const bars = page.getByRole("img", { name: `Threads per day of ${topic.label}:`, exact: false })
      expect(await bars.getAttribute("aria-label")).toContain(`${topic.thread_count} threads started`)
      // Its sample threads link to the thread view.
      for (const sample of topic.sample_threads) {
        const link = page.getByRole("link", { name: sample.title ?? "Untitled thread", exact: true })
        expect(await link.getAttribute("href")).toBe(`/dashboard/projects/${seeded.projectId}/threads/${sample.id}`)
      }
    }
    // The chart: a line per topic, its text alternative naming each with its total.
    const chart = page.getByRole("img", { name: /^Threads per topic by day/ })
    const said = (await chart.getAttribute("aria-label")) ?? ""
    for (const topic of answer.topics) expect(said).toContain(`${topic.label}: ${topic.thread_count} in all`)
    await page.waitForFunction(() => document.querySelectorAll(".plot canvas").length >= 1)
    // When, over what, and what is left over.
    expect(await fact(page, "Computed")).not.toBe("Not yet")
    expect(await page.locator("dl time").first().getAttribute("datetime")).toBe(answer.computed_at)
    expect(await fact(page, "Topic ceiling")).toBe("at most 10")
    expect(await fact(page, "Topics")).toBe(String(answer.topics.length))
    expect(await fact(page, "Threads in no topic")).toBe(countText(answer.unassigned))
    expect(await fact(page, "Threads in topics")).toBe(countText(total - answer.unassigned))
    await checkView(page, "topics-list")
  })

  it("a topic opens exactly its threads, page by page; a thread opens the thread view", async () => {
    const answer = await topicsOf(seeded.apiKey)
    const largest = answer.topics[0]
    if (!largest) throw new Error("no topics")
    const expected = await topicThreadIds(seeded.apiKey, largest.id)
    expect(expected).toHaveLength(26)

    const page = await open(context, seeded.projectId, "topics")
    await page.getByRole("link", { name: largest.label, exact: true }).click()
    await page.waitForURL(`**/dashboard/projects/${seeded.projectId}/topics/${largest.id}`)
    await shown(page.getByRole("heading", { level: 1, name: largest.label, exact: true }))
    await expect.poll(() => page.title(), { timeout: STEP_MS }).toBe(`${largest.label} · svc dashboard`)
    expect(await fact(page, "Threads")).toBe(countText(largest.thread_count))
    expect(await fact(page, "Keywords")).toBe(largest.keywords.join(", "))
    await shown(page.getByRole("img", { name: /^Threads of this topic by day/ }))

    // 25 a page: two pages, in the API's order, together the topic's threads and no other.
    await page.getByLabel("Rows per page").selectOption("25")
    await page.waitForURL((at) => at.searchParams.get("limit") === "25")
    const first = await linkedThreads(page)
    expect(first).toEqual(expected.slice(0, 25))
    await checkView(page, "topic")
    const next = page.getByRole("button", { name: "Next page" })
    await expect.poll(() => next.isEnabled(), { timeout: STEP_MS }).toBe(true)
    await next.click()
    await page.waitForURL((at) => at.searchParams.has("after"))
    await expect.poll(() => linkedThreads(page), { timeout: STEP_MS }).toEqual(expected.slice(25))
    expect(await page.getByRole("button", { name: "Next page" }).isDisabled()).toBe(true)

    // A thread of it: the thread view, its question there.
    const threadId = expected[25] ?? ""
    const title = [...seeded.threads.values()].flat().find((thread) => thread.id === threadId)?.title ?? ""
    await page.getByRole("link", { name: title, exact: true }).click()
    await page.waitForURL(`**/dashboard/projects/${seeded.projectId}/threads/${threadId}`)
    await shown(page.getByRole("heading", { level: 1, name: title, exact: true }))
    await shown(page.getByText(seeded.questions.get(threadId) ?? "-", { exact: true }))
    // And back: the topic's second page again.
    await page.goBack()
    await shown(page.getByRole("heading", { level: 1, name: largest.label, exact: true }))
    await expect.poll(() => linkedThreads(page), { timeout: STEP_MS }).toEqual(expected.slice(25))
  })

  it("a project key's session reads the view, its own project's topics", async () => {
    const answer = await topicsOf(seeded.apiKey)
    const keyContext = await signedInContext(browser, gateway, seeded.apiKey, WIDE)
    try {
      const page = await open(keyContext, seeded.projectId, "topics")
      const refused: Array<string> = []
      page.on("response", (response) => {
        if (response.status() >= 400) refused.push(`${response.status()} ${response.url()}`)
      })
      expect(await navLinks(page)).toEqual(["Overview", "Threads", "Runs", "Traces", "Scores", "Settings", "Topics"])
      const cells = await tableCells(page, "Topics")
      expect(cells.map((row) => row[0])).toEqual(answer.topics.map((topic) => topic.label))
      const smallest = answer.topics[answer.topics.length - 1]
      if (!smallest) throw new Error("no topics")
      await page.getByRole("link", { name: smallest.label, exact: true }).click()
      await shown(page.getByRole("heading", { level: 1, name: smallest.label, exact: true }))
      expect((await linkedThreads(page)).sort()).toEqual((await topicThreadIds(seeded.apiKey, smallest.id)).sort())
      expect(refused).toEqual([])
    } finally {
      await closePages(keyContext)
      await keyContext.close()
    }
  })

  it("another project's topic is not found in the page, in words, and none of its threads shows", async () => {
    const theirs = await topicsOf(other.apiKey)
    const foreign = theirs.topics[0]
    if (!foreign) throw new Error("the other project has no topics")
    for (const [who, where] of [
      ["admin", () => Promise.resolve(context)],
      ["key", () => signedInContext(browser, gateway, seeded.apiKey, WIDE)]
    ] as const) {
      const session = await where()
      const seen: Array<string> = []
      try {
        const page = await open(session, seeded.projectId, `topics/${foreign.id}`, seen)
        const alert = await textOf(page.getByRole("alert"))
        expect(alert, who).toContain("Not found: this project has no topic with this id.")
        await shown(page.getByRole("link", { name: "the project's topics", exact: true }))
        expect(await page.getByRole("table", { name: "Threads", exact: true }).count(), who).toBe(0)
        const body = (await page.locator("body").textContent()) ?? ""
        for (const thread of [...other.threads.values()].flat()) expect(body, who).not.toContain(thread.title)
        expect(await seriousViolations(page), `axe on the not found topic (${who})`).toEqual([])
        // The one console error is the gateway's 404 for the topic's threads.
        expect(seen, who).toEqual([expect.stringMatching(new RegExp(`status of 404 .*/topics/${foreign.id}/threads`))])
      } finally {
        if (session !== context) {
          await closePages(session)
          await session.close()
        }
      }
    }
  })
})
