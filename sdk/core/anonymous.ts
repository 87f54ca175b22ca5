import { AUTHORIZATION_FAILED } from "./auth.js"
import { CloudResponseError } from "./errors.js"
import { isFresh, jwtExpiryMs } from "./jwt.js"
import { type AuthStrategy, type Fetch, readJson } from "./request.js"

/**
 * Anonymous sessions (docs/client-library.md "Three modes"). The refresh record lives in localStorage
 * under `svc:refresh_token:<base URL>`; without working storage the session
 * goes on in memory. Token requests are shared per (storage, base URL) and,
 * where Web Locks exist, serialized across tabs.
 */
const KEY_PREFIX = "svc:refresh_token:"
const LEGACY_KEY = "svc:refresh_token"
const LOCK_PREFIX = "svc-client:anonymous-auth:"
export const TOKEN_DEADLINE_MS = 30_000

type Store = Pick<Storage, "getItem" | "setItem" | "removeItem">

interface RefreshRecord {
  readonly token: string
  readonly expires_at: string
}

interface AccessToken {
  readonly token: string
  readonly expiresAt: number
}

/** One trailing slash removed. */
export const normalizeBaseUrl = (baseUrl: string): string => (baseUrl.endsWith("/") ? baseUrl.slice(0, -1) : baseUrl)

const localStore = (): Store | undefined => {
  try {
    return globalThis.localStorage ?? undefined
  } catch {
    return undefined
  }
}

/** Where records go when there is no working localStorage: this page only. */
const memory = new Map<string, RefreshRecord>()

const parseRecord = (raw: string): RefreshRecord | undefined => {
  try {
    const value: unknown = JSON.parse(raw)
    if (typeof value !== "object" || value === null) return undefined
    const { token, expires_at } = value as Record<string, unknown>
    return typeof token === "string" && typeof expires_at === "string" ? { token, expires_at } : undefined
  } catch {
    return undefined
  }
}

const readRecord = (store: Store | undefined, baseUrl: string): RefreshRecord | undefined => {
  if (store === undefined) return memory.get(baseUrl)
  const key = KEY_PREFIX + baseUrl
  try {
    const raw = store.getItem(key)
    if (raw !== null) return parseRecord(raw)
    const legacy = store.getItem(LEGACY_KEY)
    if (legacy === null) return undefined
    // Once: the record of the unscoped key moves to this base URL's key.
    store.setItem(key, legacy)
    store.removeItem(LEGACY_KEY)
    return parseRecord(legacy)
  } catch {
    return memory.get(baseUrl)
  }
}

const writeRecord = (store: Store | undefined, baseUrl: string, record: RefreshRecord): void => {
  memory.set(baseUrl, record)
  if (store === undefined) return
  try {
    store.setItem(KEY_PREFIX + baseUrl, JSON.stringify(record))
    memory.delete(baseUrl)
  } catch {
    // Storage full or refused: the session goes on without persistence.
  }
}

const removeRecord = (store: Store | undefined, baseUrl: string): void => {
  memory.delete(baseUrl)
  try {
    store?.removeItem(KEY_PREFIX + baseUrl)
  } catch {
    // Nothing to do: the record will be found stale again next time.
  }
}

/** The refresh token stored for `baseUrl` when more than 30 s of it remain, else null. */
export const readAnonymousRefreshToken = (baseUrl: string): string | null => {
  const record = readRecord(localStore(), normalizeBaseUrl(baseUrl))
  return record !== undefined && isFresh(Date.parse(record.expires_at)) ? record.token : null
}

/** Runs `request` with the 30,000 ms deadline; its signal aborts at the deadline. */
const withDeadline = async <A>(operation: string, request: (signal: AbortSignal) => Promise<A>): Promise<A> => {
  const controller = new AbortController()
  let timer: ReturnType<typeof setTimeout> | undefined
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort()
      reject(new Error(`Service ${operation} timed out after ${TOKEN_DEADLINE_MS}ms`))
    }, TOKEN_DEADLINE_MS)
  })
  try {
    return await Promise.race([request(controller.signal), deadline])
  } finally {
    clearTimeout(timer)
  }
}

