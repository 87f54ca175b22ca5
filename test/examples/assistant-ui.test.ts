/**
 * The assistant-ui example (examples/assistant-ui, issue 26) in headless Chromium against a real
 * gateway, on each store: the app built as its README builds it (the client package built, the
 * example's own dependencies installed from its lockfile when missing, `npm run build`: tsc and
 * vite) and served by its own server (server.mjs: the page, its configuration, the local model
 * stand-in), which adds its origin to the project's allowed origins with the admin token. A
 * message is typed, its answer streams in, the thread gets its generated title in the list; after
 * a reload the thread is found by that title with its messages; a second thread is opened and the
 * first found again; another browser context (another anonymous user) sees none of it. Each
 * step has its own deadline; contexts are closed, never pages (a page.close() racing a navigation
 * can wait for ever: browser-support.ts `closePages`).
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process"
import { existsSync, statSync } from "node:fs"
import * as path from "node:path"
import type { Browser, BrowserContext, Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  chromiumAvailable,
  collectErrors,
  launchChromium,
  seriousViolations,
  shown
} from "../protocols/dashboard/browser-support.js"
import { asProject } from "../support/helpers.js"
import { ADMIN_TOKEN, clientStores, createProject, type Gateway, useGateway } from "../support/layers.js"
import { root } from "../support/process.js"

const EXAMPLE = path.join(root, "examples", "assistant-ui")
/** One step's deadline: a locator's wait, a poll of the gateway. */
const STEP_MS = 10_000

/** A command run to its end; the environment's NODE_ENV (vitest sets "test") is left out, as in a shell. */
const run = (command: string, args: ReadonlyArray<string>, cwd: string, timeout: number) => {
  const { NODE_ENV: _, ...env } = process.env
  return execFileSync(command, [...args], { cwd, env, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], timeout })
}

/** True when the example's node_modules holds what its lockfile says (npm ci writes the hidden lockfile last). */
const installed = (): boolean => {
  const hidden = path.join(EXAMPLE, "node_modules", ".package-lock.json")
  if (!existsSync(hidden)) return false
  const since = statSync(hidden).mtimeMs
  return ["package.json", "package-lock.json"].every((file) => statSync(path.join(EXAMPLE, file)).mtimeMs <= since)
}

/** The client package (sdk/dist, which the example links), the example's dependencies, the app (dist/). */
const buildExample = () => {
  run(process.execPath, [path.join(root, "scripts", "build-sdk.mjs")], root, 120_000)
  if (!installed()) run("npm", ["ci", "--prefer-offline", "--no-audit", "--no-fund"], EXAMPLE, 300_000)
  run("npm", ["run", "build"], EXAMPLE, 120_000)
}

interface AppServer {
  readonly origin: string
  readonly close: () => Promise<void>
}

/** `node server.mjs` on a free port for the project; answers once it says where it listens. */
const startApp = (gateway: Gateway, projectId: string): Promise<AppServer> =>
  new Promise((resolve, reject) => {
    const child: ChildProcess = spawn(process.execPath, ["server.mjs"], {
      cwd: EXAMPLE,
      env: {
        ...process.env,
        SVC_BASE_URL: gateway.baseUrl,
        SVC_PROJECT_ID: projectId,
        ADMIN_TOKEN,
        PORT: "0",
        HOST: "127.0.0.1",
        // 28 words 50 ms apart: the answer takes about 1.4 s to stream, long enough to be seen growing.
        MODEL_DELAY_MS: "50"
      },
      stdio: ["ignore", "pipe", "pipe"]
    })
    let out = ""
    const timer = setTimeout(() => {
      child.kill()
      reject(new Error(`the app server did not start: ${out}`))
    }, STEP_MS)
    const exited = new Promise<void>((done) => child.once("exit", () => done()))
    const onData = (chunk: Buffer) => {
      out += chunk.toString("utf8")
      const origin = /example on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)?.[1]
      if (origin === undefined) return
      clearTimeout(timer)
      resolve({
        origin,
        close: async () => {
          if (child.exitCode === null) child.kill("SIGTERM")
          await exited
        }
      })
    }
    child.stdout?.on("data", onData)
    child.stderr?.on("data", (chunk: Buffer) => {
      out += chunk.toString("utf8")
    })
    child.once("exit", (code) => {
      clearTimeout(timer)
      reject(new Error(`the app server exited (${code}): ${out}`))
    })
  })

