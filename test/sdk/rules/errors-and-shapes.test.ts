/**
 * The client's errors (server statuses as the client sees them, client errors,
 * CloudAPIError rules 1 to 4, who raises what, no retry) and its response checks:
 * docs/decisions.md "Client library (svc-client)", docs/api-and-auth.md "Errors".
 */
import { CloudAPIError, CloudResponseError } from "svc-client"
import { afterEach, describe, expect, it } from "vitest"
import {
  apiKeyClient,
  FakeFetch,
  ISO,
  json,
  jwtClient,
  messageWire,
  restoreGlobals,
  text,
  threadWire
} from "./fakes.js"

afterEach(restoreGlobals)

/** The error a call rejects with (the test fails if it resolves). */
const failure = async (call: Promise<unknown>): Promise<Error> => {
  const outcome = await call.then(
    () => undefined,
    (error: unknown) => error
  )
  if (!(outcome instanceof Error)) throw new Error("expected the call to fail")
  return outcome
}

/** The CloudAPIError of a GET /v1/threads/t answered with `body` and `status`. */
const apiError = async (status: number, body: string): Promise<CloudAPIError> => {
  const error = await failure(jwtClient(new FakeFetch().answer(text(body, status))).threads.get("t"))
  expect(error).toBeInstanceOf(CloudAPIError)
  return error as CloudAPIError
}

describe("Part 7: server statuses", () => {
  it("429 rate_limited arrives as a CloudAPIError with status 429 and code rate_limited", async () => {
    const fake = new FakeFetch().answer(
      json({ error: "rate_limited" }, { status: 429, headers: { "Retry-After": "7" } })
    )
    const error = await failure(apiKeyClient(fake).threads.list())
    expect(error).toMatchObject({ name: "CloudAPIError", status: 429, code: "rate_limited", details: {} })
  })
})

