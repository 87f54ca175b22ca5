import * as HttpClientError from "@effect/platform/HttpClientError"
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"
import * as ParseResult from "effect/ParseResult"
import { CloudAPIError, CloudResponseError } from "../core/errors.js"

/**
 * What an Effect client call fails with: the service's non-2xx answer
 * (CloudAPIError), an answer without the contract's shape
 * (CloudResponseError), an argument the contract refuses, caught before
 * anything is sent (ParseError), or no answer at all (RequestError: the
 * network, or an auth mode that could not get a token).
 */
export type SvcClientError = CloudAPIError | CloudResponseError | ParseResult.ParseError | HttpClientError.RequestError

/** Set once a call's answer has arrived: a ParseError after it is about the answer, before it about the argument. */
const answeredRef = FiberRef.unsafeMake<{ answered: boolean } | undefined>(undefined)

export const markAnswered: Effect.Effect<void> = Effect.flatMap(FiberRef.get(answeredRef), (marker) =>
  Effect.sync(() => {
    if (marker !== undefined) marker.answered = true
  })
)

const responseError = (error: ParseResult.ParseError): CloudResponseError => {
  const [first] = ParseResult.ArrayFormatter.formatErrorSync(error)
  const path = first === undefined || first.path.length === 0 ? "body" : first.path.map(String).join(".")
  return new CloudResponseError(`Invalid service response for "${path}": ${first?.message ?? "unexpected shape"}`)
}

const classify = (error: unknown, answered: boolean): SvcClientError => {
  if (error instanceof CloudAPIError || error instanceof CloudResponseError) return error
  if (ParseResult.isParseError(error)) return answered ? responseError(error) : error
  if (HttpClientError.isHttpClientError(error)) {
    if (error.cause instanceof CloudAPIError || error.cause instanceof CloudResponseError) return error.cause
    if (error._tag === "RequestError") return error
    return new CloudResponseError(`Invalid service response for "body": ${error.message}`)
  }
  // A declared wire error: not reached, as every non-2xx answer fails in the client first.
  return new CloudResponseError(`Invalid service response for "body": ${String(error)}`)
}

/** Each endpoint's failures as SvcClientError. */
export const classifyFailures = <A>(effect: Effect.Effect<A, unknown>): Effect.Effect<A, SvcClientError> =>
  Effect.suspend(() => {
    const marker = { answered: false }
    return effect.pipe(
      Effect.locally(answeredRef, marker),
      Effect.mapError((error) => classify(error, marker.answered))
    )
  })
