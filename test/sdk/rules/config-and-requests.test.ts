/**
 * The configuration (docs/client-library.md "Three modes"), the main exports (its table), the
 * client object (keys, methods, paths and bodies) and its requests (query, empty
 * bodies; docs/decisions.md "Client library (svc-client)"). Headers and versioning:
 * headers-and-versioning.test.ts. What the promise methods never pass (caller
 * headers, arbitrary query values) is checked on the Transport every call goes
 * through.
 */
import {
  AssistantCloud,
  CloudAPIError,
  CloudResponseError,
  generateThreadTitle,
  readAnonymousRefreshToken
} from "svc-client"
import { afterEach, describe, expect, it } from "vitest"
import { Transport } from "../../../sdk/core/request.js"
import { SdkRegistry } from "../../../sdk/core/sdkHeader.js"
import { FakeFetch, json, jwt, jwtClient, restoreGlobals, text, threadWire } from "./fakes.js"

afterEach(restoreGlobals)

describe("Package: exports of the main entry", () => {
  it("exports the values built so far: AssistantCloud, CloudAPIError, CloudResponseError, generateThreadTitle, readAnonymousRefreshToken", () => {
    const values = { AssistantCloud, CloudAPIError, CloudResponseError, generateThreadTitle, readAnonymousRefreshToken }
    for (const [name, value] of Object.entries(values)) expect(typeof value, name).toBe("function")
  })
})

describe("Part 1: configuration", () => {
  it("the three arms are chosen in the order authToken, apiKey, anonymous", async () => {
    const all = new FakeFetch()
    const token = jwt(3600)
    const config = {
      baseUrl: "https://a.example.test",
      authToken: async () => token,
      apiKey: "sk_x",
      userId: "u",
      workspaceId: "w",
      anonymous: true as const,
      fetch: all.fetch
    }
    await new AssistantCloud(config).threads.delete("t")
    expect(all.sent[0]?.headers.get("Authorization")).toBe(`Bearer ${token}`)
    expect(all.sent[0]?.headers.has("Svc-User-Id")).toBe(false)

    const keyed = new FakeFetch()
    const { authToken: _jwt, ...withoutJwt } = config
    await new AssistantCloud(Object.assign(withoutJwt, { fetch: keyed.fetch })).threads.delete("t")
    expect(keyed.sent).toHaveLength(1)
    expect(keyed.sent[0]?.headers.get("Authorization")).toBe("Bearer sk_x")
    expect(keyed.sent[0]?.headers.get("Svc-User-Id")).toBe("u")
  })

  it("any other configuration throws: Invalid configuration: Must provide authToken, apiKey, or anonymous configuration", () => {
    const message = "Invalid configuration: Must provide authToken, apiKey, or anonymous configuration"
    const make = (config: unknown) => () =>
      new AssistantCloud(config as ConstructorParameters<typeof AssistantCloud>[0])
    expect(make({})).toThrow(new Error(message))
    expect(make({ baseUrl: "https://a.example.test" })).toThrow(message)
    expect(make({ baseUrl: "https://a.example.test", anonymous: false })).toThrow(message)
  })

  it("one trailing / is removed from baseUrl", async () => {
    const fake = new FakeFetch()
    await new AssistantCloud({
      baseUrl: "https://a.example.test/",
      authToken: async () => jwt(60),
      fetch: fake.fetch
    }).threads.delete("t")
    await new AssistantCloud({
      baseUrl: "https://a.example.test//",
      authToken: async () => jwt(60),
      fetch: fake.fetch
    }).threads.delete("t")
    expect(fake.sent.map((sent) => sent.url)).toEqual([
      "https://a.example.test/v1/threads/t",
      "https://a.example.test//v1/threads/t"
    ])
  })

  it("the API key arm has a default base URL (the backend host)", async () => {
    const fake = new FakeFetch()
    await new AssistantCloud({ apiKey: "sk", userId: "u", workspaceId: "w", fetch: fake.fetch }).threads.delete("t")
    expect(fake.sent[0]?.url).toMatch(/^https?:\/\/[^/]+\/v1\/threads\/t$/)
  })
})