describe("Part 7: client errors", () => {
  it("CloudAPIError for every non-successful HTTP response, with status a number", async () => {
    for (const status of [400, 401, 403, 404, 409, 413, 422, 429, 500, 502, 503]) {
      const error = await apiError(status, "")
      expect(error.status).toBe(status)
    }
  })

  it("CloudResponseError: Invalid service response for <field>: expected <expectation>", async () => {
    const fake = new FakeFetch().answer(json(threadWire({ is_archived: "no" })))
    const error = await failure(jwtClient(fake).threads.get("t"))
    expect(error).toBeInstanceOf(CloudResponseError)
    expect(error.message).toBe('Invalid service response for "thread.is_archived": expected a boolean')
  })

  it("1: message is the body's message when a non-empty string, else Request failed with status <status>, <body>", async () => {
    expect((await apiError(404, '{"error":"not_found","message":"Thread not found"}')).message).toBe("Thread not found")
    expect((await apiError(404, '{"error":"not_found","message":""}')).message).toBe(
      'Request failed with status 404, {"error":"not_found","message":""}'
    )
    expect((await apiError(400, '{"message":42}')).message).toBe('Request failed with status 400, {"message":42}')
    expect((await apiError(500, "")).message).toBe("Request failed with status 500, ")
  })

  it("2: code is the body's error when it is a string", async () => {
    expect((await apiError(409, '{"error":"conflict"}')).code).toBe("conflict")
    expect((await apiError(409, '{"error":{"kind":"conflict"}}')).code).toBeUndefined()
    expect((await apiError(409, '{"message":"m"}')).code).toBeUndefined()
  })

  it("3: details is a shallow copy of the body object without error; an empty object is possible", async () => {
    const error = await apiError(400, '{"error":"invalid","message":"Bad","field":"title","limits":{"max":255}}')
    expect(error.details).toEqual({ message: "Bad", field: "title", limits: { max: 255 } })
    expect(Object.hasOwn(error.details ?? {}, "error")).toBe(false)
    expect((await apiError(429, '{"error":"rate_limited"}')).details).toEqual({})
    expect((await apiError(400, "{}")).details).toEqual({})
  })

  it("4: a body that is not an object, is an array or cannot be parsed gives no code, details or message", async () => {
    for (const body of [
      '"oops"',
      "42",
      "null",
      "true",
      '[{"error":"x","message":"y"}]',
      "<html>bad gateway</html>",
      ""
    ]) {
      const error = await apiError(502, body)
      expect(error.code, body).toBeUndefined()
      expect(error.details, body).toBeUndefined()
      expect(error.message, body).toBe(`Request failed with status 502, ${body}`)
    }
  })

  it("methods that return no data (thread update and delete, message update) raise only CloudAPIError", async () => {
    const calls = (cloud: ReturnType<typeof jwtClient>) => [
      cloud.threads.update("t", { title: "x" }),
      cloud.threads.delete("t"),
      cloud.threads.messages.update("t", "m", { content: {} })
    ]
    // A successful answer with a body that is no JSON, or JSON of any shape, is no failure of theirs.
    for (const answer of [text("OK", 200), text("<html></html>", 200), json([1, 2]), json({ unexpected: true })]) {
      const outcomes = await Promise.allSettled(calls(jwtClient(new FakeFetch(() => answer.clone()))))
      expect(outcomes).toEqual(Array(3).fill({ status: "fulfilled", value: undefined }))
    }
    const failing = new FakeFetch(() => json({ error: "not_found" }, { status: 404 }))
    for (const outcome of await Promise.allSettled(calls(jwtClient(failing))))
      expect(outcome.status === "rejected" && outcome.reason instanceof CloudAPIError).toBe(true)
  })

  it("other data methods can raise both classes", async () => {
    const cloud = (answer: Response) => jwtClient(new FakeFetch(() => answer.clone()))
    await expect(cloud(json({}, { status: 500 })).threads.claim({ refresh_token: "r" })).rejects.toBeInstanceOf(
      CloudAPIError
    )
    await expect(cloud(json({ moved: "2" })).threads.claim({ refresh_token: "r" })).rejects.toThrow(
      new CloudResponseError('Invalid service response for "moved": expected an integer')
    )
    await expect(cloud(text("not json")).threads.get("t")).rejects.toBeInstanceOf(CloudResponseError)
  })

  it("there is no client retry", async () => {
    for (const status of [429, 500, 503]) {
      const fake = new FakeFetch(() => json({ error: "x" }, { status }))
      await expect(jwtClient(fake).threads.list()).rejects.toBeInstanceOf(CloudAPIError)
      expect(fake.sent).toHaveLength(1)
    }
    const network = new FakeFetch(() => Promise.reject(new TypeError("fetch failed")))
    await expect(jwtClient(network).threads.delete("t")).rejects.toThrow("fetch failed")
    expect(network.sent).toHaveLength(1)
  })
})

describe("Errors: the classes", () => {
  it('CloudAPIError: name "CloudAPIError"; status, code and details always own properties', async () => {
    const error = await apiError(500, "plain")
    expect(error.name).toBe("CloudAPIError")
    expect(error).toBeInstanceOf(Error)
    for (const key of ["status", "code", "details"]) expect(Object.hasOwn(error, key), key).toBe(true)
    expect([error.code, error.details]).toEqual([undefined, undefined])
    expect(String(error)).toBe("CloudAPIError: Request failed with status 500, plain")
  })

  it('CloudResponseError: name "CloudResponseError"', async () => {
    const error = await failure(
      jwtClient(new FakeFetch().answer(json({}))).threads.create({ last_message_at: new Date() })
    )
    expect(error).toBeInstanceOf(CloudResponseError)
    expect(error).toBeInstanceOf(Error)
    expect(error.name).toBe("CloudResponseError")
    expect(error.message).toBe('Invalid service response for "thread_id": expected a string')
  })
})