/** Reads a session answer; `kept` is the stored refresh record a refresh answer may leave out. */
const acceptSession = (
  body: unknown,
  kept: RefreshRecord | undefined
): { access: AccessToken; refresh: RefreshRecord } => {
  if (typeof body !== "object" || body === null || Array.isArray(body))
    throw CloudResponseError.field("session", "an object")
  const { access_token, refresh_token } = body as Record<string, unknown>
  if (typeof access_token !== "string") throw CloudResponseError.field("session.access_token", "a string")
  const expiresAt = jwtExpiryMs(access_token)
  if (expiresAt === undefined)
    throw CloudResponseError.field("session.access_token", "a JWT whose payload has a numeric exp")
  let refresh = kept
  if (refresh_token !== undefined || kept === undefined) {
    if (typeof refresh_token !== "object" || refresh_token === null)
      throw CloudResponseError.field("session.refresh_token", "an object")
    const { token, expires_at } = refresh_token as Record<string, unknown>
    if (typeof token !== "string") throw CloudResponseError.field("session.refresh_token.token", "a string")
    if (typeof expires_at !== "string" || Number.isNaN(Date.parse(expires_at)))
      throw CloudResponseError.field("session.refresh_token.expires_at", "an ISO timestamp")
    refresh = { token, expires_at }
  }
  return { access: { token: access_token, expiresAt }, refresh: refresh as RefreshRecord }
}

/** A new access token: the stored refresh token if it is fresh and still good, else a new anonymous user. */
const obtain = async (
  store: Store | undefined,
  baseUrl: string,
  fetch: Fetch,
  sdkHeader: () => string
): Promise<AccessToken> => {
  const stored = readRecord(store, baseUrl)
  if (stored !== undefined && isFresh(Date.parse(stored.expires_at))) {
    const body = await withDeadline("refresh token request", async (signal) => {
      const response = await fetch(`${baseUrl}/v1/auth/tokens/refresh`, {
        method: "POST",
        headers: { "Content-Type": "application/json", "Svc-Sdk": sdkHeader() },
        body: JSON.stringify({ refresh_token: stored.token }),
        signal
      })
      if (response.ok) return { ok: true as const, body: await readJson(response) }
      if (response.status === 429 || response.status >= 500)
        throw new Error(`Service token refresh failed with status ${response.status}`)
      return { ok: false as const }
    })
    if (body.ok) {
      const session = acceptSession(body.body, stored)
      writeRecord(store, baseUrl, session.refresh)
      return session.access
    }
  }
  // Stale, or refused for a reason a new session cures (401, 400, 404...).
  if (stored !== undefined) removeRecord(store, baseUrl)
  const body = await withDeadline("anonymous token request", async (signal) => {
    const response = await fetch(`${baseUrl}/v1/auth/tokens/anonymous`, { method: "POST", signal })
    if (!response.ok) throw new Error(AUTHORIZATION_FAILED)
    return readJson(response)
  })
  const session = acceptSession(body, undefined)
  writeRecord(store, baseUrl, session.refresh)
  return session.access
}

const NO_STORAGE = {}
const inFlight = new WeakMap<object, Map<string, Promise<AccessToken>>>()

const withLock = <A>(baseUrl: string, run: () => Promise<A>): Promise<A> => {
  const locks = typeof navigator === "undefined" ? undefined : navigator.locks
  return locks?.request === undefined ? run() : (locks.request(LOCK_PREFIX + baseUrl, run) as Promise<A>)
}

/** One token request at a time per (storage, base URL), shared by everyone asking meanwhile. */
const sharedToken = (baseUrl: string, fetch: Fetch, sdkHeader: () => string): Promise<AccessToken> => {
  const store = localStore()
  const owner: object = store ?? NO_STORAGE
  let byUrl = inFlight.get(owner)
  if (byUrl === undefined) {
    byUrl = new Map()
    inFlight.set(owner, byUrl)
  }
  const existing = byUrl.get(baseUrl)
  if (existing !== undefined) return existing
  const pending = withLock(baseUrl, () => obtain(store, baseUrl, fetch, sdkHeader))
  const requests = byUrl
  const clear = () => {
    if (requests.get(baseUrl) === pending) requests.delete(baseUrl)
  }
  pending.then(clear, clear)
  requests.set(baseUrl, pending)
  return pending
}

export class AnonymousAuth implements AuthStrategy {
  #access: AccessToken | undefined

  constructor(
    private readonly baseUrl: string,
    private readonly fetch: Fetch,
    private readonly sdkHeader: () => string
  ) {}

  async headers(): Promise<Record<string, string>> {
    if (this.#access === undefined || !isFresh(this.#access.expiresAt))
      this.#access = await sharedToken(this.baseUrl, this.fetch, this.sdkHeader)
    return { Authorization: `Bearer ${this.#access.token}` }
  }
}
