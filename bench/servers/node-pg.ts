/**
 * Database baseline: bare node:http + a pg.Pool of the gateway's size, doing
 * what the gateway does for create thread, get thread, append message, list
 * messages, report a run and list a project's runs with the gateway's own
 * statements (captured from the repositories at bench start by
 * bench/lib/statements.ts and read from BENCH_STATEMENTS: the same SQL text,
 * the same parameters in the same order), the same statements per request
 * (ROUTES in bench/lib/captured.ts), the same API-key check (SHA-256 of the
 * bearer, a query only when the 5 s cache misses), the same identity
 * headers, JSON parsing and re-serialization of the content, and the same
 * page writers.
 *
 * Run reports get the checks a hand-written server would make, not the
 * gateway's: JSON.parse, the fields the statement needs typed (thread_id,
 * status, the scalar columns, tags, the arrays), no per-tool-call validation,
 * no refusal of unknown fields, no length limits on the text inside.
 *
 * Env: DATABASE_URL, DATABASE_POOL_MAX (10), API_KEY_CACHE_MS (5000), PORT (0),
 * BENCH_STATEMENTS (the captured statements, JSON). Prints `LISTENING <port>`
 * once bound; exits at once if a captured statement reads other arguments
 * than this server supplies.
 */
import { createHash, randomBytes } from "node:crypto"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import pg from "pg"
import { indexText, messageText } from "../../src/platform/text/SearchText.js"
import { bindRoute, readCaptured } from "../lib/captured.js"

const captured = readCaptured(process.env.BENCH_STATEMENTS)
const SCOPE = ["scope.projectId", "scope.workspaceId"] as const
// Each statement with the argument paths of the repository method it comes from.
const { "ApiKeysRepo.findActiveByHash": findActiveKey } = bindRoute(captured, "api_key", {
  "ApiKeysRepo.findActiveByHash": ["keyHash"]
})
const { "ThreadsRepo.insert": insertThread } = bindRoute(captured, "create_thread", {
  "ThreadsRepo.insert": [
    ...SCOPE,
    "thread.id",
    "thread.userId",
    "thread.title",
    "thread.externalId",
    "thread.metadata",
    "thread.lastMessageAt"
  ]
})
const { "ThreadsRepo.getJson": getThreadRow } = bindRoute(captured, "get_thread", {
  "ThreadsRepo.getJson": [...SCOPE, "id"]
})
const APPEND_ARGS = [
  ...SCOPE,
  "message.id",
  "message.threadId",
  "message.userId",
  "message.parentId",
  "message.format",
  "message.contentJson",
  "message.searchText"
]
const { "MessagesRepo.append": appendMessageRow } = bindRoute(captured, "append_message", {
  "MessagesRepo.append": APPEND_ARGS
})
const { "MessagesRepo.appendIdUnderLock": appendMessageRowIdUnderLock } = bindRoute(captured, "append_message_stale", {
  "MessagesRepo.appendIdUnderLock": APPEND_ARGS
})
const { "ThreadsRepo.exists": threadExists, "MessagesRepo.list": listMessageRows } = bindRoute(
  captured,
  "list_messages",
  { "ThreadsRepo.exists": [...SCOPE, "id"], "MessagesRepo.list": ["projectId", "threadId", "options.limit"] }
)
const RUN_ARGS = [
  "id",
  "threadId",
  "userId",
  "messageId",
  "status",
  "outcomeType",
  "modelId",
  "provider",
  "providerType",
  "inputTokens",
  "outputTokens",
  "reasoningTokens",
  "cachedInputTokens",
  "durationMs",
  "firstTokenMs",
  "totalSteps",
  "toolCallCount",
  "error",
  "errorCode",
  "traceId",
  "tags",
  "environment",
  "release",
  "detailJson"
].map((name) => `run.${name}`)
const { "RunsRepo.insert": insertRun } = bindRoute(captured, "run_report", {
  "RunsRepo.insert": [...SCOPE, ...RUN_ARGS]
})
const { "RunsRepo.listJson": listRunsJson } = bindRoute(captured, "list_runs", {
  "RunsRepo.listJson": ["projectId", "filters.limit"]
})

const pool = new pg.Pool({
  connectionString: process.env.DATABASE_URL,
  max: Number(process.env.DATABASE_POOL_MAX ?? 10),
  connectionTimeoutMillis: 10_000,
  application_name: "svc-bench-baseline"
})
pool.on("error", () => {})

