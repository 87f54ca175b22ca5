import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import * as HttpApiClient from "@effect/platform/HttpApiClient"
import type * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import type * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientError from "@effect/platform/HttpClientError"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import type { Simplify } from "effect/Types"
import { openRunStream, type RunStreamBody } from "../cloud/runStream.js"
import { type AssistantCloudConfig, resolveConfig } from "../core/config.js"
import { CloudAPIError } from "../core/errors.js"
import { type CloudEvent, EventBuffer } from "../core/events.js"
import type { SdkIdentity } from "../core/sdkHeader.js"
import type { ResolvedTelemetry } from "../core/telemetry.js"
import { ClientApi, type ClientGroups } from "./Api.js"
import { type DefaultedParam, withRequestDefaults } from "./Defaults.js"
import { classifyFailures, markAnswered, type SvcClientError } from "./Errors.js"

/** What a method takes: the contract's path, query, headers and payload; a query or headers with nothing required may be left out. */
type Request<Path, UrlParams, Payload, Headers> = Simplify<
  // biome-ignore lint/suspicious/noConfusingVoidType: HttpApiEndpoint marks an endpoint without a path with void.
  ([Path] extends [void] ? {} : { readonly path: Path }) &
    ([UrlParams] extends [never]
      ? {}
      : {} extends Defaulted<UrlParams>
        ? { readonly urlParams?: Defaulted<UrlParams> }
        : { readonly urlParams: Defaulted<UrlParams> }) &
    ([Headers] extends [never]
      ? {}
      : {} extends Headers
        ? { readonly headers?: Headers }
        : { readonly headers: Headers }) &
    ([Payload] extends [never] ? {} : { readonly payload: Payload })
>

/** A query with the contract's defaulted parameters optional (Defaults.ts fills them in). */
type Defaulted<UrlParams> = Simplify<
  Omit<UrlParams, DefaultedParam> & Partial<Pick<UrlParams, DefaultedParam & keyof UrlParams>>
>

/** One endpoint as a method: its request, its success, SvcClientError. */
type Method<Endpoint> = [Endpoint] extends [
  HttpApiEndpoint.HttpApiEndpoint<
    infer _Name,
    infer _Method,
    infer Path,
    infer UrlParams,
    infer Payload,
    infer Headers,
    infer Success,
    infer _Error,
    infer _R,
    infer _RE
  >
]
  ? {} extends Request<Path, UrlParams, Payload, Headers>
    ? (request?: Request<Path, UrlParams, Payload, Headers>) => Effect.Effect<Success, SvcClientError>
    : (request: Request<Path, UrlParams, Payload, Headers>) => Effect.Effect<Success, SvcClientError>
  : never

type Group<G> =
  G extends HttpApiGroup.HttpApiGroup<infer _Id, infer Endpoints, infer _E, infer _R, infer _Top>
    ? { readonly [E in Endpoints as HttpApiEndpoint.HttpApiEndpoint.Name<E>]: Method<E> }
    : never

/** Every group of the client's API, by name: `threads.list`, `messages.create`, `projects.runs`... */
export type SvcClientGroups = { readonly [G in ClientGroups as HttpApiGroup.HttpApiGroup.Name<G>]: Group<G> }

export interface SvcClientService extends Omit<SvcClientGroups, "runs" | "events"> {
  readonly runs: SvcClientGroups["runs"] & {
    /** The thread title (assistant `system/thread_title`) as a stream of text deltas. */
    readonly stream: (body: RunStreamBody) => Stream.Stream<string, SvcClientError>
  }
  readonly events: SvcClientGroups["events"] & {
    /** Buffers an engagement event as the promise client does (flush at 20, after 2 s, on close). */
    readonly track: (event: CloudEvent) => Effect.Effect<void>
    /** Sends what is buffered. */
    readonly flush: Effect.Effect<void>
  }
  /** The telemetry settings, read at each call. */
  readonly telemetry: ResolvedTelemetry
  readonly registerSdk: (identity: SdkIdentity) => Effect.Effect<void>
}

