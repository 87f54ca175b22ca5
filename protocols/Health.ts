import * as HttpLayerRouter from "@effect/platform/HttpLayerRouter"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { Readiness } from "../src/platform/Readiness.js"

const ready = HttpServerResponse.unsafeJson({ status: "ready" })
const unavailable = HttpServerResponse.unsafeJson({ status: "unavailable" }, { status: 503 })

/**
 * /readyz: the database answers within 2 s (Readiness). /healthz, liveness,
 * is answered by the Node server itself before the runtime (NodeServer.ts).
 */
export const HealthRoutes = Layer.effectDiscard(
  Effect.gen(function* () {
    const router = yield* HttpLayerRouter.HttpRouter
    const readiness = yield* Readiness
    yield* router.add(
      "GET",
      "/readyz",
      Effect.map(readiness.check, (isReady) => (isReady ? ready : unavailable))
    )
  })
)