const cacheMs = Number(process.env.API_KEY_CACHE_MS ?? 5000)
const MAX_BODY = 1024 * 1024
const MESSAGE_MAX_BODY = 128 * 1024
const CONTENT_MAX_BYTES = 64 * 1024
const KEY_PATTERN = /^sk_[A-Za-z0-9_-]{32,128}$/

// ---- ids: prefixed, monotonic ULIDs like src/platform/Ids.ts ----
const ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
let lastTime = -1
const lastRandom = new Uint8Array(10)
const ulid = (): string => {
  const now = Date.now()
  if (now <= lastTime) {
    for (let i = 9; i >= 0; i--) {
      const next = (lastRandom[i] ?? 0) + 1
      lastRandom[i] = next & 0xff
      if (next <= 0xff) break
    }
  } else {
    lastTime = now
    lastRandom.set(randomBytes(10))
  }
  let time = ""
  let t = lastTime
  for (let i = 0; i < 10; i++) {
    time = ALPHABET[t % 32] + time
    t = Math.floor(t / 32)
  }
  let rand = ""
  let buffer = 0
  let bits = 0
  for (const byte of lastRandom) {
    buffer = (buffer << 8) | byte
    bits += 8
    while (bits >= 5) {
      rand += ALPHABET[(buffer >> (bits - 5)) & 31]
      bits -= 5
    }
    buffer &= (1 << bits) - 1
  }
  return time + rand
}

// ---- replies ----
class HttpFailure extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string
  ) {
    super(message)
  }
}

const send = (response: ServerResponse, status: number, body: string) => {
  response.writeHead(status, {
    "content-type": "application/json",
    "content-length": String(Buffer.byteLength(body))
  })
  response.end(body)
}

// ---- auth: same cache policy as src/auth/ApiKeys.ts ----
interface CacheEntry {
  readonly projectId: string | undefined
  readonly until: number
}
const keyCache = new Map<string, CacheEntry>()

const verifyKey = async (token: string): Promise<string | undefined> => {
  if (!KEY_PATTERN.test(token)) return undefined
  const hash = createHash("sha256").update(token).digest("hex")
  const cached = keyCache.get(hash)
  if (cached && cached.until > Date.now()) return cached.projectId
  const { rows } = await pool.query<{ project_id: string; expires_at: Date | null }>(
    captured["ApiKeysRepo.findActiveByHash"].text,
    findActiveKey({ keyHash: hash })
  )
  const row = rows[0]
  const expires = row?.expires_at ? row.expires_at.getTime() : Number.POSITIVE_INFINITY
  const entry = { projectId: row?.project_id, until: Math.min(Date.now() + cacheMs, expires) }
  if (cacheMs > 0) {
    if (keyCache.size >= 10_000) keyCache.clear()
    keyCache.set(hash, entry)
  }
  return entry.projectId
}

interface Caller {
  readonly projectId: string
  readonly userId: string
  readonly workspaceId: string
}

const identity = (request: IncomingMessage, name: "svc-user-id" | "svc-workspace-id"): string => {
  const raw = request.headers[name]
  const value = typeof raw === "string" ? raw.trim() : ""
  if (value === "" || value.length > 255) throw new HttpFailure(400, "invalid_request", `${name} header is invalid`)
  return value
}

/** API key only (the project read API): the key's project. */
const authenticateProject = async (request: IncomingMessage): Promise<string> => {
  const header = request.headers.authorization
  const token =
    header !== undefined && header.slice(0, 7).toLowerCase() === "bearer " ? header.slice(7).trim() : undefined
  if (token === undefined || token === "") throw new HttpFailure(401, "unauthorized", "missing bearer credential")
  const projectId = await verifyKey(token)
  if (projectId === undefined) throw new HttpFailure(401, "unauthorized", "invalid, expired or revoked API key")
  return projectId
}

const authenticate = async (request: IncomingMessage): Promise<Caller> => {
  const projectId = await authenticateProject(request)
  return { projectId, userId: identity(request, "svc-user-id"), workspaceId: identity(request, "svc-workspace-id") }
}