/** The client's configuration: one of the three arms of the promise client. */
export class SvcClientConfig extends Context.Tag("svc-client/SvcClientConfig")<
  SvcClientConfig,
  AssistantCloudConfig
>() {
  static readonly layer = (config: AssistantCloudConfig): Layer.Layer<SvcClientConfig> =>
    Layer.succeed(SvcClientConfig, config)
}

/** The failure a non-2xx answer becomes before the API client reads it: CloudAPIError with the raw body. */
const failOnStatus = (client: HttpClient.HttpClient): HttpClient.HttpClient =>
  HttpClient.transformResponse(client, (effect) =>
    Effect.flatMap(effect, (response) =>
      Effect.zipRight(
        markAnswered,
        response.status < 400
          ? Effect.succeed(response)
          : Effect.flatMap(response.text, (body) =>
              Effect.fail(
                new HttpClientError.ResponseError({
                  request: response.request,
                  response,
                  reason: "StatusCode",
                  cause: new CloudAPIError(response.status, body)
                })
              )
            )
      )
    )
  )

const make = (config: AssistantCloudConfig) =>
  Effect.gen(function* () {
    const { transport, telemetry, sdk } = yield* Effect.sync(() => resolveConfig(config))
    const fetch: typeof globalThis.fetch = (input, init) =>
      transport.send(input instanceof Request ? input.url : String(input), init ?? {})
    const groups = yield* HttpApiClient.make(ClientApi, {
      baseUrl: transport.baseUrl,
      transformClient: failOnStatus
    }).pipe(Effect.provide(FetchHttpClient.layer), Effect.provideService(FetchHttpClient.Fetch, fetch))
    // withRequestDefaults turned every failure into SvcClientError, which the generated types cannot follow.
    const client = withRequestDefaults(groups) as unknown as SvcClientGroups
    const settings = { telemetry }
    const buffer = new EventBuffer(transport, () => settings.telemetry)
    yield* Effect.addFinalizer(() => Effect.promise(() => buffer.dispose()))
    const service: SvcClientService = {
      threads: client.threads,
      messages: client.messages,
      claim: client.claim,
      auth: client.auth,
      runs: Object.assign({}, client.runs, {
        stream: (body: RunStreamBody) =>
          Stream.unwrap(
            Effect.map(
              Effect.tryPromise({ try: () => openRunStream(transport, body), catch: (error) => error }).pipe(
                classifyFailures
              ),
              (response) =>
                // The plain-text body, decoded as it comes (the promise client wraps it in an AssistantStream).
                Stream.fromReadableStream({
                  evaluate: () => response.body ?? new ReadableStream<Uint8Array>(),
                  onError: (error) => error
                }).pipe(
                  Stream.decodeText(),
                  Stream.filter((text) => text !== ""),
                  Stream.mapError((error) => error as SvcClientError)
                )
            )
          ) as Stream.Stream<string, SvcClientError>
      }),
      files: client.files,
      scores: client.scores,
      events: Object.assign({}, client.events, {
        track: (event: CloudEvent) => Effect.sync(() => buffer.track(event)),
        flush: Effect.promise(() => buffer.flush())
      }),
      projects: client.projects,
      get telemetry() {
        return settings.telemetry
      },
      registerSdk: (identity) => Effect.sync(() => sdk.register(identity))
    }
    return service
  })

/**
 * The client as a service. `SvcClient.layer(config)`, or `SvcClient.Default`
 * with a `SvcClientConfig` layer; closing the layer's scope flushes the
 * event buffer.
 */
export class SvcClient extends Context.Tag("svc-client/SvcClient")<SvcClient, SvcClientService>() {
  static readonly Default: Layer.Layer<SvcClient, never, SvcClientConfig> = Layer.scoped(
    SvcClient,
    Effect.flatMap(SvcClientConfig, make)
  )
  static readonly layer = (config: AssistantCloudConfig): Layer.Layer<SvcClient> =>
    Layer.provide(SvcClient.Default, SvcClientConfig.layer(config))
}
