/**
 * Fakes for the client's rule tests: a scripted fetch that records each
 * request, unsigned JWTs, valid wire objects, and browser globals
 * (localStorage, navigator.locks, window, document) installed for one test
 * and taken away by `restoreGlobals()` in afterEach.
 */
import { readFileSync } from "node:fs"
import { AssistantCloud } from "svc-client"
import { vi } from "vitest"

/** The version in sdk/package.json. */
export const packageVersion = (
  JSON.parse(readFileSync(new URL("../../../sdk/package.json", import.meta.url), "utf8")) as { version: string }
).version

/** One request as the client sent it. */
export interface Sent {
  readonly url: string
  readonly path: string
  readonly method: string
  readonly headers: Headers
  readonly body: string | undefined
  readonly keepalive: boolean | undefined
  readonly signal: AbortSignal | undefined
}

/** What the fake answers: a Response, a function of the request, or "hang" (never answers). */
export type Answer = Response | ((sent: Sent) => Response | Promise<Response>) | "hang"

/**
 * A fetch answering the scripted answers in order; once they run out, the
 * fallback (by default a 204).
 */
export class FakeFetch {
  readonly sent: Array<Sent> = []
  readonly #script: Array<Answer> = []

  constructor(private readonly fallback: Answer = () => new Response(null, { status: 204 })) {}

  answer(...answers: ReadonlyArray<Answer>): this {
    this.#script.push(...answers)
    return this
  }

  readonly fetch = (input: string, init: RequestInit): Promise<Response> => {
    const url = new URL(input)
    const sent: Sent = {
      url: input,
      path: url.pathname + url.search,
      method: init.method ?? "GET",
      headers: new Headers(init.headers),
      body: typeof init.body === "string" ? init.body : undefined,
      keepalive: init.keepalive,
      signal: init.signal ?? undefined
    }
    this.sent.push(sent)
    const answer = this.#script.shift() ?? this.fallback
    if (answer === "hang") return new Promise<Response>(() => {})
    return Promise.resolve(typeof answer === "function" ? answer(sent) : answer)
  }

  /** The requests whose path starts with `prefix`. */
  to(prefix: string): Array<Sent> {
    return this.sent.filter((sent) => sent.path.startsWith(prefix))
  }

  /** The parsed JSON body of a request. */
  static json(sent: Sent | undefined): unknown {
    return sent?.body === undefined ? undefined : JSON.parse(sent.body)
  }
}

export const json = (body: unknown, init: ResponseInit = {}): Response =>
  new Response(JSON.stringify(body), {
    status: init.status ?? 200,
    headers: Object.assign({ "Content-Type": "application/json" }, init.headers)
  })

export const text = (body: string, status = 200, headers: Record<string, string> = {}): Response =>
  new Response(body, { status, headers })

const base64Url = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString("base64url")

/** An unsigned JWT expiring `inSeconds` after the (possibly fake) clock's now. */
export const jwt = (inSeconds: number, subject = "user"): string =>
  `${base64Url({ alg: "none", typ: "JWT" })}.${base64Url({ sub: subject, exp: Math.floor(Date.now() / 1000) + inSeconds })}.sig`

export const T0 = new Date("2030-01-01T00:00:00.000Z")
export const ISO = "2030-01-01T00:00:00.000Z"

export const threadWire = (fields: Record<string, unknown> = {}): Record<string, unknown> =>
  Object.assign(
    {
      id: "t1",
      project_id: "p1",
      workspace_id: "w1",
      created_at: ISO,
      updated_at: ISO,
      title: "A title",
      last_message_at: ISO,
      is_archived: false,
      external_id: null,
      metadata: null
    },
    fields
  )

export const messageWire = (fields: Record<string, unknown> = {}): Record<string, unknown> =>
  Object.assign(
    { id: "m1", parent_id: null, height: 0, created_at: ISO, updated_at: ISO, format: "svc/v0", content: { a: 1 } },
    fields
  )

/** A base URL no other test uses (anonymous in-flight requests and memory records are per base URL). */
let bases = 0
export const uniqueBase = (): string => `https://app${++bases}.example.test`

export const jwtClient = (fake: FakeFetch, token: () => Promise<string | null> = async () => jwt(3600)) =>
  new AssistantCloud({ baseUrl: "https://api.example.test", authToken: token, fetch: fake.fetch })