const readJson = (request: IncomingMessage, maxBytes: number): Promise<unknown> =>
  new Promise((resolve, reject) => {
    const type = (request.headers["content-type"] ?? "").split(";")[0]?.trim().toLowerCase()
    if (type !== "application/json") {
      reject(new HttpFailure(415, "unsupported_media_type", "request body must be application/json"))
      return
    }
    const chunks: Array<Buffer> = []
    let size = 0
    request.on("data", (chunk: Buffer) => {
      size += chunk.length
      if (size > maxBytes) {
        reject(new HttpFailure(413, "payload_too_large", "request body is too large"))
        request.destroy()
        return
      }
      chunks.push(chunk)
    })
    request.on("end", () => {
      try {
        resolve(JSON.parse(Buffer.concat(chunks).toString("utf8")))
      } catch {
        reject(new HttpFailure(400, "invalid_request", "request body is not valid JSON"))
      }
    })
    request.on("error", reject)
  })

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const invalid = (message: string) => new HttpFailure(400, "invalid_request", message)

// ---- routes ----
const createThread = async (request: IncomingMessage, response: ServerResponse) => {
  const caller = await authenticate(request)
  const body = await readJson(request, MAX_BODY)
  if (!isObject(body) || typeof body.last_message_at !== "string") throw invalid("last_message_at is required")
  const lastMessageAt = new Date(body.last_message_at)
  if (Number.isNaN(lastMessageAt.getTime())) throw invalid("last_message_at is not a date")
  if (body.metadata !== undefined && !isObject(body.metadata)) throw invalid("metadata must be an object")
  const id = `thread_${ulid()}`
  await pool.query(
    captured["ThreadsRepo.insert"].text,
    insertThread({
      "scope.projectId": caller.projectId,
      "scope.workspaceId": caller.workspaceId,
      "thread.id": id,
      "thread.userId": caller.userId,
      "thread.title": optionalString(body, "title"),
      "thread.externalId": optionalString(body, "external_id"),
      "thread.metadata": body.metadata ?? {},
      "thread.lastMessageAt": lastMessageAt
    })
  )
  send(response, 201, JSON.stringify({ thread_id: id }))
}

/** GET /v1/threads/{id}: the Thread JSON the statement makes (the gateway's own), written as is. */
const getThread = async (request: IncomingMessage, response: ServerResponse, threadId: string) => {
  const caller = await authenticate(request)
  const { rows } = await pool.query<{ json: string }>(
    captured["ThreadsRepo.getJson"].text,
    getThreadRow({ "scope.projectId": caller.projectId, "scope.workspaceId": caller.workspaceId, id: threadId })
  )
  const row = rows[0]
  if (row === undefined) throw new HttpFailure(404, "not_found", "thread not found")
  send(response, 200, row.json)
}

const appendMessage = async (request: IncomingMessage, response: ServerResponse, threadId: string) => {
  const caller = await authenticate(request)
  const body = await readJson(request, MESSAGE_MAX_BODY)
  if (!isObject(body)) throw invalid("body must be an object")
  const parentId = body.parent_id
  if (parentId !== null && typeof parentId !== "string") throw invalid("parent_id must be a string or null")
  const format = body.format
  if (typeof format !== "string" || format.length < 1 || format.length > 64) throw invalid("format is invalid")
  if (!isObject(body.content)) throw invalid("content must be an object")
  const contentJson = JSON.stringify(body.content)
  if (Buffer.byteLength(contentJson) > CONTENT_MAX_BYTES) throw invalid("content is too large")
  const values = {
    "scope.projectId": caller.projectId,
    "scope.workspaceId": caller.workspaceId,
    "message.id": `msg_${ulid()}`,
    "message.threadId": threadId,
    "message.userId": caller.userId,
    "message.parentId": parentId,
    "message.format": format,
    "message.contentJson": contentJson,
    // What the gateway indexes for search (src/platform/text/SearchText.ts), made the same way.
    "message.searchText": indexText(messageText(format, body.content))
  }
  type AppendRow = { thread_found: boolean; id: string | null; stale: boolean | null }
  const first = await pool.query<AppendRow>(captured["MessagesRepo.append"].text, appendMessageRow(values))
  let row = first.rows[0]
  // Another append to the thread committed a larger id first: as MessagesRepo.append, once more with the
  // statement that makes the id under the thread's lock.
  if (row?.thread_found && row.id === null && row.stale) {
    const second = await pool.query<AppendRow>(
      captured["MessagesRepo.appendIdUnderLock"].text,
      appendMessageRowIdUnderLock(values)
    )
    row = second.rows[0]
  }
  if (!row?.thread_found) throw new HttpFailure(404, "not_found", "thread not found")
  if (row.id === null) throw invalid("parent_id is not a message of this thread")
  send(response, 201, JSON.stringify({ message_id: row.id }))
}