describe("The client object: response checks", () => {
  const getThread = (body: unknown) => jwtClient(new FakeFetch().answer(json(body))).threads.get("t")
  const listMessages = (messages: unknown) =>
    jwtClient(new FakeFetch().answer(json({ messages }))).threads.messages.list("t")

  it("a thread needs every field", async () => {
    for (const field of Object.keys(threadWire())) {
      const body = threadWire()
      delete body[field]
      await expect(getThread(body), field).rejects.toThrow(
        new CloudResponseError(`Invalid service response for "thread.${field}": expected to be present`)
      )
    }
  })

  it('a null title becomes ""', async () => {
    expect((await getThread(threadWire({ title: null }))).title).toBe("")
    await expect(getThread(threadWire({ title: 3 }))).rejects.toThrow(
      'Invalid service response for "thread.title": expected a string or null'
    )
  })

  it("external_id is a string or null", async () => {
    expect((await getThread(threadWire({ external_id: "ext-1" }))).external_id).toBe("ext-1")
    expect((await getThread(threadWire({ external_id: null }))).external_id).toBeNull()
    await expect(getThread(threadWire({ external_id: 7 }))).rejects.toThrow(
      'Invalid service response for "thread.external_id": expected a string or null'
    )
  })

  it('is_archived is a boolean: Invalid service response for "thread.is_archived": expected a boolean', async () => {
    await expect(getThread(threadWire({ is_archived: "false" }))).rejects.toThrow(
      new CloudResponseError('Invalid service response for "thread.is_archived": expected a boolean')
    )
  })

  it("timestamps must be canonical ISO strings and come back as Date objects", async () => {
    const thread = await getThread(threadWire({ updated_at: "2030-01-02T03:04:05.678Z" }))
    for (const field of ["created_at", "updated_at", "last_message_at"] as const)
      expect(thread[field], field).toBeInstanceOf(Date)
    expect(thread.updated_at.toISOString()).toBe("2030-01-02T03:04:05.678Z")
    for (const bad of [
      "2030-01-01T00:00:00Z",
      "2030-01-01",
      "2030-01-01T00:00:00.000+00:00",
      "yesterday",
      1_900_000_000_000
    ])
      await expect(getThread(threadWire({ created_at: bad })), String(bad)).rejects.toThrow(
        'Invalid service response for "thread.created_at": expected an ISO 8601 timestamp'
      )
  })

  it("a thread list names the item's path", async () => {
    const fake = new FakeFetch().answer(json({ threads: [threadWire(), threadWire({ workspace_id: null })] }))
    await expect(jwtClient(fake).threads.list()).rejects.toThrow(
      'Invalid service response for "thread[1].workspace_id": expected a string'
    )
  })

  it("a message needs id, parent_id (present, may be null), integer height, format and object content", async () => {
    const [message] = (await listMessages([messageWire({ parent_id: null })])).messages
    // svc/v0 is answered under the original's name (docs/decisions.md "assistant-ui as the cloud client (issue 26)").
    expect(message).toMatchObject({ id: "m1", parent_id: null, height: 0, format: "aui/v0", content: { a: 1 } })
    expect(message?.created_at).toEqual(new Date(ISO))
    const without = messageWire()
    delete without.parent_id
    const cases: ReadonlyArray<readonly [unknown, string]> = [
      [without, '"message[0].parent_id": expected to be present'],
      [messageWire({ id: 1 }), '"message[0].id": expected a string'],
      [messageWire({ parent_id: 5 }), '"message[0].parent_id": expected a string or null'],
      [messageWire({ height: 1.5 }), '"message[0].height": expected an integer'],
      [messageWire({ height: "1" }), '"message[0].height": expected an integer'],
      [messageWire({ format: null }), '"message[0].format": expected a string'],
      [messageWire({ content: [1] }), '"message[0].content": expected an object'],
      [messageWire({ content: "text" }), '"message[0].content": expected an object'],
      [messageWire({ updated_at: "2030-01-01T00:00:00Z" }), '"message[0].updated_at": expected an ISO 8601 timestamp']
    ]
    for (const [body, message] of cases)
      await expect(listMessages([body]), message).rejects.toThrow(`Invalid service response for ${message}`)
  })

  it("the upload answer has key only when the server sends it", async () => {
    const upload = { success: true, signedUrl: "https://s", expiresAt: ISO, publicUrl: "https://p" }
    const cloud = jwtClient(new FakeFetch().answer(json(upload), json(Object.assign({ key: "k1" }, upload))))
    const first = await cloud.files.generatePresignedUploadUrl({ filename: "a.png" })
    expect(Object.hasOwn(first, "key")).toBe(false)
    expect((await cloud.files.generatePresignedUploadUrl({ filename: "a.png" })).key).toBe("k1")
  })
})
