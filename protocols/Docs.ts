/**
 * The OpenAPI document (`GET /v1/openapi.json`) and the docs page (`GET
 * /docs`), each made at its first request and kept, not at start. Making the
 * document walks the whole API's schemas (OpenApi.fromApi), and the page
 * inlines it beside Scalar's bundle; made eagerly, as `addHttpApi`'s
 * `openapiPath` and `HttpApiScalar.layerHttpLayerRouter` do, they were the
 * largest part of a start after the store was ready (issue 27: the first
 * start on a new PostgreSQL database). The answers are the same: the
 * document is `OpenApi.fromApi(Api)` as JSON, the page is
 * @effect/platform's own Scalar page, served by a router of its own that is
 * built at the first request.
 */
import type * as HttpApiScalar from "@effect/platform/HttpApiScalar"
import * as HttpLayerRouter from "@effect/platform/HttpLayerRouter"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as OpenApi from "@effect/platform/OpenApi"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Scope from "effect/Scope"
import { Api } from "../schema/Api.js"

export const OPENAPI_PATH = "/v1/openapi.json"
export const DOCS_PATH = "/docs"

/**
 * The docs page runs the Scalar bundle @effect/platform ships (inlined, no
 * CDN), with everything that talks to a third party off: the toolbar (its
 * "Share" uploads the document to Scalar's registry), the "open in API
 * client" button (client.scalar.com), telemetry, the default fonts
 * (fonts.scalar.com); no proxy URL, so "Test request" goes straight to this
 * gateway, at the document's relative server.
 */
const scalar: HttpApiScalar.ScalarConfig & {
  readonly showToolbar: "never"
  readonly hideClientButton: boolean
  readonly telemetry: boolean
} = { showToolbar: "never", hideClientButton: true, telemetry: false, withDefaultFonts: false }

/** Scalar's page, in a chunk of its own (its bundle is a 3 MB string that every start would otherwise parse). */
const ScalarPage = Layer.unwrapEffect(
  Effect.map(
    Effect.promise(() => import("@effect/platform/HttpApiScalar")),
    (module) => module.layerHttpLayerRouter({ api: Api, path: DOCS_PATH, scalar })
  )
)

export const DocsRoutes = HttpLayerRouter.use((router) =>
  Effect.gen(function* () {
    const document = yield* Effect.cached(Effect.sync(() => HttpServerResponse.unsafeJson(OpenApi.fromApi(Api))))
    yield* router.add("GET", OPENAPI_PATH, document)
    // The page's own router (a memo map of its own: the server's would answer the server's router), living as
    // long as the server's (this layer's scope).
    const scope = yield* Effect.scope
    const page = yield* Effect.cached(
      Scope.extend(HttpLayerRouter.toHttpEffect(ScalarPage), scope).pipe(
        Effect.provideServiceEffect(Layer.CurrentMemoMap, Layer.makeMemoMap)
      )
    )
    yield* router.add("GET", DOCS_PATH, Effect.flatten(page))
  })
)
