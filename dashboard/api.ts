/**
 * The page's one way to the gateway: clients derived from the dashboard's
 * HttpApi (schema/Api/Dashboard.ts), every request carrying the CSRF header.
 * A 401 from any call but sign-in tells the app to show the sign-in form.
 *
 * Each endpoint's client is made the first time it is called
 * (HttpApiClient.endpoint): making one compiles its schemas' encoders and
 * decoders, and a page load needs two to five of the seventeen, so the others
 * cost nothing before the first requests go out.
 */
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import * as HttpApiClient from "@effect/platform/HttpApiClient"
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import { CSRF_HEADER, DashboardApi } from "../schema/Api/Dashboard.js"

const httpClient = Effect.runSync(
  Effect.map(HttpClient.HttpClient, HttpClient.mapRequest(HttpClientRequest.setHeader(CSRF_HEADER, "1"))).pipe(
    Effect.provide(FetchHttpClient.layer)
  )
)

/** How every client of the page is made: this origin, the CSRF header on every request. */
export const clientOptions = { httpClient, baseUrl: location.origin } as const
const options = clientOptions

/** An endpoint's client, made on first use and kept. */
const once = <A>(make: () => Effect.Effect<A>): (() => A) => {
  let made: { readonly value: A } | undefined
  return () => {
    made ??= { value: Effect.runSync(make()) }
    return made.value
  }
}

const endpoints = {
  signIn: once(() =>
    HttpApiClient.endpoint(DashboardApi, { group: "dashboardSignIn", endpoint: "signIn", ...options })
  ),
  session: once(() => HttpApiClient.endpoint(DashboardApi, { group: "dashboard", endpoint: "session", ...options })),
  signOut: once(() => HttpApiClient.endpoint(DashboardApi, { group: "dashboard", endpoint: "signOut", ...options })),
  usageDaily: once(() =>
    HttpApiClient.endpoint(DashboardApi, { group: "dashboard", endpoint: "usageDaily", ...options })
  ),
  usagePeriod: once(() =>
    HttpApiClient.endpoint(DashboardApi, { group: "dashboard", endpoint: "usagePeriod", ...options })
  ),
  threads: once(() => HttpApiClient.endpoint(DashboardApi, { group: "dashboard", endpoint: "threads", ...options })),
  topics: once(() => HttpApiClient.endpoint(DashboardApi, { group: "dashboard", endpoint: "topics", ...options })),
  topicThreads: once(() =>
    HttpApiClient.endpoint(DashboardApi, { group: "dashboard", endpoint: "topicThreads", ...options })
  ),
  search: once(() => HttpApiClient.endpoint(DashboardApi, { group: "dashboard", endpoint: "search", ...options })),
  thread: once(() => HttpApiClient.endpoint(DashboardApi, { group: "dashboard", endpoint: "thread", ...options })),
  messages: once(() => HttpApiClient.endpoint(DashboardApi, { group: "dashboard", endpoint: "messages", ...options })),
  runs: once(() => HttpApiClient.endpoint(DashboardApi, { group: "dashboard", endpoint: "runs", ...options })),
  run: once(() => HttpApiClient.endpoint(DashboardApi, { group: "dashboard", endpoint: "run", ...options })),
  scores: once(() => HttpApiClient.endpoint(DashboardApi, { group: "dashboard", endpoint: "scores", ...options })),
  scoreSummary: once(() =>
    HttpApiClient.endpoint(DashboardApi, { group: "dashboard", endpoint: "scoreSummary", ...options })
  ),
  traces: once(() => HttpApiClient.endpoint(DashboardApi, { group: "dashboard", endpoint: "traces", ...options })),
  trace: once(() => HttpApiClient.endpoint(DashboardApi, { group: "dashboard", endpoint: "trace", ...options }))
}

/** Makes these endpoints' clients now (a call made later starts at once). */
export const prepare = (...names: ReadonlyArray<keyof typeof endpoints>): void => {
  for (const name of names) endpoints[name]()
}

