import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { Caller } from "../../schema/Api/Security.js"
import { Api } from "../../schema/Api.js"
import { NotFound } from "../../schema/Errors.js"
import { Sessions } from "../../src/auth/Sessions.js"
import { AppConfig } from "../../src/platform/Config.js"
import { clientAddress } from "./ClientAddress.js"
import { FrontendProject } from "./Frontend.js"
import { answerRateLimited } from "./RateLimit.js"

/** The anonymous routes need the project of the frontend base URL. */
const frontendProject = Effect.flatMap(Effect.serviceOption(FrontendProject), (project) =>
  Option.isSome(project)
    ? Effect.succeed(project.value)
    : Effect.fail(new NotFound({ message: "anonymous sessions live on the project's URL: /p/{project_id}/v1/..." }))
)

export const SessionsLive = HttpApiBuilder.group(Api, "sessions", (handlers) =>
  Effect.gen(function* () {
    const sessions = yield* Sessions
    const trustedProxies = yield* AppConfig.trustedProxies

    const address = Effect.map(HttpServerRequest.HttpServerRequest, (request) => clientAddress(request, trustedProxies))

    return handlers
      .handle("anonymous", () =>
        Effect.all([frontendProject, address]).pipe(
          Effect.flatMap(([projectId, client]) => sessions.createAnonymous(projectId, client)),
          answerRateLimited
        )
      )
      .handle("refresh", ({ payload }) =>
        Effect.all([frontendProject, address]).pipe(
          Effect.flatMap(([projectId, client]) => sessions.refresh(projectId, payload.refresh_token, client)),
          answerRateLimited
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
