import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

/** How long the database has to answer before the gateway reads as not ready. */
const READY_TIMEOUT = "2 seconds"

/** Whether the gateway can serve: its database answers within 2 s. */
export class Readiness extends Effect.Service<Readiness>()("svc/Readiness", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const check: Effect.Effect<boolean> = sql`SELECT 1 AS one`.pipe(
      Effect.timeout(READY_TIMEOUT),
      Effect.as(true),
      Effect.catchAllCause((cause) => Effect.as(Effect.logWarning("readiness check failed", cause), false))
    )
    return { check } as const
  })
}) {}
