import * as HttpLayerRouter from "@effect/platform/HttpLayerRouter"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { Readiness } from "../src/Readiness.js"

const ok = HttpServerResponse.unsafeJson({ status: "ok" })
const ready = HttpServerResponse.unsafeJson({ status: "ready" })
const unavailable = HttpServerResponse.unsafeJson({ status: "unavailable" }, { status: 503 })

/**
 * /healthz: the process answers (the gateway's Node server answers it before
 * the runtime, see NodeServer.ts; this route serves other servers). /readyz:
 * the database answers within 2 s (Readiness).
 */
export const HealthRoutes = Layer.effectDiscard(
  Effect.gen(function* () {
    const router = yield* HttpLayerRouter.HttpRouter
    const readiness = yield* Readiness
    yield* router.add("GET", "/healthz", Effect.succeed(ok))
    yield* router.add(
      "GET",
      "/readyz",
      Effect.map(readiness.check, (isReady) => (isReady ? ready : unavailable))
    )
  })
)
