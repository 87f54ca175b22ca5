/**
 * Assertions and seeders shared by the REST suites (threads, messages,
 * pagination, errors, tenancy). Everything goes through real HTTP.
 */
import { request } from "node:http"
import { expect } from "vitest"
import { admin, asUser, type CallOptions, call, type Gateway, NOW, type Reply, type UserClient } from "./layers.js"

/** ISO 8601 UTC with milliseconds (docs/api-and-auth.md "REST API"). */
export const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

export const THREAD_KEYS = [
  "created_at",
  "external_id",
  "id",
  "is_archived",
  "last_message_at",
  "metadata",
  "project_id",
  "title",
  "updated_at",
  "workspace_id"
]
export const MESSAGE_KEYS = [
  "content",
  "created_at",
  "external_id",
  "format",
  "height",
  "id",
  "parent_id",
  "updated_at"
]

const CODES = {
  400: "invalid_request",
  401: "unauthorized",
  403: "forbidden",
  404: "not_found",
  409: "conflict",
  413: "payload_too_large",
  415: "unsupported_media_type",
  429: "rate_limited"
} as const
export type ErrorStatus = keyof typeof CODES

/**
 * The error body of docs/api-and-auth.md "Errors": JSON
 * `{ error, message, ...details }`, no `_tag`, and for 400 an
 * `issues: [{ path, message }]` array. With `issuePath`, some issue must
 * name that path (or a path below it).
 */
export const expectError = (reply: Reply, status: ErrorStatus, issuePath?: string) => {
  expect(reply.status, `${reply.status} ${reply.text}`).toBe(status)
  expect(reply.headers.get("content-type") ?? "").toMatch(/^application\/json/)
  const body = reply.body
  expect(body, reply.text).toBeTypeOf("object")
  expect(body.error, reply.text).toBe(CODES[status])
  expect(body.message).toBeTypeOf("string")
  expect(body.message.length).toBeGreaterThan(0)
  expect(body, reply.text).not.toHaveProperty("_tag")
  expect(reply.text).not.toContain('"_tag"')
  if (status === 400) {
    expect(Array.isArray(body.issues), reply.text).toBe(true)
    for (const issue of body.issues) {
      expect(issue.path).toBeTypeOf("string")
      expect(issue.message).toBeTypeOf("string")
    }
    if (issuePath !== undefined) {
      const paths: Array<string> = body.issues.map((issue: { path: string }) => issue.path)
      expect(
        paths.some((path) => path === issuePath || path.startsWith(`${issuePath}.`)),
        `issues ${reply.text} should name ${issuePath}`
      ).toBe(true)
    }
  }
}

/** PUT and DELETE answer 204 with an empty body. */
export const expectNoContent = (reply: Reply) => {
  expect(reply.status, reply.text).toBe(204)
  expect(reply.text).toBe("")
}

/** Runs `make(0..count-1)` in sequential batches of `size` concurrent calls. */
export const inBatches = async <T>(count: number, make: (i: number) => Promise<T>, size = 20): Promise<Array<T>> => {
  const out: Array<T> = []
  for (let start = 0; start < count; start += size) {
    const batch = Array.from({ length: Math.min(size, count - start) }, (_, k) => make(start + k))
    out.push(...(await Promise.all(batch)))
  }
  return out
}

export const newThread = async (client: UserClient, body: Record<string, unknown> = {}): Promise<string> => {
  const reply = await client("POST", "/threads", { body: { last_message_at: NOW, ...body } })
  expect(reply.status, reply.text).toBe(201)
  return reply.body.thread_id as string
}

export const newMessage = async (
  client: UserClient,
  threadId: string,
  options: { parent?: string | null; content?: Record<string, unknown>; format?: string } = {}
): Promise<string> => {
  const reply = await client("POST", `/threads/${threadId}/messages`, {
    body: { parent_id: options.parent ?? null, format: options.format ?? "svc/v0", content: options.content ?? {} }
  })
  expect(reply.status, reply.text).toBe(201)
  return reply.body.message_id as string
}

export const getThread = async (client: UserClient, threadId: string) => {
  const reply = await client("GET", `/threads/${threadId}`)
  expect(reply.status, reply.text).toBe(200)
  return reply.body
}

export const listMessages = async (client: UserClient, threadId: string, query = "") => {
  const reply = await client("GET", `/threads/${threadId}/messages${query}`)
  expect(reply.status, reply.text).toBe(200)
  return reply.body.messages as Array<any>
}

