import { beforeAll, describe, expect, it } from "vitest"
import { expectError, expectNoContent, listMessages, newMessage, newThread, rawRequest } from "../../support/helpers.js"
import {
  ADMIN_TOKEN,
  admin,
  asUser,
  call,
  createProject,
  type Gateway,
  NOW,
  stores,
  type UserClient,
  useGateway
} from "../../support/layers.js"

const MESSAGE_ROUTE_CAP = 128 * 1024
const DEFAULT_CAP = 1024 * 1024
/** A message body of exactly `bytes` bytes. */
const messageBody = (bytes: number) => {
  const empty = JSON.stringify({ parent_id: null, format: "svc/v0", content: { t: "" } })
  const body = JSON.stringify({ parent_id: null, format: "svc/v0", content: { t: "x".repeat(bytes - empty.length) } })
  expect(body).toHaveLength(bytes)
  return body
}

describe.each(stores)("errors ($name)", (storeUnderTest) => {
  const handle = useGateway(storeUnderTest)
  let gateway: Gateway
  let projectId: string
  let apiKey: string
  let alice: UserClient
  let threadId: string
  let messageId: string
  const headers = () => ({ authorization: `Bearer ${apiKey}`, "svc-user-id": "alice", "svc-workspace-id": "ws-err" })
  const url = (path: string) => `${gateway.baseUrl}/v1${path}`

  beforeAll(async () => {
    gateway = handle.current
    const project = await createProject(gateway)
    projectId = project.project_id
    apiKey = project.api_key
    alice = asUser(gateway, apiKey, "alice", "ws-err")
    threadId = await newThread(alice)
    messageId = await newMessage(alice, threadId)
  })
  describe("request bodies", () => {
    it("malformed JSON is 400 invalid_request on every body route", async () => {
      const raw = '{"last_message_at": '
      const json = { "content-type": "application/json" }
      expectError(await alice("POST", "/threads", { raw, headers: json }), 400)
      expectError(await alice("PUT", `/threads/${threadId}`, { raw, headers: json }), 400)
      expectError(await alice("POST", `/threads/${threadId}/messages`, { raw: "{", headers: json }), 400)
      expectError(await alice("PUT", `/threads/${threadId}/messages/${messageId}`, { raw: "nope", headers: json }), 400)
      expectError(await alice("POST", `/threads/${threadId}/messages/delete`, { raw: "[", headers: json }), 400)
      expectError(
        await alice("POST", `/threads/${threadId}/messages/${messageId}/feedback`, { raw: "}", headers: json }),
        400
      )
    })

    it.each([
      ["an array", []],
      ["a string", "x"],
      ["null", null],
      ["a number", 3]
    ])("a JSON body that is %s is 400", async (_label, body) => {
      const raw = JSON.stringify(body)
      const json = { "content-type": "application/json" }
      expectError(await alice("POST", "/threads", { raw, headers: json }), 400)
      expectError(await alice("POST", `/threads/${threadId}/messages`, { raw, headers: json }), 400)
    })

    it("a message body over 128 KiB is 413; at 128 KiB it is read (and its content refused with 400)", async () => {
      const post = `/threads/${threadId}/messages`
      const atCap = await rawRequest(url(post), {
        method: "POST",
        headers: { ...headers(), "content-type": "application/json" },
        body: messageBody(MESSAGE_ROUTE_CAP)
      })
      expectError(atCap, 400, "content")
      const over = messageBody(MESSAGE_ROUTE_CAP + 1)
      for (const [method, path] of [
        ["POST", post],
        ["PUT", `/threads/${threadId}/messages/${messageId}`],
        ["POST", `/threads/${threadId}/messages/delete`]
      ] as const) {
        const reply = await rawRequest(url(path), {
          method,
          headers: { ...headers(), "content-type": "application/json" },
          body: over
        })
        expectError(reply, 413)
      }
    })

    it("a chunked message body over 128 KiB (no Content-Length) is 413", async () => {
      const reply = await rawRequest(url(`/threads/${threadId}/messages`), {
        method: "POST",
        headers: { ...headers(), "content-type": "application/json" },
        body: messageBody(MESSAGE_ROUTE_CAP + 1024),
        chunked: true
      })
      expectError(reply, 413)
      const small = await rawRequest(url(`/threads/${threadId}/messages`), {
        method: "POST",
        headers: { ...headers(), "content-type": "application/json" },
        body: JSON.stringify({ parent_id: null, format: "svc/v0", content: { chunked: true } }),
        chunked: true
      })
      expect(small.status, small.text).toBe(201)
    })

    it("a thread body over 1 MiB is 413, a large one under it is accepted", async () => {
      const big = (bytes: number) => {
        // JSON allows any amount of white space: the size is the body's, not a field's.
        const body = JSON.stringify({ last_message_at: NOW, title: "big body" })
        return body + " ".repeat(bytes - body.length)
      }
      const opts = (body: string) => ({
        method: "POST",
        headers: { ...headers(), "content-type": "application/json" },
        body
      })
      expectError(await rawRequest(url("/threads"), opts(big(DEFAULT_CAP + 1))), 413)
      const ok = await rawRequest(url("/threads"), opts(big(DEFAULT_CAP - 1024)))
      expect(ok.status, ok.text.slice(0, 200)).toBe(201)
    })

    it("on the frontend URL too: chunked bodies over their caps are 413, under them accepted", async () => {
      const session = await call(gateway.baseUrl, "POST", `/p/${projectId}/v1/auth/tokens/anonymous`)
      expect(session.status, session.text).toBe(200)
      const front = (path: string) => `${gateway.baseUrl}/p/${projectId}/v1${path}`
      const auth = { authorization: `Bearer ${session.body.access_token}`, "content-type": "application/json" }
      const big = (bytes: number) => {
        const body = JSON.stringify({ last_message_at: NOW })
        return body + " ".repeat(bytes - body.length)
      }
      const send = (path: string, body: string) =>
        rawRequest(front(path), { method: "POST", headers: auth, body, chunked: true })
      expectError(await send("/threads", big(DEFAULT_CAP + 1024)), 413)
      const created = await send("/threads", big(DEFAULT_CAP - 1024))
      expect(created.status, created.text.slice(0, 200)).toBe(201)
      const thread = created.body.thread_id as string
      expectError(await send(`/threads/${thread}/messages`, messageBody(MESSAGE_ROUTE_CAP + 1024)), 413)
      expect((await send(`/threads/${thread}/messages`, messageBody(60 * 1024))).status).toBe(201)
    })

    it("a chunked body without credentials is 401", async () => {
      const reply = await rawRequest(url(`/threads/${threadId}/messages`), {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: messageBody(MESSAGE_ROUTE_CAP - 1024),
        chunked: true
      })
      expectError(reply, 401)
    })

    it("a body that is not declared JSON is 415", async () => {
      const text = await alice("POST", "/threads", {
        raw: JSON.stringify({ last_message_at: NOW }),
        headers: { "content-type": "text/plain" }
      })
      expectError(text, 415)
      const form = await alice("POST", `/threads/${threadId}/messages`, {
        raw: "parent_id=&format=svc",
        headers: { "content-type": "application/x-www-form-urlencoded" }
      })
      expectError(form, 415)
      const untyped = await rawRequest(url("/threads"), { method: "POST", headers: headers(), body: "{}" })
      expectError(untyped, 415)
      const charset = await alice("POST", "/threads", {
        raw: JSON.stringify({ last_message_at: NOW }),
        headers: { "content-type": "application/json; charset=utf-8" }
      })
      expect(charset.status, charset.text).toBe(201)
    })
  })

  describe("authentication and identity", () => {
    const routes = () => [
      ["GET", "/threads"],
      ["POST", "/threads"],
      ["GET", `/threads/${threadId}`],
      ["GET", `/threads/${threadId}/messages`],
      ["POST", `/threads/${threadId}/messages`]
    ]
    const body = (method: string) => (method === "POST" ? { body: { last_message_at: NOW } } : {})

    it("a missing, garbage or non-bearer credential is 401 unauthorized", async () => {
      for (const [method, path] of routes() as Array<[string, string]>) {
        const identity = { "svc-user-id": "alice", "svc-workspace-id": "ws-err" }
        for (const authorization of [
          undefined,
          "Bearer ",
          "Bearer nope",
          `Bearer sk_${"A".repeat(43)}`,
          `Basic ${apiKey}`,
          apiKey
        ]) {
          const reply = await call(gateway.baseUrl, method, `/v1${path}`, {
            ...body(method),
            headers: authorization === undefined ? identity : { ...identity, authorization }
          })
          expectError(reply, 401)
        }
      }
    })

    it("a revoked API key is 401", async () => {
      const created = await admin(gateway)("POST", `/projects/${projectId}/api-keys`, { name: "temp" })
      expect(created.status, created.text).toBe(201)
      const temp = asUser(gateway, created.body.api_key, "alice", "ws-err")
      expect((await temp("GET", `/threads/${threadId}`)).status).toBe(200)
      expectNoContent(await admin(gateway)("DELETE", `/projects/${projectId}/api-keys/${created.body.key_id}`))
      expectError(await temp("GET", `/threads/${threadId}`), 401)
      expectError(await temp("POST", "/threads", { body: { last_message_at: NOW } }), 401)
    })

    it("a missing or blank Svc-User-Id or Svc-Workspace-Id is 400", async () => {
      for (const [method, path] of routes() as Array<[string, string]>) {
        for (const [header, label] of [
          ["svc-user-id", "Svc-User-Id"],
          ["svc-workspace-id", "Svc-Workspace-Id"]
        ] as const) {
          const { [header]: _dropped, ...rest } = headers()
          expectError(await call(gateway.baseUrl, method, `/v1${path}`, { ...body(method), headers: rest }), 400, label)
          const blank = { ...headers(), [header]: "   " }
          expectError(
            await call(gateway.baseUrl, method, `/v1${path}`, { ...body(method), headers: blank }),
            400,
            label
          )
        }
      }
    })

    it("identity headers may not name an anonymous user (anon_...): 400, and its threads stay out of reach", async () => {
      const anonymous = await call(gateway.baseUrl, "POST", `/p/${projectId}/v1/auth/tokens/anonymous`)
      expect(anonymous.status).toBe(200)
      const token: string = anonymous.body.access_token
      const anonId = JSON.parse(Buffer.from(token.split(".")[1] ?? "", "base64url").toString("utf8")).sub as string
      expect(anonId.startsWith("anon_")).toBe(true)
      for (const [header, label] of [
        ["svc-user-id", "Svc-User-Id"],
        ["svc-workspace-id", "Svc-Workspace-Id"]
      ] as const) {
        for (const value of [anonId, "anon_x"]) {
          expectError(
            await call(gateway.baseUrl, "GET", "/v1/threads", { headers: { ...headers(), [header]: value } }),
            400,
            label
          )
          expectError(
            await call(gateway.baseUrl, "POST", "/v1/auth/tokens", { headers: { ...headers(), [header]: value } }),
            400,
            label
          )
        }
      }
      // Other ids that merely contain the word are identities like any other.
      expect(
        (await call(gateway.baseUrl, "GET", "/v1/threads", { headers: { ...headers(), "svc-user-id": "Anon_1" } }))
          .status
      ).toBe(200)
    })

    it("Svc-Sdk: 8 tokens pass, 9 are 400", async () => {
      const tokens = (n: number) => ["svc-client/0.2.0", ...Array.from({ length: n - 1 }, (_, i) => `app${i}/1.0.${i}`)]
      const eight = { "svc-sdk": tokens(8).join(" ") }
      const nine = { "svc-sdk": tokens(9).join(" ") }
      expect((await alice("GET", "/threads", { headers: eight })).status).toBe(200)
      const created = await alice("POST", `/threads/${threadId}/messages`, {
        body: { parent_id: null, format: "svc/v0", content: {} },
        headers: eight
      })
      expect(created.status, created.text).toBe(201)
      expectError(await alice("GET", "/threads", { headers: nine }), 400, "Svc-Sdk")
      const refused = await alice("POST", "/threads", { body: { last_message_at: NOW }, headers: nine })
      expectError(refused, 400, "Svc-Sdk")
      expectError(await alice("GET", "/threads", { headers: { "svc-sdk": `${tokens(8).join("  ")} extra` } }), 400)
    })
  })

  describe("routes and odd input", () => {
    it("an unknown route is 404 not_found", async () => {
      for (const path of ["/v1/nope", "/nope", "/v1/threads/a/b/c/d", "/v2/threads", "/v1"]) {
        expectError(await call(gateway.baseUrl, "GET", path, { headers: headers() }), 404)
      }
      expectError(await call(gateway.baseUrl, "POST", "/v1/nope", { body: {}, headers: headers() }), 404)
    })

    it("a known path with an unsupported method is a JSON 4xx, never a 500", async () => {
      for (const [method, path] of [
        ["PATCH", `/v1/threads/${threadId}`],
        ["DELETE", "/v1/threads"],
        ["GET", `/v1/threads/${threadId}/messages/${messageId}`]
      ]) {
        const reply = await call(gateway.baseUrl, method as string, path as string, { headers: headers() })
        expect(reply.status, `${method} ${path}: ${reply.text}`).toBeGreaterThanOrEqual(400)
        expect(reply.status).toBeLessThan(500)
        expect(reply.body?.error).toBeTypeOf("string")
        expect(reply.body).not.toHaveProperty("_tag")
      }
    })

    it.each([
      ["a thread id with NUL", "GET", "/threads/%00", undefined],
      ["a message id with NUL", "PUT", "/threads/THREAD/messages/%00", { content: {} }],
      ["an after cursor with NUL", "GET", "/threads/THREAD/messages?after=%00", undefined],
      ["a format with NUL", "GET", "/threads/THREAD/messages?format=a%00b", undefined],
      ["NUL in updated content", "PUT", "/threads/THREAD/messages/MESSAGE", { content: { t: "\u0000" } }],
      ["NUL in a metadata value", "POST", "/threads", { last_message_at: NOW, metadata: { k: "\u0000" } }],
      [
        "NUL in a feedback comment",
        "POST",
        "/threads/THREAD/messages/MESSAGE/feedback",
        { type: "positive", comment: "\u0000" }
      ],
      [
        "a lone surrogate in content",
        "POST",
        "/threads/THREAD/messages",
        { parent_id: null, format: "f", content: { t: "\ud800" } }
      ]
    ])("%s is never a 500", async (_label, method, template, body) => {
      const path = template.replace("THREAD", threadId).replace("MESSAGE", messageId)
      const reply = await alice(method, path, body === undefined ? {} : { body })
      expect(reply.status, reply.text).toBeLessThan(500)
    })

    it("deeply nested content is never a 500", async () => {
      const deep = `{"parent_id":null,"format":"svc/v0","content":{"a":${"[".repeat(5000)}${"]".repeat(5000)}}}`
      const reply = await alice("POST", `/threads/${threadId}/messages`, {
        raw: deep,
        headers: { "content-type": "application/json" }
      })
      expectError(reply, 400, "content")
      expect((await listMessages(alice, threadId)).length).toBeGreaterThan(0)
    })

    it("a body of thousands of nested arrays or objects is 400 on every JSON route, credentials or not", async () => {
      const arrays = (levels: number) => `${"[".repeat(levels)}${"]".repeat(levels)}`
      const objects = (levels: number) => `${'{"a":'.repeat(levels)}1${"}".repeat(levels)}`
      const bodies = [arrays(3000), arrays(5000), objects(3000), `{"refresh_token":${arrays(4000)}}`]
      const json = { "content-type": "application/json" }
      const routes: Array<[string, string, Record<string, string>]> = [
        ["POST", `/p/${projectId}/v1/auth/tokens/refresh`, json],
        ["POST", "/v1/threads", { ...json, ...headers() }],
        ["POST", "/v1/threads", json],
        ["PUT", `/v1/threads/${threadId}`, { ...json, ...headers() }],
        ["POST", `/v1/threads/${threadId}/messages`, { ...json, ...headers() }],
        ["POST", "/v1/runs", { ...json, ...headers() }],
        ["POST", "/v1/runs/stream", { ...json, ...headers() }],
        ["POST", "/v1/events", { ...json, ...headers() }],
        ["POST", "/v1/scores", { ...json, ...headers() }],
        ["POST", "/v1/threads/claim", { ...json, ...headers() }],
        ["PUT", `/v1/admin/projects/${projectId}/origins`, { ...json, authorization: `Bearer ${ADMIN_TOKEN}` }]
      ]
      for (const [method, path, routeHeaders] of routes) {
        for (const body of bodies) {
          for (const chunked of [false, true]) {
            const reply = await rawRequest(`${gateway.baseUrl}${path}`, {
              method,
              headers: routeHeaders,
              body,
              chunked
            })
            const label = `${method} ${path} ${chunked ? "chunked" : "sized"} ${body.slice(0, 20)}`
            // Without credentials the 401 comes first (the body is never read); never a 500.
            if (reply.status === 401) expect(routeHeaders.authorization === undefined, label).toBe(true)
            else expectError(reply, 400)
          }
        }
      }
      const named = await rawRequest(`${gateway.baseUrl}/v1/threads`, {
        method: "POST",
        headers: { ...json, ...headers() },
        body: `{"last_message_at":"${NOW}","metadata":${arrays(200)}}`
      })
      expectError(named, 400, "metadata")
      expect(named.body.message).toContain("deeper than 80 levels")
    })

    it("content nested 64 levels is stored, 65 is 400", async () => {
      const nest = (levels: number): unknown => (levels === 0 ? "leaf" : { n: nest(levels - 1) })
      const inside = await alice("POST", `/threads/${threadId}/messages`, {
        body: { parent_id: null, format: "deep", content: nest(64) }
      })
      expect(inside.status, inside.text).toBe(201)
      const outside = await alice("POST", `/threads/${threadId}/messages`, {
        body: { parent_id: null, format: "deep", content: nest(65) }
      })
      expectError(outside, 400, "content")
    })
  })
})