/** MessagesRepo.list's row: content as JSON text, timestamps as ISO strings made by the database. */
interface MessageRow {
  readonly id: string
  readonly parent_id: string | null
  readonly external_id: string | null
  readonly height: number
  readonly created_at: string
  readonly updated_at: string
  readonly format: string
  readonly content: string
}

const listMessages = async (request: IncomingMessage, response: ServerResponse, threadId: string, query: string) => {
  const caller = await authenticate(request)
  const limitParam = new URLSearchParams(query).get("limit")
  const limit = limitParam === null ? 200 : Math.min(200, Number(limitParam))
  if (!Number.isInteger(limit) || limit < 1) throw invalid("limit must be an integer >= 1")
  const exists = await pool.query(
    captured["ThreadsRepo.exists"].text,
    threadExists({ "scope.projectId": caller.projectId, "scope.workspaceId": caller.workspaceId, id: threadId })
  )
  if (exists.rows.length === 0) throw new HttpFailure(404, "not_found", "thread not found")
  const { rows } = await pool.query<MessageRow>(
    captured["MessagesRepo.list"].text,
    listMessageRows({ projectId: caller.projectId, threadId, "options.limit": limit })
  )
  // The page writer of protocols/rest/Messages.ts.
  const parts: Array<string> = []
  for (const row of rows) {
    parts.push(
      `{"id":${JSON.stringify(row.id)},"parent_id":${JSON.stringify(row.parent_id)},` +
        `"external_id":${JSON.stringify(row.external_id)},"height":${row.height},` +
        `"created_at":"${row.created_at}","updated_at":"${row.updated_at}",` +
        `"format":${JSON.stringify(row.format)},"content":${row.content}}`
    )
  }
  send(response, 200, `{"messages":[${parts.join(",")}]}`)
}

const RUN_STATUSES: ReadonlySet<unknown> = new Set(["completed", "incomplete", "error"])

const optionalString = (body: Record<string, unknown>, field: string): string | null => {
  const value = body[field]
  if (value === undefined || value === null) return null
  if (typeof value !== "string") throw invalid(`${field} must be a string`)
  return value
}

const optionalCount = (body: Record<string, unknown>, field: string): number | null => {
  const value = body[field]
  if (value === undefined || value === null) return null
  if (typeof value !== "number" || !Number.isInteger(value) || value < 0) throw invalid(`${field} must be a count`)
  return value
}

const optionalArray = (body: Record<string, unknown>, field: string): ReadonlyArray<unknown> | undefined => {
  const value = body[field]
  if (value === undefined) return undefined
  if (!Array.isArray(value)) throw invalid(`${field} must be an array`)
  return value
}

const reportRun = async (request: IncomingMessage, response: ServerResponse) => {
  const caller = await authenticate(request)
  const body = await readJson(request, MAX_BODY)
  if (!isObject(body)) throw invalid("body must be an object")
  const threadId = body.thread_id
  if (typeof threadId !== "string" || threadId === "") throw invalid("thread_id is required")
  if (!RUN_STATUSES.has(body.status)) throw invalid("status must be completed, incomplete or error")
  const tags = optionalArray(body, "tags") ?? []
  if (!tags.every((tag) => typeof tag === "string")) throw invalid("tags must be strings")
  const toolCalls = optionalArray(body, "tool_calls")
  if (body.attributes !== undefined && !isObject(body.attributes)) throw invalid("attributes must be an object")
  if (body.metadata !== undefined && !isObject(body.metadata)) throw invalid("metadata must be an object")
  const detail = {
    attributes: body.attributes,
    metadata: body.metadata,
    steps: optionalArray(body, "steps"),
    tool_calls: toolCalls,
    sampling_calls: optionalArray(body, "sampling_calls"),
    output_text: optionalString(body, "output_text") ?? undefined
  }
  const id = `run_${ulid()}`
  const { rows } = await pool.query<{ id: string }>(
    captured["RunsRepo.insert"].text,
    insertRun({
      "scope.projectId": caller.projectId,
      "scope.workspaceId": caller.workspaceId,
      "run.id": id,
      "run.threadId": threadId,
      "run.userId": caller.userId,
      "run.messageId": optionalString(body, "message_id"),
      "run.status": body.status,
      "run.outcomeType": optionalString(body, "outcome_type"),
      "run.modelId": optionalString(body, "model_id"),
      "run.provider": optionalString(body, "provider"),
      "run.providerType": optionalString(body, "provider_type"),
      "run.inputTokens": optionalCount(body, "input_tokens"),
      "run.outputTokens": optionalCount(body, "output_tokens"),
      "run.reasoningTokens": optionalCount(body, "reasoning_tokens"),
      "run.cachedInputTokens": optionalCount(body, "cached_input_tokens"),
      "run.durationMs": optionalCount(body, "duration_ms"),
      "run.firstTokenMs": optionalCount(body, "first_token_ms"),
      "run.totalSteps": optionalCount(body, "total_steps"),
      "run.toolCallCount": toolCalls?.length ?? 0,
      "run.error": optionalString(body, "error"),
      "run.errorCode": optionalString(body, "error_code"),
      "run.traceId": optionalString(body, "trace_id"),
      "run.tags": tags,
      "run.environment": optionalString(body, "environment"),
      "run.release": optionalString(body, "release"),
      "run.detailJson": JSON.stringify(detail)
    })
  )
  if (rows[0] === undefined) throw new HttpFailure(404, "not_found", "thread not found")
  send(response, 201, JSON.stringify({ run_id: id }))
}

