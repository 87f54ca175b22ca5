/**
 * Issue 26, topics named and placed by a model (docs/decisions.md "Topics"),
 * through real HTTP on every store: the `topics` job run through the admin
 * API against a local server on a real socket that speaks the OpenAI
 * Responses protocol (what @effect/ai-openai calls, as for evaluators), the
 * labels read back through GET /v1/projects/topics. A model that answers
 * something unparsable, prose, over 256 KiB, nothing in time or a 500
 * leaves the extractive labels and the run succeeds; an unchanged rerun asks
 * nothing again; a thread in another language is placed by the model in its
 * subject's topic and stays there through the next full run; another
 * project's topics are never offered.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeCorpus, type Subject } from "../../../bench/lib/topics-corpus.js"
import { excerpt, MODEL_BOUNDS } from "../../../src/topics/Naming.js"
import { asProject, runJob } from "../../support/helpers.js"
import { asUser, createProject, type Gateway, stores, type UserClient, useGateway } from "../../support/layers.js"
import { responseObject } from "./openai-response.js"
import { postThreads, setTopicCeiling, type TopicBody, topicList } from "./topics-fixtures.js"

const MODEL = "topics-test-model"
const API_KEY = "sk-topics-test-key-0123456789"
/** TOPICS_MODEL_TIMEOUT_MS in this suite. */
const TIMEOUT_MS = 1_500

/** The names the fake model gives, by subject. */
const NAMES: Record<Subject | "ocelot", string> = {
  billing: "Billing and payments",
  account: "Account access",
  shipping: "Orders and delivery",
  cooking: "Cooking help",
  travel: "Travel plans",
  coding: "Programming questions",
  fitness: "Fitness and training",
  career: "Career advice",
  ocelot: "Ocelot care"
}
const MODEL_NAMES = new Set(Object.values(NAMES))

/** A thread in Chinese about a double charge: no English topic shares a word with it. */
const CHINESE_BILLING = "我上个月被重复扣款了两次，请帮我申请退款。"
/** A thread in Russian about the weather: no topic fits it. */
const RUSSIAN_WEATHER = "Какая сегодня погода в парке?"

type Mode = "normal" | "unparsable" | "prose" | "huge" | "silent" | "error"

interface Call {
  readonly kind: "name" | "place"
  readonly user: string
}

const fake = {
  mode: "normal" as Mode,
  calls: [] as Array<Call>,
  /** Whether every call carried the configured key. */
  keyed: true,
  /** Subject of a thread's naming excerpt, and of its placing excerpt. */
  sampleSubject: new Map<string, Subject | "ocelot">(),
  placeSubject: new Map<string, Subject | "ocelot">(),
  server: undefined as Server | undefined,
  baseUrl: ""
}

const textOf = (body: { input?: Array<{ role: string; content: unknown }> }, role: string): string =>
  (body.input ?? [])
    .filter((message) => message.role === role)
    .map((message) =>
      typeof message.content === "string"
        ? message.content
        : (message.content as Array<{ text?: string }>).map((part) => part.text ?? "").join("")
    )
    .join("\n")

/** The fake's name for a naming question: the subject most of its samples are from. */
const nameFor = (user: string): string => {
  const votes = new Map<string, number>()
  for (const line of user.split("\n")) {
    const sample = /^\d+\. (.*)$/.exec(line)?.[1]
    const subject = sample === undefined ? undefined : fake.sampleSubject.get(sample)
    if (subject !== undefined) votes.set(subject, (votes.get(subject) ?? 0) + 1)
  }
  const best = [...votes].sort((a, b) => b[1] - a[1])[0]?.[0] as Subject | "ocelot" | undefined
  return best === undefined ? "Unknown subject" : NAMES[best]
}

/** The fake's choice for a placing question: the topic named after the conversation's subject, else none. */
const choiceFor = (user: string): string => {
  const conversation = /Conversation \(what its user wrote\):\n(.*)\n\nTopic:$/s.exec(user)?.[1] ?? ""
  const subject = conversation.includes("扣款") ? "billing" : fake.placeSubject.get(conversation)
  if (subject === undefined) return "none"
  const line = user.split("\n").find((l) => l.includes(`: ${NAMES[subject]} (keywords:`))
  return line?.split(":")[0] ?? "none"
}

