import type * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import type * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { ClientApi } from "./Api.js"
import { classifyFailures } from "./Errors.js"

/**
 * Query parameters the contract defaults (`limit`, `offset`): the server
 * fills them in when absent, so a caller may leave them out too. The request
 * types make exactly these optional; a test keeps the list equal to the
 * defaulted fields of every query schema.
 */
export type DefaultedParam = "limit" | "offset"

/** Each endpoint's query defaults, found by decoding each field of its query schema from nothing. */
const defaultsOf = (schema: object): Readonly<Record<string, unknown>> => {
  const out: Record<string, unknown> = {}
  if (!("fields" in schema)) return out
  for (const [key, field] of Object.entries(schema.fields as Schema.Struct.Fields)) {
    const one = Schema.make<Readonly<Record<string, unknown>>>(Schema.Struct({ [key]: field }).ast)
    const decoded = Schema.decodeUnknownEither(one)({})
    if (Either.isRight(decoded) && Object.hasOwn(decoded.right, key)) out[key] = decoded.right[key]
  }
  return out
}

interface Filling {
  /** The query's defaulted parameters, when it has a query. */
  readonly urlParams: Readonly<Record<string, unknown>> | undefined
  readonly headers: boolean
}

/** `group -> endpoint -> what a request may leave out`. */
const fillings: ReadonlyMap<string, ReadonlyMap<string, Filling>> = new Map(
  Object.entries(ClientApi.groups).map(([groupName, group]) => [
    groupName,
    new Map(
      Object.entries(group.endpoints).map(([name, endpoint]) => {
        const { urlParamsSchema, headersSchema } = endpoint as HttpApiEndpoint.HttpApiEndpoint.AnyWithProps
        return [
          name,
          {
            urlParams: Option.match(urlParamsSchema, { onNone: () => undefined, onSome: defaultsOf }),
            headers: Option.isSome(headersSchema)
          }
        ] as const
      })
    )
  ])
)

/** The defaulted query parameters of every endpoint that has any (for the test that keeps DefaultedParam honest). */
export const queryDefaults = (): ReadonlyArray<readonly [string, Readonly<Record<string, unknown>>]> =>
  [...fillings].flatMap(([group, endpoints]) =>
    [...endpoints].flatMap(([name, filling]) =>
      filling.urlParams === undefined || Object.keys(filling.urlParams).length === 0
        ? []
        : [[`${group}.${name}`, filling.urlParams] as const]
    )
  )

interface Request {
  readonly urlParams?: object
  readonly headers?: object
}

type Method = (request?: Request) => Effect.Effect<unknown, unknown>

/**
 * The generated client taking what the types let a caller leave out (a query
 * whose parameters are all optional or defaulted, optional headers, the
 * defaulted parameters themselves), each call failing with SvcClientError.
 */
export const withRequestDefaults = <C extends Record<string, Record<string, unknown>>>(client: C): C => {
  for (const [groupName, endpoints] of fillings) {
    const group = client[groupName] as Record<string, unknown> | undefined
    if (group === undefined) continue
    for (const [name, filling] of endpoints) {
      const method = group[name] as Method
      group[name] = (request?: Request) => {
        const filled: { -readonly [K in keyof Request]: Request[K] } = Object.assign({}, request)
        if (filling.urlParams !== undefined) filled.urlParams = Object.assign({}, filling.urlParams, request?.urlParams)
        if (filling.headers) filled.headers = Object.assign({}, request?.headers)
        return classifyFailures(method(filled))
      }
    }
  }
  return client
}