/** Polls `read` until `done` holds (or the step's time is up); answers the last value. */
const until = async <A>(read: () => Promise<A>, done: (value: A) => boolean, timeoutMs = STEP_MS): Promise<A> => {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await read()
    if (done(value) || Date.now() > deadline) return value
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

/** The stand-in model's answer (server.mjs) to the `turn`th question `question`. */
const answerTo = (question: string, turn: number) =>
  `You asked: "${question}". This answer comes from the local stand-in model (turn ${turn}), streamed word by word, and the gateway stores it with the thread.`

const messages = (page: Page) => page.getByRole("log", { name: "Messages" })
const threadList = (page: Page) => page.getByRole("navigation", { name: "Threads" })
const lastAnswer = (page: Page) => messages(page).getByRole("article", { name: "Assistant" }).last()

/** Types `question` and sends it; answers the texts the last answer showed while it streamed, in order. */
const ask = async (page: Page, question: string): Promise<Array<string>> => {
  await page.getByRole("textbox", { name: "Message" }).fill(question)
  await page.getByRole("button", { name: "Send" }).click()
  await shown(messages(page).getByRole("article", { name: "You" }).filter({ hasText: question }), STEP_MS)
  const seen: Array<string> = []
  const deadline = Date.now() + STEP_MS
  // Read as it streams: the question's answer is complete once it ends with the model's last words.
  for (;;) {
    // The bubble: the article's text without its "Assistant" label, and without the dot assistant-ui shows
    // after a part while it streams.
    const bubble = (await lastAnswer(page).locator(".bubble").textContent({ timeout: STEP_MS })) ?? ""
    const text = bubble.replace(/\s*\u25cf$/, "").trim()
    if (text !== "" && text !== seen.at(-1)) seen.push(text)
    if (text.endsWith("with the thread.") || Date.now() > deadline) return seen
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

interface StoredThread {
  readonly id: string
  readonly title: string | null
  readonly workspace_id: string
}
interface StoredMessage {
  readonly format: string
  readonly content: { readonly role: string; readonly content: ReadonlyArray<{ type: string; text?: string }> }
}

if (chromiumAvailable("test/examples/assistant-ui.test.ts")) {
  let browser: Browser
  beforeAll(async () => {
    buildExample()
    browser = await launchChromium()
  }, 600_000)
  afterAll(async () => {
    await browser?.close()
  })

  for (const store of clientStores)
    describe(`the assistant-ui example in Chromium (${store.name})`, () => {
      const gateway = useGateway(store)
      let app: AppServer
      let apiKey = ""
      const contexts: Array<BrowserContext> = []

      beforeAll(async () => {
        const project = await createProject(gateway.current, "assistant-ui")
        apiKey = project.api_key
        app = await startApp(gateway.current, project.project_id)
      }, 60_000)
      afterAll(async () => {
        // Contexts, not pages: a page.close() racing a navigation can wait for ever (browser-support.ts).
        await Promise.all(contexts.map((context) => context.close()))
        await app?.close()
      })

      const project = (route: string) => asProject(gateway.current, apiKey)(route)
      const threads = async (): Promise<Array<StoredThread>> => {
        const reply = await project("/threads")
        expect(reply.status, reply.text).toBe(200)
        return reply.body.threads
      }
      const storedMessages = async (threadId: string): Promise<Array<StoredMessage>> => {
        const reply = await project(`/threads/${threadId}/messages`)
        expect(reply.status, reply.text).toBe(200)
        return reply.body.messages
      }
      const textOf = (message: StoredMessage) =>
        message.content.content.map((part) => (part.type === "text" ? (part.text ?? "") : "")).join("")
      /** The thread holding `question`, once the gateway has its title and the whole answer. */
      const settled = async (question: string, turn: number) => {
        const find = async () => {
          for (const thread of await threads()) {
            const rows = await storedMessages(thread.id)
            if (rows.some((row) => textOf(row) === question)) return { thread, rows }
          }
          return undefined
        }
        const found = await until(
          find,
          (value) =>
            value !== undefined &&
            (value.thread.title ?? "") !== "" &&
            value.rows.some((row) => textOf(row) === answerTo(question, turn))
        )
        if (found === undefined) throw new Error(`no stored thread holds "${question}"`)
        return found
      }

      it("streams an answer, lists the thread under its generated title, and keeps it across a reload and a second thread", async () => {
        const errors: Array<string> = []
        const context = await browser.newContext({ viewport: { width: 1100, height: 720 } })
        contexts.push(context)
        const page = await context.newPage()
        collectErrors(page, errors)
        await page.goto(`${app.origin}/`, { timeout: STEP_MS })
        await shown(page.getByRole("button", { name: "New thread" }), STEP_MS)

        // The answer streams in: several growing texts before the whole one.
        const first = "Plan a picnic in Lisbon"
        const streamed = await ask(page, first)
        expect(streamed.at(-1)).toBe(answerTo(first, 1))
        expect(streamed.length).toBeGreaterThan(3)
        const grows = streamed.every((text, index) => index === 0 || text.startsWith(streamed[index - 1] ?? ""))
        expect(grows, JSON.stringify(streamed)).toBe(true)

        // The gateway has the thread, its generated title, and both messages in its own format name (the
        // client maps assistant-ui's aui/v0), the answer whole (stored while it streamed, then replaced).
        const one = await settled(first, 1)
        const title = one.thread.title ?? ""
        expect(title).not.toBe("")
        expect(one.rows.map((row) => [row.format, row.content.role, textOf(row)])).toEqual([
          ["svc/v0", "user", first],
          ["svc/v0", "assistant", answerTo(first, 1)]
        ])
        expect(one.thread.workspace_id).toMatch(/^anon_/)
        await shown(threadList(page).getByRole("button", { name: title, exact: true }), STEP_MS)

        // A reload: the thread is in the list under its title, and opening it loads its messages.
        await page.reload({ timeout: STEP_MS })
        const firstThread = threadList(page).getByRole("button", { name: title, exact: true })
        await shown(firstThread, STEP_MS)
        await firstThread.click({ timeout: STEP_MS })
        await shown(messages(page).getByRole("article", { name: "You" }).filter({ hasText: first }), STEP_MS)
        await shown(lastAnswer(page).filter({ hasText: answerTo(first, 1) }), STEP_MS)

        // A second thread: a new one, empty, then its own question, answer and title.
        await page.getByRole("button", { name: "New thread" }).click({ timeout: STEP_MS })
        await shown(page.getByText("Ask anything"), STEP_MS)
        expect(await messages(page).getByRole("article").count()).toBe(0)
        const second = "What is there to see in Porto"
        expect((await ask(page, second)).at(-1)).toBe(answerTo(second, 1))
        const two = await settled(second, 1)
        expect(two.thread.id).not.toBe(one.thread.id)
        expect(two.thread.workspace_id).toBe(one.thread.workspace_id)
        await shown(threadList(page).getByRole("button", { name: two.thread.title ?? "", exact: true }), STEP_MS)

        // Back to the first: its messages, not the second's.
        await firstThread.click({ timeout: STEP_MS })
        await shown(messages(page).getByRole("article", { name: "You" }).filter({ hasText: first }), STEP_MS)
        await shown(lastAnswer(page).filter({ hasText: answerTo(first, 1) }), STEP_MS)
        expect(await messages(page).getByText(second).count()).toBe(0)
        expect(await messages(page).getByRole("article").count()).toBe(2)

        expect(await seriousViolations(page)).toEqual([])
        expect(errors).toEqual([])
      }, 90_000)

      it("another browser (another anonymous user) sees none of the first one's threads", async () => {
        const before = await threads()
        expect(before.length).toBeGreaterThanOrEqual(2)
        const errors: Array<string> = []
        const context = await browser.newContext({ viewport: { width: 1100, height: 720 } })
        contexts.push(context)
        const page = await context.newPage()
        collectErrors(page, errors)
        await page.goto(`${app.origin}/`, { timeout: STEP_MS })
        const question = "Where do puffins nest"
        expect((await ask(page, question)).at(-1)).toBe(answerTo(question, 1))
        // Its own thread, in a workspace of its own.
        const after = await until(threads, (all) => all.length > before.length)
        const own = after.filter((thread) => !before.some((other) => other.id === thread.id))
        expect(own).toHaveLength(1)
        const mine = own[0]
        expect(mine?.workspace_id).toMatch(/^anon_/)
        expect(before.map((thread) => thread.workspace_id)).not.toContain(mine?.workspace_id)
        const { thread } = await settled(question, 1)
        // After a reload its list is the gateway's answer for this user: its thread, and no other.
        await page.reload({ timeout: STEP_MS })
        await shown(threadList(page).getByRole("button", { name: thread.title ?? "", exact: true }), STEP_MS)
        const names = (await threadList(page).getByRole("button").allTextContents()).map((name) => name.trim())
        expect(names.sort()).toEqual(["New thread", thread.title ?? ""].sort())
        for (const other of before) expect(names).not.toContain(other.title)
        expect(errors).toEqual([])
      }, 60_000)
    })
}