/**
 * GET /v1/projects/runs: RunsRepo.listJson's rows are one JSON text per run,
 * made by the database; spliced into the page as protocols/rest/Projects.ts does.
 */
const listRuns = async (request: IncomingMessage, response: ServerResponse, query: string) => {
  const projectId = await authenticateProject(request)
  const limitParam = new URLSearchParams(query).get("limit")
  const limit = limitParam === null ? 50 : Math.min(100, Number(limitParam))
  if (!Number.isInteger(limit) || limit < 1) throw invalid("limit must be an integer >= 1")
  const { rows } = await pool.query<{ json: string }>(
    captured["RunsRepo.listJson"].text,
    listRunsJson({ projectId, "filters.limit": limit })
  )
  send(response, 200, `{"runs":[${rows.map((row) => row.json).join(",")}]}`)
}

const MESSAGES_PATH = /^\/v1\/threads\/([^/]+)\/messages$/
const THREAD_PATH = /^\/v1\/threads\/([^/]+)$/

const route = async (request: IncomingMessage, response: ServerResponse) => {
  const url = request.url ?? "/"
  const q = url.indexOf("?")
  const path = q < 0 ? url : url.slice(0, q)
  const query = q < 0 ? "" : url.slice(q + 1)
  if (path === "/healthz" && request.method === "GET") return send(response, 200, '{"status":"ok"}')
  if (path === "/v1/threads" && request.method === "POST") return createThread(request, response)
  if (path === "/v1/runs" && request.method === "POST") return reportRun(request, response)
  if (path === "/v1/projects/runs" && request.method === "GET") return listRuns(request, response, query)
  const match = MESSAGES_PATH.exec(path)
  if (match?.[1] !== undefined) {
    const threadId = decodeURIComponent(match[1])
    if (request.method === "POST") return appendMessage(request, response, threadId)
    if (request.method === "GET") return listMessages(request, response, threadId, query)
  }
  const thread = request.method === "GET" ? THREAD_PATH.exec(path) : null
  if (thread?.[1] !== undefined) return getThread(request, response, decodeURIComponent(thread[1]))
  throw new HttpFailure(404, "not_found", "no such route")
}

const server = createServer((request, response) => {
  route(request, response).catch((error: unknown) => {
    if (error instanceof HttpFailure) {
      send(response, error.status, JSON.stringify({ error: error.code, message: error.message }))
    } else {
      process.stderr.write(`request failed: ${String(error)}\n`)
      send(response, 500, '{"error":"internal","message":"internal error"}')
    }
  })
})

server.listen(Number(process.env.PORT ?? 0), process.env.HOST ?? "127.0.0.1", () => {
  const address = server.address()
  const port = typeof address === "object" && address !== null ? address.port : 0
  process.stdout.write(`LISTENING ${port}\n`)
})

const stop = () => {
  server.close(() => {
    void pool.end().finally(() => process.exit(0))
  })
  server.closeAllConnections()
}
process.on("SIGTERM", stop)
process.on("SIGINT", stop)