/** The dashboard's calls: sign-in, then the session's group (each made on first use). */
export const client = {
  get signIn() {
    return endpoints.signIn()
  },
  get session() {
    return endpoints.session()
  },
  get signOut() {
    return endpoints.signOut()
  },
  get usageDaily() {
    return endpoints.usageDaily()
  },
  get usagePeriod() {
    return endpoints.usagePeriod()
  },
  get threads() {
    return endpoints.threads()
  },
  get topics() {
    return endpoints.topics()
  },
  get topicThreads() {
    return endpoints.topicThreads()
  },
  get search() {
    return endpoints.search()
  },
  get thread() {
    return endpoints.thread()
  },
  get messages() {
    return endpoints.messages()
  },
  get runs() {
    return endpoints.runs()
  },
  get run() {
    return endpoints.run()
  },
  get scores() {
    return endpoints.scores()
  },
  get scoreSummary() {
    return endpoints.scoreSummary()
  },
  get traces() {
    return endpoints.traces()
  },
  get trace() {
    return endpoints.trace()
  }
}

/** What the page shows when a call fails: words, and whether the session is gone. */
export interface CallError {
  readonly status: number | undefined
  readonly message: string
  readonly unauthorized: boolean
}

const field = (value: unknown, key: string): unknown =>
  typeof value === "object" && value !== null && key in value ? (value as Record<string, unknown>)[key] : undefined

const statusOf = (error: unknown): number | undefined => {
  const status = field(field(error, "response"), "status")
  return typeof status === "number" ? status : undefined
}

const WORDS: Record<number, string> = {
  401: "You are not signed in.",
  403: "This is not allowed.",
  404: "Not found.",
  429: "Too many attempts; wait a minute and try again.",
  503: "The gateway is unavailable for now; try again shortly."
}

/** The statuses of the gateway's error codes the dashboard's routes declare (schema/Errors.ts). */
const STATUS_OF_CODE: Record<string, number> = {
  invalid_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  rate_limited: 429,
  unavailable: 503
}

/** A failure as words: the gateway's `{error, message}`, else what went wrong on the way. */
export const describe = (error: unknown): CallError => {
  const code = field(error, "error")
  const message = field(error, "message")
  if (typeof code === "string" && typeof message === "string") {
    return { status: STATUS_OF_CODE[code], message, unauthorized: code === "unauthorized" }
  }
  const status = statusOf(error)
  const tag = field(error, "_tag")
  if (status !== undefined) {
    return { status, message: WORDS[status] ?? `The gateway answered ${status}.`, unauthorized: status === 401 }
  }
  if (tag === "RequestError") return { status, message: "The gateway could not be reached.", unauthorized: false }
  if (tag === "ParseError") {
    // Encoding a request (a value in the page's address) or decoding an answer.
    return {
      status,
      message: "A value did not match the API: check the filters in this page's address, or try again.",
      unauthorized: false
    }
  }
  return { status, message: "Something went wrong.", unauthorized: false }
}

const listeners = new Set<() => void>()

/** Called whenever a call answers 401 (the session ended or never was). */
export const onUnauthorized = (listener: () => void): (() => void) => {
  listeners.add(listener)
  return () => listeners.delete(listener)
}

/** Cancelled: the view moved on before the answer came. */
export class Aborted extends Error {}

/**
 * Runs a call: the value, or a CallError thrown (401 also told to the app,
 * unless `quiet` as sign-in is: a wrong token is not a lost session).
 */
export const run = async <A, E>(
  effect: Effect.Effect<A, E>,
  options: { readonly signal?: AbortSignal | undefined; readonly quiet?: boolean } = {}
): Promise<A> => {
  const exit = await Effect.runPromiseExit(effect, options.signal ? { signal: options.signal } : undefined)
  if (Exit.isSuccess(exit)) return exit.value
  if (options.signal?.aborted) throw new Aborted()
  const failure = Option.getOrElse(Cause.failureOption(exit.cause), () => Cause.squash(exit.cause))
  const described = describe(failure)
  if (described.unauthorized && !options.quiet) for (const listener of listeners) listener()
  throw described
}

export const isCallError = (value: unknown): value is CallError =>
  typeof value === "object" && value !== null && "message" in value && "unauthorized" in value

/** What a call threw, as a CallError. */
export const asCallError = (error: unknown): CallError =>
  isCallError(error) ? error : { status: undefined, message: "Something went wrong.", unauthorized: false }