describe("The client object", () => {
  it("own keys in order: threads, projects, auth, runs, files, events, scores, telemetry, registerSdk", () => {
    const cloud = jwtClient(new FakeFetch())
    expect(Object.keys(cloud)).toEqual([
      "threads",
      "projects",
      "auth",
      "runs",
      "files",
      "events",
      "scores",
      "telemetry",
      "registerSdk"
    ])
    expect(Object.keys(cloud.auth)).toEqual(["tokens"])
  })

  it("has the original client's methods, and no dispose of its own (events.dispose flushes instead)", () => {
    const cloud = jwtClient(new FakeFetch())
    const methods = [
      cloud.threads.list,
      cloud.threads.get,
      cloud.threads.create,
      cloud.threads.update,
      cloud.threads.claim,
      cloud.threads.delete,
      cloud.threads.messages.list,
      cloud.threads.messages.create,
      cloud.threads.messages.update,
      cloud.threads.messages.feedback,
      cloud.projects.threads.list,
      cloud.projects.threads.messages.list,
      cloud.auth.tokens.create,
      cloud.runs.stream,
      cloud.runs.report,
      cloud.files.generatePresignedUploadUrl,
      cloud.files.generatePresignedDownloadUrl,
      cloud.scores.create,
      cloud.events.track,
      cloud.events.dispose,
      cloud.registerSdk
    ]
    for (const method of methods) expect(typeof method).toBe("function")
    expect("dispose" in cloud).toBe(false)
  })

  it("ids in paths are URI-encoded", async () => {
    const fake = new FakeFetch()
    const cloud = jwtClient(fake)
    await cloud.threads.delete("a/b c")
    await cloud.threads.messages.update("t/1", "m?2#", { content: {} })
    expect(fake.sent.map((sent) => sent.path)).toEqual(["/v1/threads/a%2Fb%20c", "/v1/threads/t%2F1/messages/m%3F2%23"])
  })

  it("threads.create takes last_message_at as a Date and sends it as an ISO string", async () => {
    const fake = new FakeFetch().answer(json({ thread_id: "t9" }))
    const at = new Date("2031-02-03T04:05:06.789Z")
    expect(await jwtClient(fake).threads.create({ last_message_at: at, title: "x" })).toEqual({ thread_id: "t9" })
    expect(FakeFetch.json(fake.sent[0])).toEqual({ last_message_at: "2031-02-03T04:05:06.789Z", title: "x" })
    // An update's last_message_at goes the same way.
    await jwtClient(fake).threads.update("t9", { last_message_at: at })
    expect(FakeFetch.json(fake.sent[1])).toEqual({ last_message_at: "2031-02-03T04:05:06.789Z" })
  })

  it("feedback comment is trimmed, and left out when empty", async () => {
    const fake = new FakeFetch(() => json({ feedback_id: "f", type: "positive" }))
    const cloud = jwtClient(fake)
    await cloud.threads.messages.feedback("t", "m", { type: "positive", comment: "  nice  " })
    await cloud.threads.messages.feedback("t", "m", { type: "negative", comment: "   " })
    await cloud.threads.messages.feedback("t", "m", { type: "negative" })
    expect(fake.sent.map(FakeFetch.json)).toEqual([
      { type: "positive", comment: "nice" },
      { type: "negative" },
      { type: "negative" }
    ])
  })
})