export const apiKeyClient = (fake: FakeFetch, config: Record<string, unknown> = {}) =>
  new AssistantCloud(
    Object.assign(
      { apiKey: "sk_test", userId: "u1", workspaceId: "w1", baseUrl: "https://backend.example.test" },
      config,
      {
        fetch: fake.fetch
      }
    ) as ConstructorParameters<typeof AssistantCloud>[0]
  )

export const anonymousClient = (fake: FakeFetch, baseUrl: string) =>
  new AssistantCloud({ baseUrl, anonymous: true, fetch: fake.fetch })

/** A session answer: an access JWT and, unless `refresh` is null, a refresh record. */
export const session = (
  accessInSeconds = 300,
  refresh: { token: string; expires_at: string } | null = {
    token: "rt-new",
    expires_at: new Date(Date.now() + 30 * 86_400_000).toISOString()
  }
): Response =>
  json(
    refresh === null
      ? { access_token: jwt(accessInSeconds) }
      : { access_token: jwt(accessInSeconds), refresh_token: refresh }
  )

// --- Globals ----------------------------------------------------------------------------------------------

const saved: Array<{ name: string; descriptor: PropertyDescriptor | undefined }> = []

/** Puts `value` at `globalThis[name]` until `restoreGlobals()`. */
export const installGlobal = (name: string, value: unknown): void => {
  saved.push({ name, descriptor: Object.getOwnPropertyDescriptor(globalThis, name) })
  Object.defineProperty(globalThis, name, { value, configurable: true, writable: true, enumerable: true })
}

/** Undoes every `installGlobal`, last first. */
export const restoreGlobals = (): void => {
  for (let entry = saved.pop(); entry !== undefined; entry = saved.pop()) {
    if (entry.descriptor === undefined) Reflect.deleteProperty(globalThis, entry.name)
    else Object.defineProperty(globalThis, entry.name, entry.descriptor)
  }
}

/** A Map-backed localStorage. */
export class FakeStorage {
  readonly items = new Map<string, string>()
  getItem(key: string): string | null {
    return this.items.get(key) ?? null
  }
  setItem(key: string, value: string): void {
    this.items.set(key, value)
  }
  removeItem(key: string): void {
    this.items.delete(key)
  }
}

export const installStorage = (): FakeStorage => {
  const storage = new FakeStorage()
  installGlobal("localStorage", storage)
  return storage
}

/** A localStorage whose every method throws (private mode, quota, security errors). */
export const installThrowingStorage = (): { calls: number } => {
  const counter = { calls: 0 }
  const fail = (): never => {
    counter.calls++
    throw new Error("SecurityError: storage refused")
  }
  installGlobal("localStorage", { getItem: fail, setItem: fail, removeItem: fail })
  return counter
}

/** navigator.locks that records each lock name and runs the callback at once. */
export const installLocks = (): Array<string> => {
  const names: Array<string> = []
  installGlobal("navigator", {
    locks: {
      request: (name: string, callback: (lock: unknown) => Promise<unknown>) => {
        names.push(name)
        return callback({ name })
      }
    }
  })
  return names
}

type Listener = () => void

/** A target recording its listeners, able to fire them. */
export class FakeTarget {
  readonly listeners = new Map<string, Set<Listener>>()
  readonly added: Array<string> = []
  readonly removed: Array<string> = []
  addEventListener(type: string, listener: Listener): void {
    this.added.push(type)
    const set = this.listeners.get(type) ?? new Set()
    set.add(listener)
    this.listeners.set(type, set)
  }
  removeEventListener(type: string, listener: Listener): void {
    this.removed.push(type)
    this.listeners.get(type)?.delete(listener)
  }
  count(type: string): number {
    return this.listeners.get(type)?.size ?? 0
  }
  fire(type: string): void {
    for (const listener of [...(this.listeners.get(type) ?? [])]) listener()
  }
}

export const installBrowser = (): { window: FakeTarget; document: FakeTarget & { visibilityState: string } } => {
  const window = new FakeTarget()
  const document = Object.assign(new FakeTarget(), { visibilityState: "visible" })
  installGlobal("window", window)
  installGlobal("document", document)
  return { window, document }
}

// --- Time -------------------------------------------------------------------------------------------------

const realSetImmediate = globalThis.setImmediate

/** Lets every pending promise chain run (a few real macrotask turns; works under fake timers). */
export const settle = async (): Promise<void> => {
  for (let turn = 0; turn < 5; turn++) await new Promise<void>((resolve) => realSetImmediate(resolve))
}

/** Fake timers at T0 (Date included). */
export const useClock = (at: Date = T0): void => {
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "setInterval", "clearInterval", "Date"] })
  vi.setSystemTime(at)
}
