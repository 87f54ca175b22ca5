/**
 * The page's one way to the gateway: a client derived from the dashboard's
 * HttpApi (schema/Api/Dashboard.ts), every request carrying the CSRF header.
 * A 401 from any call but sign-in tells the app to show the sign-in form.
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

const makeClient = HttpApiClient.make(DashboardApi, {
  baseUrl: location.origin,
  transformClient: HttpClient.mapRequest(HttpClientRequest.setHeader(CSRF_HEADER, "1"))
}).pipe(Effect.provide(FetchHttpClient.layer))

export type Client = Effect.Effect.Success<typeof makeClient>

/** The client, made once. */
export const client: Client = Effect.runSync(makeClient)

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
