import { CloudAPIError, CloudResponseError } from "./errors.js"
import type { SdkRegistry } from "./sdkHeader.js"

export type Fetch = (input: string, init: RequestInit) => Promise<Response>

/** How a mode authenticates: headers for each request, and a look at each answer. */
export interface AuthStrategy {
  headers(): Promise<Record<string, string>>
  /** JWT mode reads the answer's `Authorization` header here. */
  onResponse?(response: Response): void
}

export type QueryValue = string | number | boolean | null | undefined

export interface CallInit {
  readonly method?: string
  readonly query?: { readonly [key: string]: QueryValue } | undefined
  readonly body?: unknown
  readonly headers?: HeadersInit | undefined
  readonly keepalive?: boolean
  readonly signal?: AbortSignal | undefined
}

/**
 * Query rules (docs/decisions.md "Client library (svc-client)"): `true` as "true", numbers as strings, `false`
 * dropped except `is_archived`'s, which is sent as "false"; undefined and null
 * skipped; no `?` when nothing is left.
 */
export const queryString = (query: CallInit["query"]): string => {
  if (query === undefined) return ""
  const params = new URLSearchParams()
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined || value === null) continue
    if (value === false) {
      if (key === "is_archived") params.append(key, "false")
      continue
    }
    params.append(key, value === true ? "true" : String(value))
  }
  const text = params.toString()
  return text === "" ? "" : `?${text}`
}

/** The global fetch, looked up at each call (so a page or a test may replace it). */
export const globalFetch: Fetch = (input, init) => globalThis.fetch(input, init)

/**
 * Every call of the client goes through here: `<baseUrl>/v1<path>`, headers
 * merged as auth, caller, `Content-Type: application/json`, `Svc-Sdk` (the
 * last two cannot be replaced), no retry.
 */
export class Transport {
  constructor(
    readonly baseUrl: string,
    readonly auth: AuthStrategy,
    readonly sdk: SdkRegistry,
    readonly fetch: Fetch
  ) {}

  url(path: string, query?: CallInit["query"]): string {
    return `${this.baseUrl}/v1${path}${queryString(query)}`
  }

  /**
   * One fetch with the client's headers (auth, the caller's, Content-Type,
   * Svc-Sdk, in that order of precedence) and the auth mode's look at the
   * answer; whatever its status. The Effect client sends through here too.
   */
  async send(url: string, init: RequestInit): Promise<Response> {
    const headers = new Headers(await this.auth.headers())
    if (init.headers !== undefined)
      new Headers(init.headers).forEach((value, key) => {
        headers.set(key, value)
      })
    headers.set("Content-Type", "application/json")
    headers.set("Svc-Sdk", this.sdk.header())
    // Object.assign, not a spread followed by a property: V8's slow path (docs/architecture.md).
    const response = await this.fetch(url, Object.assign({}, init, { headers }))
    this.auth.onResponse?.(response)
    return response
  }

  /** The answer of a successful call; a non-2xx answer throws CloudAPIError. */
  async raw(path: string, init: CallInit = {}): Promise<Response> {
    const request: RequestInit = { method: init.method ?? "GET" }
    if (init.headers !== undefined) request.headers = init.headers
    if (init.body !== undefined) request.body = JSON.stringify(init.body)
    if (init.keepalive === true) request.keepalive = true
    if (init.signal !== undefined) request.signal = init.signal
    const response = await this.send(this.url(path, init.query), request)
    if (!response.ok) throw new CloudAPIError(response.status, await response.text())
    return response
  }

  /**
   * A call that returns no data (thread update and delete, message update):
   * whatever the successful answer carries is left unread, since such methods
   * raise only CloudAPIError (docs/decisions.md "Client library (svc-client)").
   */
  async noContent(path: string, init: CallInit = {}): Promise<void> {
    discard(await this.raw(path, init))
  }

  /** The parsed JSON answer; undefined for a 204, `content-length: 0` or a blank body. */
  async json(path: string, init: CallInit = {}): Promise<unknown> {
    const response = await this.raw(path, init)
    return readJson(response)
  }
}

/**
 * Lets go of an answer's body without reading it. The cancel is not awaited:
 * on a teed body (a fetch wrapper that cloned the answer) it settles only once
 * the other branch is read or cancelled too, which may be never.
 */
export const discard = (response: Response): void => {
  response.body?.cancel().catch(() => undefined)
}

export const readJson = async (response: Response): Promise<unknown> => {
  if (response.status === 204 || response.headers.get("content-length") === "0") return undefined
  const text = await response.text()
  if (text.trim() === "") return undefined
  try {
    return JSON.parse(text)
  } catch {
    throw CloudResponseError.field("body", "JSON")
  }
}
