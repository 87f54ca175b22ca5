/**
 * The dashboard's session on the wire (docs/dashboard.md "Sign-in and
 * session"): the cookie, and the CSRF rule for calls that change anything.
 */
import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerRequestTag from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { CSRF_HEADER, DashboardSession, SESSION_COOKIE } from "../../schema/Api/Dashboard.js"
import { Forbidden, Unauthorized } from "../../schema/Errors.js"
import { DashboardSessions } from "../../src/dashboard/Sessions.js"
import { AppConfig } from "../../src/platform/Config.js"

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"])

/**
 * Whether a changing call comes from the gateway's own page: the custom
 * header (a cross-site form cannot set it, and a cross-site fetch that sets
 * it needs a preflight this host never grants) and an `Origin` equal to the
 * gateway's own (PUBLIC_URL's, or the request's own host).
 */
export const sameSiteCall = (request: HttpServerRequest.HttpServerRequest, publicOrigin: string): boolean => {
  if (request.headers[CSRF_HEADER] !== "1") return false
  const origin = request.headers.origin
  if (origin === undefined) return false
  if (origin === publicOrigin) return true
  const host = request.headers.host
  return host !== undefined && (origin === `http://${host}` || origin === `https://${host}`)
}

export const csrfRefused = new Forbidden({
  message: `a dashboard call that changes anything needs the ${CSRF_HEADER} header and this gateway's own Origin`
})

/** The session cookie's attributes: HttpOnly, SameSite=Strict, Path=/, Secure behind https. */
export const sessionCookie = (
  response: HttpServerResponse.HttpServerResponse,
  value: string,
  secure: boolean,
  ending = false
) =>
  HttpServerResponse.unsafeSetCookie(response, SESSION_COOKIE, value, {
    httpOnly: true,
    sameSite: "strict",
    path: "/",
    secure,
    ...(ending ? { maxAge: 0 } : {})
  })

/** The gateway's own origin (what a changing call's `Origin` must be) and whether its cookie is Secure. */
export const PublicSite = Effect.map(AppConfig.publicUrl, (url) => ({
  origin: new URL(url).origin,
  secure: url.startsWith("https:")
}))

export const DashboardSessionLive = Layer.effect(
  DashboardSession,
  Effect.gen(function* () {
    const sessions = yield* DashboardSessions
    const { origin: publicOrigin } = yield* PublicSite
    return {
      session: () =>
        Effect.gen(function* () {
          const request = yield* HttpServerRequestTag.HttpServerRequest
          const secret = request.cookies[SESSION_COOKIE]
          const caller = secret === undefined ? undefined : yield* sessions.resolve(secret)
          if (caller === undefined) {
            return yield* Effect.fail(new Unauthorized({ message: "sign in to the dashboard first" }))
          }
          if (!SAFE_METHODS.has(request.method) && !sameSiteCall(request, publicOrigin)) {
            return yield* Effect.fail(csrfRefused)
          }
          return caller
        })
    }
  })
)
