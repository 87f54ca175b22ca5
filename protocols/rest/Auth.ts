import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import { IdentityHeaderLabels, IdentityHeaderNames, IdentityValue } from "../../schema/Api/Identity.js"
import { AdminAuth, Authenticated, type CallerShape, ProjectApiKey } from "../../schema/Api/Security.js"
import { invalid, NotFound, Unauthorized } from "../../schema/Errors.js"
import { Limits } from "../../schema/Limits.js"
import { parseSdkHeader } from "../../schema/SdkHeader.js"
import { ApiKeys } from "../../src/auth/ApiKeys.js"
import { Issuers } from "../../src/auth/Issuers.js"
import { ANONYMOUS_ID_PREFIX, isAnonymousId } from "../../src/auth/Principals.js"
import { Tokens } from "../../src/auth/Tokens.js"
import { AppConfig } from "../../src/platform/Config.js"
import { sameSecret } from "../../src/platform/Secrets.js"
import { SdkClients } from "../../src/projects/SdkClients.js"
import { FrontendProject } from "./Frontend.js"

const unauthorized = (message: string) => Effect.fail(new Unauthorized({ message }))

/**
 * The bearer credential of the request. HttpApiSecurity.bearer slices the header
 * whatever its scheme and hands "" when it is missing, so it is read here.
 */
export const bearerOf = (request: HttpServerRequest.HttpServerRequest): string | undefined => {
  const header = request.headers.authorization
  if (header === undefined || header.length < 8 || header.slice(0, 7).toLowerCase() !== "bearer ") return undefined
  const token = header.slice(7).trim()
  return token === "" ? undefined : token
}

const decodeIdentity = Schema.decodeUnknownOption(IdentityValue)

const identityHeader = (
  request: HttpServerRequest.HttpServerRequest,
  name: typeof IdentityHeaderNames.user | typeof IdentityHeaderNames.workspace
) => {
  const raw = request.headers[name]
  const label = IdentityHeaderLabels[name]
  if (raw === undefined || raw.trim() === "") return Effect.fail(invalid(`${label} header is required`, label))
  const decoded = decodeIdentity(raw)
  if (Option.isNone(decoded)) {
    return Effect.fail(invalid(`${label} is longer than ${Limits.identityHeaderMaxLength} characters`, label))
  }
  const value = decoded.value
  if (isAnonymousId(value)) {
    return Effect.fail(
      invalid(`${label} may not start with ${ANONYMOUS_ID_PREFIX}: that prefix is reserved for anonymous users`, label)
    )
  }
  return Effect.succeed(value)
}

const sdkIdentities = (request: HttpServerRequest.HttpServerRequest) => {
  const sdk = parseSdkHeader(request.headers[IdentityHeaderNames.sdk])
  return sdk._tag === "TooManyTokens"
    ? Effect.fail(
        invalid(
          `Svc-Sdk has ${sdk.count} tokens; at most ${Limits.sdkHeader.maxTokens}`,
          IdentityHeaderLabels["svc-sdk"]
        )
      )
    : Effect.succeed(sdk.identities)
}

/**
 * Who is calling. On the backend host: an API key, acting as the user and
 * workspace of the identity headers. On a frontend base URL: a JWT for that
 * URL's project, acting as its `sub` and `wid` (docs/decisions.md
 * "Tenancy", "Service-issued tokens").
 */
export const AuthenticatedLive = Layer.effect(
  Authenticated,
  Effect.gen(function* () {
    const keys = yield* ApiKeys
    const tokens = yield* Tokens
    const issuers = yield* Issuers
    const sdkClients = yield* SdkClients

    const withApiKey = (request: HttpServerRequest.HttpServerRequest, token: string) =>
      Effect.gen(function* () {
        const key = yield* keys.verify(token)
        if (key === undefined) return yield* unauthorized("invalid, expired or revoked API key")
        const identities = yield* sdkIdentities(request)
        const userId = yield* identityHeader(request, IdentityHeaderNames.user)
        const workspaceId = yield* identityHeader(request, IdentityHeaderNames.workspace)
        yield* sdkClients.record(key.projectId, identities)
        const caller: CallerShape = { projectId: key.projectId, userId, workspaceId, mode: "api_key" }
        return caller
      })

    const withJwt = (request: HttpServerRequest.HttpServerRequest, token: string, projectId: string) =>
      Effect.gen(function* () {
        // The service's own tokens first, then the project's own identity provider, if it has one.
        const verified =
          (yield* tokens.verifyAccessToken(token, projectId)) ?? (yield* issuers.verify(token, projectId))
        if (verified === undefined) return yield* unauthorized("invalid or expired token for this project")
        const identities = yield* sdkIdentities(request)
        yield* sdkClients.record(projectId, identities)
        const caller: CallerShape = {
          projectId,
          userId: verified.userId,
          workspaceId: verified.workspaceId,
          mode: verified.anonymous ? "anonymous" : "jwt"
        }
        return caller
      })

    return {
      bearer: () =>
        Effect.gen(function* () {
          const request = yield* HttpServerRequest.HttpServerRequest
          const token = bearerOf(request)
          if (token === undefined) return yield* unauthorized("missing bearer credential")
          const frontend = yield* Effect.serviceOption(FrontendProject)
          return yield* Option.isSome(frontend) ? withJwt(request, token, frontend.value) : withApiKey(request, token)
        })
    }
  })
)

export const AdminAuthLive = Layer.effect(
  AdminAuth,
  Effect.gen(function* () {
    const adminToken = yield* AppConfig.adminToken
    return {
      bearer: () =>
        Effect.gen(function* () {
          if (Option.isNone(adminToken)) return yield* Effect.fail(new NotFound({ message: "not found" }))
          const token = bearerOf(yield* HttpServerRequest.HttpServerRequest)
          if (token === undefined || !sameSecret(token, Redacted.value(adminToken.value).trim())) {
            return yield* unauthorized("invalid admin token")
          }
        })
    }
  })
)

/**
 * The project read API: an API key, on the backend host only (a frontend
 * base URL is for JWT and anonymous callers, which see one workspace).
 */
export const ProjectApiKeyLive = Layer.effect(
  ProjectApiKey,
  Effect.gen(function* () {
    const keys = yield* ApiKeys
    const sdkClients = yield* SdkClients
    return {
      bearer: () =>
        Effect.gen(function* () {
          const request = yield* HttpServerRequest.HttpServerRequest
          if (Option.isSome(yield* Effect.serviceOption(FrontendProject))) {
            return yield* unauthorized("the project API takes an API key on the backend host, not a frontend URL")
          }
          const token = bearerOf(request)
          if (token === undefined) return yield* unauthorized("missing bearer credential")
          const key = yield* keys.verify(token)
          if (key === undefined) return yield* unauthorized("invalid, expired or revoked API key")
          yield* sdkClients.record(key.projectId, yield* sdkIdentities(request))
          return { projectId: key.projectId }
        })
    }
  })
)