const answer = (req: IncomingMessage, res: ServerResponse, raw: string) => {
  const body = JSON.parse(raw || "{}")
  const system = textOf(body, "system")
  const user = textOf(body, "user")
  const kind = system.startsWith("You name a topic") ? "name" : "place"
  fake.calls.push({ kind, user })
  if (req.headers.authorization !== `Bearer ${API_KEY}`) fake.keyed = false
  const json = (status: number, value: unknown) => {
    res.writeHead(status, { "content-type": "application/json" })
    res.end(typeof value === "string" ? value : JSON.stringify(value))
  }
  const right = kind === "name" ? `"${nameFor(user)}."` : choiceFor(user)
  switch (fake.mode) {
    case "silent":
      return // never answers: the gateway's timeout ends the call
    case "error":
      return json(500, { error: { message: "model down", type: "server_error" } })
    case "unparsable":
      return json(200, "this is not { a response object")
    case "prose":
      return json(
        200,
        responseObject(MODEL, "completed", "Sure! Here are a few ideas:\n1. Billing\n2. Payments and more things")
      )
    case "huge":
      // The right answer, in a body past 256 KiB: only the cap on what is read refuses it.
      return json(200, { ...responseObject(MODEL, "completed", right), padding: "x".repeat(300 * 1024) })
    case "normal":
      return json(200, responseObject(MODEL, "completed", right))
  }
}

beforeAll(async () => {
  fake.server = createServer((req, res) => {
    const chunks: Array<Buffer> = []
    req.on("data", (chunk: Buffer) => chunks.push(chunk))
    req.on("end", () => {
      if (req.method !== "POST" || req.url !== "/v1/responses") {
        res.writeHead(404).end()
        return
      }
      answer(req, res, Buffer.concat(chunks).toString("utf8"))
    })
  })
  await new Promise<void>((resolve) => fake.server?.listen(0, "127.0.0.1", resolve))
  fake.baseUrl = `http://127.0.0.1:${(fake.server.address() as AddressInfo).port}/v1`
})
afterAll(
  () =>
    new Promise<void>((resolve) => {
      fake.server?.closeAllConnections()
      if (fake.server === undefined) resolve()
      else fake.server.close(() => resolve())
    })
)

/** The answer after each user message of the threads posted. */
const ANSWER = "Sure."

const OCELOT = [
  "How often should I feed my pet ocelot?",
  "My ocelot keeps scratching the sofa, what can I do?",
  "What vaccines does an ocelot kitten need?",
  "Is raw chicken good food for an ocelot?",
  "How big an enclosure does an ocelot need?",
  "My ocelot is not eating, should I call the vet?",
  "Can an ocelot live with a dog?",
  "How do I trim my ocelot's claws safely?",
  "What toys does an ocelot like to play with?",
  "Is it normal for an ocelot to sleep all day?"
]

