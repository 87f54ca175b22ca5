import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { Caller } from "../../schema/Api/Security.js"
import { Api } from "../../schema/Api.js"
import { NotFound } from "../../schema/Errors.js"
import { Limits } from "../../schema/Limits.js"
import { Sessions } from "../../src/auth/Sessions.js"
import { AppConfig } from "../../src/Config.js"
import { RateLimiter } from "../../src/RateLimiter.js"
import { clientAddress } from "./ClientAddress.js"
import { FrontendProject } from "./Frontend.js"
import { rateLimited } from "./RateLimit.js"

/** The anonymous routes need the project of the frontend base URL. */
const frontendProject = Effect.flatMap(Effect.serviceOption(FrontendProject), (project) =>
  Option.isSome(project)
    ? Effect.succeed(project.value)
    : Effect.fail(new NotFound({ message: "anonymous sessions live on the project's URL: /p/{project_id}/v1/..." }))
)

export const SessionsLive = HttpApiBuilder.group(Api, "sessions", (handlers) =>
  Effect.gen(function* () {
    const sessions = yield* Sessions
    const limiter = yield* RateLimiter
    const trustedProxies = yield* AppConfig.trustedProxies

    /** Runs `effect` unless the client address is over `limit` a minute for `action`. */
    const limited = <A, E, R>(action: string, limit: number, effect: Effect.Effect<A, E, R>) =>
      Effect.gen(function* () {
        const address = clientAddress(yield* HttpServerRequest.HttpServerRequest, trustedProxies)
        const decision = yield* limiter.hit(`${action}:${address}`, limit, 60)
        return decision.allowed ? yield* effect : rateLimited(decision)
      })

    return handlers
      .handle("anonymous", () =>
        limited(
          "anonymous",
          Limits.rate.anonymousCreatePerMinute,
          Effect.flatMap(frontendProject, (projectId) => sessions.createAnonymous(projectId))
        )
      )
      .handle("refresh", ({ payload }) =>
        limited(
          "refresh",
          Limits.rate.anonymousRefreshPerMinute,
          Effect.flatMap(frontendProject, (projectId) => sessions.refresh(projectId, payload.refresh_token))
        )
      )
  })
)

export const ClaimLive = HttpApiBuilder.group(Api, "claim", (handlers) =>
  Effect.gen(function* () {
    const sessions = yield* Sessions
    return handlers.handle("claim", ({ payload }) =>
      Effect.flatMap(Caller, (caller) => sessions.claim(caller, payload.refresh_token)).pipe(
        Effect.map((moved) => ({ moved }))
      )
    )
  })
)
