import * as HttpLayerRouter from "@effect/platform/HttpLayerRouter"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

const ok = HttpServerResponse.unsafeJson({ status: "ok" })

/**
 * /healthz: the process answers (the gateway's Node server answers it before
 * the runtime, see src/NodeServer.ts; this route serves other servers, such as
 * the tests' in-process one). /readyz: the database answers within 2 s.
 */
export const HealthRoutes = Layer.effectDiscard(
  Effect.gen(function* () {
    const router = yield* HttpLayerRouter.HttpRouter
    const sql = yield* SqlClient.SqlClient
    const ready = sql`SELECT 1 AS one`.pipe(
      Effect.timeout("2 seconds"),
      Effect.as(HttpServerResponse.unsafeJson({ status: "ready" })),
      Effect.catchAllCause((cause) =>
        Effect.logWarning("readiness check failed", cause).pipe(
          Effect.as(HttpServerResponse.unsafeJson({ status: "unavailable" }, { status: 503 }))
        )
      )
    )
    yield* router.add("GET", "/healthz", Effect.succeed(ok))
    yield* router.add("GET", "/readyz", ready)
  })
)