describe.each(stores)("topics named and placed by a model ($name)", (storeUnderTest) => {
  const handle = useGateway(storeUnderTest, () => ({
    JOBS_POLL_SECONDS: "0",
    TOPICS_SETTLE_SECONDS: "0",
    TOPICS_MODEL_BASE_URL: fake.baseUrl,
    TOPICS_MODEL_API_KEY: API_KEY,
    TOPICS_MODEL: MODEL,
    TOPICS_MODEL_TIMEOUT_MS: String(TIMEOUT_MS)
  }))
  let gateway: Gateway
  let projectId: string
  let apiKey: string
  let otherId: string
  let otherKey: string
  let alice: UserClient
  const subjectOf = new Map<string, Subject>()

  const topics = async (key = apiKey): Promise<Array<TopicBody>> => (await topicList(gateway, key)).topics
  /** Each thread's topic, from the project API's thread list (one page holds the project's threads). */
  const topicIds = async (): Promise<Map<string, string | null>> => {
    const reply = await asProject(gateway, apiKey)("/threads?limit=100")
    expect(reply.status, reply.text).toBe(200)
    const rows = reply.body.threads as Array<{ id: string; topic_id: string | null }>
    expect(rows.length).toBeLessThan(100)
    return new Map(rows.map((row) => [row.id, row.topic_id] as const))
  }
  const setCeiling = (project: string, value: number) => setTopicCeiling(gateway, project, value)
  /**
   * A pass of the job, after `before` (which makes a full run due: a new
   * ceiling, or the clock moved past TOPICS_REFRESH_HOURS): what it did, and
   * what it asked the model.
   */
  const pass = async (projects: number, before: () => Promise<void>) => {
    await before()
    const asked = fake.calls.length
    const run = await runJob(gateway, "topics")
    expect(run.details.projects_grouped).toBe(projects)
    expect(run.details.failed).toBe(0)
    return { run, calls: fake.calls.slice(asked) }
  }
  /** Past TOPICS_REFRESH_HOURS (24): every project is grouped again from scratch. */
  const nextDay = async () => gateway.clock.advance(25 * 3_600_000)
  /** An extractive label: up to three of the topic's keywords, comma-separated. */
  const expectExtractive = (topic: TopicBody) => {
    expect(MODEL_NAMES.has(topic.label)).toBe(false)
    for (const part of topic.label.split(", ")) expect(topic.keywords).toContain(part)
  }

  beforeAll(async () => {
    gateway = handle.current
    const project = await createProject(gateway, "topics-model")
    projectId = project.project_id
    apiKey = project.api_key
    alice = asUser(gateway, apiKey, "alice", "ws-topics")
    const corpus = makeCorpus({ perCell: 5, languages: ["en"], seed: 21, offTopic: 0 })
    const ids = await postThreads(
      alice,
      corpus.map((thread) => thread.texts),
      ANSWER
    )
    corpus.forEach((thread, i) => {
      subjectOf.set(ids[i] ?? "", thread.subject)
      fake.sampleSubject.set(excerpt(thread.texts, MODEL_BOUNDS.sampleChars), thread.subject)
      fake.placeSubject.set(excerpt(thread.texts, MODEL_BOUNDS.placeChars), thread.subject)
    })
    const other = await createProject(gateway, "topics-model-other")
    otherId = other.project_id
    otherKey = other.api_key
    await postThreads(
      asUser(gateway, otherKey, "bob", "ws-other"),
      OCELOT.map((text) => [text]),
      ANSWER
    )
    for (const text of OCELOT) {
      fake.sampleSubject.set(excerpt([text], MODEL_BOUNDS.sampleChars), "ocelot")
      fake.placeSubject.set(excerpt([text], MODEL_BOUNDS.placeChars), "ocelot")
    }
  }, 240_000)

  // Each a full run of this project (a new ceiling; the first run groups both): names failed are asked again.
  it.each<[Mode, number]>([
    ["unparsable", 2],
    ["prose", 1],
    ["huge", 1],
    ["silent", 1],
    ["error", 1]
  ])(
    "keeps the extractive labels, and the run succeeds, when the model answers %s",
    async (mode, projects) => {
      fake.mode = mode
      const started = performance.now()
      const ceiling = 10 + ["unparsable", "prose", "huge", "silent", "error"].indexOf(mode)
      const { run, calls } = await pass(projects, () => setCeiling(projectId, ceiling))
      const took = performance.now() - started
      expect(calls.filter((call) => call.kind === "name").length).toBeGreaterThan(0)
      expect(run.details.model_named).toBe(0)
      expect(run.details.model_placed).toBe(0)
      expect(run.details.model_failed).toBe(calls.length)
      const list = await topics()
      expect(list.length).toBeGreaterThanOrEqual(4)
      for (const topic of list) expectExtractive(topic)
      for (const topic of await topics(otherKey)) expectExtractive(topic)
      // A model that never answers costs its timeout per call, four calls at a time: well within the budget.
      if (mode === "silent") expect(took).toBeLessThan(MODEL_BOUNDS.namingBudgetMs)
    },
    120_000
  )

  it("names every topic by the model, read back through the project API", async () => {
    fake.mode = "normal"
    const { run, calls } = await pass(2, async () => {
      await setCeiling(projectId, 30)
      await setCeiling(otherId, 20)
    })
    const list = await topics()
    expect(run.details.model_named).toBe(list.length + (await topics(otherKey)).length)
    expect(run.details.model_failed).toBe(0)
    expect(fake.keyed).toBe(true)
    for (const topic of list) expect(MODEL_NAMES.has(topic.label), topic.label).toBe(true)
    // Each topic is named after one of its own threads' subjects (its samples are its members), and the
    // subjects come apart: at least four different names.
    const assigned = await topicIds()
    for (const topic of list) {
      const subjects = [...assigned].filter(([, t]) => t === topic.id).map(([id]) => subjectOf.get(id))
      expect(subjects.map((subject) => (subject === undefined ? "" : NAMES[subject]))).toContain(topic.label)
    }
    expect(new Set(list.map((topic) => topic.label)).size).toBeGreaterThanOrEqual(4)
    expect((await topics(otherKey)).map((topic) => topic.label)).toContain(NAMES.ocelot)
    // Each naming question holds one project's samples only.
    for (const call of calls.filter((c) => c.kind === "name")) {
      if (call.user.includes("ocelot")) expect(nameFor(call.user)).toBe(NAMES.ocelot)
      else expect(call.user.toLowerCase()).not.toContain("ocelot")
    }
  }, 120_000)

  it("places a thread in another language in its subject's topic, offering this project's topics only", async () => {
    const [chinese, russian] = await postThreads(alice, [[CHINESE_BILLING], [RUSSIAN_WEATHER]], ANSWER)
    const list = await topics()
    const before = fake.calls.length
    const run = await runJob(gateway, "topics")
    const calls = fake.calls.slice(before)
    expect(run.details.projects_grouped).toBe(0)
    expect(run.details.threads_placed).toBe(2)
    expect(run.details.model_placed).toBe(1)
    expect(run.details.model_declined).toBe(1)
    expect(calls.map((call) => call.kind)).toEqual(["place", "place"])
    const after = await topicIds()
    // The topic the model chose by its name (the fake names a topic after the subject most of its samples are from).
    const billing = after.get(chinese ?? "") ?? ""
    expect(list.find((topic) => topic.id === billing)?.label).toBe(NAMES.billing)
    expect(after.get(russian ?? "")).toBeNull()
    for (const call of calls) {
      // Every topic of this project, by its model name, and nothing of the other's.
      const offered = call.user.split("\n").filter((line) => /^T\d+: /.test(line))
      expect(offered).toHaveLength(list.length)
      for (const topic of list) expect(call.user).toContain(`: ${topic.label} (keywords:`)
      expect(call.user).not.toContain(NAMES.ocelot)
      expect(call.user.toLowerCase()).not.toContain("ocelot")
    }
    const grown = (await topics()).find((topic) => topic.id === billing)
    expect(grown?.thread_count).toBe((list.find((topic) => topic.id === billing)?.thread_count ?? 0) + 1)
  }, 120_000)

  it("keeps the model's placement through the next full run, asking nothing again", async () => {
    /** The topics of the two threads in other languages (the Chinese one's, then null for the Russian one). */
    const foreign = async () =>
      [...(await topicIds())]
        .filter(([id]) => !subjectOf.has(id))
        .map(([, topic]) => topic)
        .sort((a, b) => (a === null ? 1 : b === null ? -1 : 0))
    const before = await foreign()
    expect(before).toHaveLength(2)
    expect(before[0]).not.toBeNull()
    expect(before[1]).toBeNull()
    const { run, calls } = await pass(2, nextDay)
    expect(calls).toEqual([])
    expect(run.details.model_failed).toBe(0)
    expect(await foreign()).toEqual(before)
  }, 120_000)

  it("asks nothing again when a rerun finds the same threads", async () => {
    const before = await topics()
    const { run, calls } = await pass(2, nextDay)
    expect(calls).toEqual([])
    expect(run.details.model_named).toBe(0)
    expect(run.details.model_kept).toBe(before.length + (await topics(otherKey)).length)
    const after = await topics()
    expect(after.map((t) => [t.id, t.label]).sort()).toEqual(before.map((t) => [t.id, t.label]).sort())
  }, 120_000)
})