/**
 * A request with full control over framing (node:http): `chunked` sends the
 * body without Content-Length, as a stream would.
 */
export const rawRequest = (
  url: string,
  options: { method: string; headers: Record<string, string>; body: string | Buffer; chunked?: boolean }
): Promise<Reply> =>
  new Promise((resolve, reject) => {
    const headers: Record<string, string> = { ...options.headers }
    if (!options.chunked) headers["content-length"] = String(Buffer.byteLength(options.body))
    // Said outright: node:http frames a body in chunks by itself only for methods that usually carry one
    // (not DELETE, whose body it would send unframed).
    else headers["transfer-encoding"] ??= "chunked"
    const req = request(url, { method: options.method, headers }, (res) => {
      const chunks: Array<Buffer> = []
      res.on("data", (chunk: Buffer) => chunks.push(chunk))
      res.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8")
        let body: unknown
        try {
          body = text === "" ? undefined : JSON.parse(text)
        } catch {
          body = undefined
        }
        const responseHeaders = new Headers()
        for (const [name, value] of Object.entries(res.headers)) {
          if (typeof value === "string") responseHeaders.set(name, value)
        }
        resolve({ status: res.statusCode ?? 0, headers: responseHeaders, body, text })
      })
      res.on("error", reject)
    })
    // A connection closed before any response is reported as status 0, so the assertion shows it.
    req.on("error", (error) =>
      resolve({ status: 0, headers: new Headers(), body: undefined, text: `connection error: ${error.message}` })
    )
    if (options.chunked) {
      // Several writes so the body really goes out in chunks.
      const buffer = Buffer.from(options.body)
      for (let offset = 0; offset < buffer.length; offset += 16 * 1024)
        req.write(buffer.subarray(offset, offset + 16 * 1024))
      req.end()
    } else req.end(options.body)
  })

/** A client on the frontend base URL `/p/{project_id}/v1...` with a bearer (a JWT or an anonymous access token). */
export const asFrontend =
  (gateway: Gateway, projectId: string, bearer: string): UserClient =>
  (method: string, path: string, options: CallOptions = {}) =>
    call(gateway.baseUrl, method, `/p/${projectId}/v1${path}`, {
      ...options,
      headers: { authorization: `Bearer ${bearer}`, ...options.headers }
    })

/** A JWT caller: a service token for the user and workspace, minted with the API key, used on the frontend URL. */
export const asJwtUser = async (
  gateway: Gateway,
  project: { readonly project_id: string; readonly api_key: string },
  userId: string,
  workspaceId: string
): Promise<UserClient> => {
  const reply = await asUser(gateway, project.api_key, userId, workspaceId)("POST", "/auth/tokens")
  expect(reply.status, reply.text).toBe(200)
  return asFrontend(gateway, project.project_id, reply.body.token as string)
}

/** A new anonymous user on the project's frontend URL, with its user id (also its workspace) and refresh token. */
export const asAnonymous = async (gateway: Gateway, projectId: string) => {
  const reply = await call(gateway.baseUrl, "POST", `/p/${projectId}/v1/auth/tokens/anonymous`)
  expect(reply.status, reply.text).toBe(200)
  const token = reply.body.access_token as string
  const payload = JSON.parse(Buffer.from(token.split(".")[1] ?? "", "base64url").toString("utf8")) as { sub: string }
  return {
    client: asFrontend(gateway, projectId, token),
    userId: payload.sub,
    refreshToken: reply.body.refresh_token.token as string
  }
}

/** A caller of the read-only project API (`/v1/projects...`) with an API key. */
export const asProject =
  (gateway: Gateway, apiKey: string) =>
  (path: string, options: CallOptions = {}) =>
    call(gateway.baseUrl, "GET", `/v1/projects${path}`, {
      ...options,
      headers: { authorization: `Bearer ${apiKey}`, ...options.headers }
    })

/** Runs a background job once now through the admin API (it must run without error): what it did. */
export const runJob = async (gateway: Gateway, job: string) => {
  const reply = await admin(gateway)("POST", `/jobs/${job}/run`)
  expect(reply.status, reply.text).toBe(200)
  expect(reply.body.error).toBeNull()
  return reply.body as { items: number; details: Record<string, number> }
}