describe("Part 4: endpoints", () => {
  type Cloud = ReturnType<typeof jwtClient>
  /** A row of the tables: the request it makes, what it sends, the answer and what the method returns of it. */
  interface Row {
    readonly route: string
    readonly call: (cloud: Cloud) => Promise<unknown>
    readonly body?: unknown
    readonly answer?: unknown
    readonly result?: unknown
  }
  const thread = threadWire()
  const upload = { success: true, signedUrl: "s", expiresAt: "e", publicUrl: "p", key: "k" }
  const score = { score_id: "s1", name: "q", data_type: "numeric", value: 1, string_value: null }
  const message = { parent_id: null, format: "svc/v0", content: { a: 1 } }
  const rows: ReadonlyArray<Row> = [
    {
      route: "GET /v1/threads?is_archived=true&limit=5&after=t0",
      call: (c) => c.threads.list({ is_archived: true, limit: 5, after: "t0" }),
      answer: { threads: [thread] }
    },
    { route: "GET /v1/threads/t1", call: (c) => c.threads.get("t1"), answer: thread },
    {
      route: "POST /v1/threads",
      call: (c) => c.threads.create({ last_message_at: new Date(0), external_id: "e" }),
      body: { last_message_at: "1970-01-01T00:00:00.000Z", external_id: "e" },
      answer: { thread_id: "t1" },
      result: { thread_id: "t1" }
    },
    {
      route: "PUT /v1/threads/t1",
      call: (c) => c.threads.update("t1", { title: "x", is_archived: true }),
      body: { title: "x", is_archived: true }
    },
    {
      route: "POST /v1/threads/claim",
      call: (c) => c.threads.claim({ refresh_token: "rt" }),
      body: { refresh_token: "rt" },
      answer: { moved: 2 },
      result: { moved: 2 }
    },
    { route: "DELETE /v1/threads/t1", call: (c) => c.threads.delete("t1") },
    {
      route: "GET /v1/threads/t1/messages?format=svc%2Fv0&limit=10&after=m0",
      call: (c) => c.threads.messages.list("t1", { format: "svc/v0", limit: 10, after: "m0" }),
      answer: { messages: [] },
      result: { messages: [] }
    },
    {
      route: "POST /v1/threads/t1/messages",
      call: (c) => c.threads.messages.create("t1", message),
      body: message,
      answer: { message_id: "m1" },
      result: { message_id: "m1" }
    },
    {
      route: "PUT /v1/threads/t1/messages/m1",
      call: (c) => c.threads.messages.update("t1", "m1", { content: { b: 2 } }),
      body: { content: { b: 2 } }
    },
    {
      route: "POST /v1/threads/t1/messages/m1/feedback",
      call: (c) => c.threads.messages.feedback("t1", "m1", { type: "positive" }),
      body: { type: "positive" },
      answer: { feedback_id: "f1", type: "positive" },
      result: { feedback_id: "f1", type: "positive" }
    },
    {
      route: "POST /v1/runs",
      call: (c) => c.runs.report({ thread_id: "t1", status: "completed" } as never),
      body: { thread_id: "t1", status: "completed" },
      answer: { run_id: "r1" },
      result: { run_id: "r1" }
    },
    {
      route: "POST /v1/files/attachments/generate-presigned-upload-url",
      call: (c) => c.files.generatePresignedUploadUrl({ filename: "a.png" }),
      body: { filename: "a.png" },
      answer: upload,
      result: upload
    },
    {
      route: "POST /v1/files/attachments/generate-presigned-download-url",
      call: (c) => c.files.generatePresignedDownloadUrl({ key: "k" }),
      body: { key: "k" },
      answer: { signedUrl: "s", expiresAt: "e", key: "k" },
      result: { signedUrl: "s", expiresAt: "e", key: "k" }
    },
    {
      route: "POST /v1/scores",
      call: (c) => c.scores.create({ name: "q", data_type: "numeric", value: 1 }),
      body: { name: "q", data_type: "numeric", value: 1 },
      answer: score,
      result: score
    },
    {
      route: "POST /v1/auth/tokens",
      call: (c) => c.auth.tokens.create(),
      answer: { token: "tk" },
      result: { token: "tk" }
    },
    {
      route: "GET /v1/projects/threads?is_archived=false",
      call: (c) => c.projects.threads.list({ is_archived: false }),
      answer: { threads: [] },
      result: { threads: [] }
    },
    {
      route: "GET /v1/projects/threads/t1/messages?limit=3",
      call: (c) => c.projects.threads.messages.list("t1", { limit: 3 }),
      answer: { messages: [] },
      result: { messages: [] }
    }
  ]

  for (const { route, call, body, answer, result } of rows)
    it(`${route}: method, path, body and answer of the table`, async () => {
      const fake = new FakeFetch().answer(answer === undefined ? new Response(null, { status: 204 }) : json(answer))
      const value = await call(jwtClient(fake))
      const [method, path] = route.split(" ")
      expect(fake.sent).toHaveLength(1)
      expect([fake.sent[0]?.method, fake.sent[0]?.path]).toEqual([method, path])
      expect(FakeFetch.json(fake.sent[0])).toEqual(body)
      // Lists and reads are checked in errors-and-shapes.test.ts; the rest answer what the table says.
      if (result !== undefined || answer === undefined) expect(value).toEqual(result)
    })

  it("JSON bodies go with Content-Type application/json, always set and not overridable", async () => {
    const fake = new FakeFetch()
    await jwtClient(fake).threads.delete("t")
    const transport = new Transport("https://x.test", { headers: async () => ({}) }, new SdkRegistry(), fake.fetch)
    await transport.raw("/threads", { method: "POST", body: {}, headers: { "Content-Type": "text/plain" } })
    expect(fake.sent.map((sent) => sent.headers.get("Content-Type"))).toEqual(["application/json", "application/json"])
  })

  it("Accept may be set by the caller (runs.stream asks for text/plain)", async () => {
    const fake = new FakeFetch().answer(text("T", 200, { "Content-Type": "text/plain" }))
    await jwtClient(fake).runs.stream({ thread_id: "t", assistant_id: "system/thread_title", messages: [] })
    expect(fake.sent[0]?.headers.get("Accept")).toBe("text/plain")
  })

  it("query: true as true, numbers as strings, false dropped except is_archived, undefined skipped, no ? when empty", async () => {
    const fake = new FakeFetch(() => json({ threads: [], messages: [] }))
    const cloud = jwtClient(fake)
    await cloud.threads.list({ is_archived: true, limit: 20 })
    await cloud.threads.list({ is_archived: false })
    await cloud.threads.list({ limit: undefined, after: undefined })
    await cloud.threads.list()
    const transport = new Transport("https://x.test", { headers: async () => ({}) }, new SdkRegistry(), fake.fetch)
    await transport.raw("/x", { query: { flag: false, on: true, n: 1.5, gone: undefined, none: null } })
    expect(fake.sent.map((sent) => sent.path)).toEqual([
      "/v1/threads?is_archived=true&limit=20",
      "/v1/threads?is_archived=false",
      "/v1/threads",
      "/v1/threads",
      "/v1/x?on=true&n=1.5"
    ])
  })

  it("a 204, content-length 0 or a blank body yields no value", async () => {
    const answers = [
      new Response(null, { status: 204 }),
      new Response("", { status: 200, headers: { "content-length": "0" } }),
      text("  \n ", 200, { "Content-Type": "application/json" })
    ]
    for (const answer of answers) {
      const fake = new FakeFetch().answer(answer.clone(), answer.clone(), answer)
      const cloud = jwtClient(fake)
      await expect(cloud.threads.update("t", { title: "x" })).resolves.toBeUndefined()
      await expect(cloud.threads.delete("t")).resolves.toBeUndefined()
      // A data method finds no value where it needs an object.
      await expect(cloud.threads.get("t")).rejects.toThrow('Invalid service response for "thread": expected an object')
    }
  })

  it("every request carries the Svc-Sdk header", async () => {
    const fake = new FakeFetch(() => json({}))
    const cloud = jwtClient(fake)
    await Promise.allSettled(rows.map(({ call }) => call(cloud)))
    cloud.events.track({ kind: "message_copied" })
    await cloud.events.dispose()
    expect(fake.sent).toHaveLength(rows.length + 1)
    for (const sent of fake.sent) expect(sent.headers.get("Svc-Sdk")).toMatch(/^svc-client\/0\.2\.\d+$/)
  })
})
