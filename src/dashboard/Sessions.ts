/**
 * Dashboard sessions (docs/dashboard.md "Sign-in and session"): sign-in with
 * the admin token or a project API key, rate limited per client address; a
 * session is a random secret of which only the hash is stored, ends after
 * 12 hours without use, at sign-out, when the API key that opened it is
 * revoked or expires, and when ADMIN_TOKEN changes. What a session may see:
 * the admin every project, a key's session its own project only (another
 * project's id is 404, as for any resource of another tenant). What a
 * session may change, and the operating views beyond a project's settings
 * (keys, alerts, evaluators, webhooks, erasure, jobs): the admin's only; a
 * key's session gets 403 in its own project (docs/dashboard.md "Roles").
 */
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import type { DashboardCallerShape } from "../../schema/Api/Dashboard.js"
import { Forbidden, notFound } from "../../schema/Errors.js"
import { Limits } from "../../schema/Limits.js"
import { ApiKeys } from "../auth/ApiKeys.js"
import { AppConfig } from "../platform/Config.js"
import { RateLimiter } from "../platform/RateLimiter.js"
import { hashSecret, newSecret, sameSecret } from "../platform/Secrets.js"
import { fn } from "../platform/telemetry/Traced.js"
import { Projects } from "../projects/Projects.js"
import { SessionsRepo } from "./SessionsRepo.js"

/** The token is neither the admin token nor a live API key. */
export class SignInRefused extends Data.TaggedError("SignInRefused")<{ readonly message: string }> {}

/** What a key's session gets from an operating call: it may read its project, not run it. */
const adminOnly = new Forbidden({ message: "only a session opened with the admin token may do this" })

const IDLE_SECONDS = Limits.dashboard.sessionIdleHours * 3600
const SECRET_PATTERN = /^ds_[A-Za-z0-9_-]{43}$/

export class DashboardSessions extends Effect.Service<DashboardSessions>()("svc/DashboardSessions", {
  dependencies: [SessionsRepo.Default, ApiKeys.Default, Projects.Default, RateLimiter.Default],
  effect: Effect.gen(function* () {
    const repo = yield* SessionsRepo
    const apiKeys = yield* ApiKeys
    const projects = yield* Projects
    const limiter = yield* RateLimiter
    const adminToken = Option.map(yield* AppConfig.adminToken, (token) => Redacted.value(token).trim())
    const adminTokenHash = Option.getOrNull(Option.map(adminToken, hashSecret))

    /** A new session for `token`; its secret goes in the cookie and nowhere else. */
    const signIn = fn("DashboardSessions.signIn")(function* (token: string, clientAddress: string) {
      yield* limiter.consume(`dashboard-sign-in:${clientAddress}`, Limits.dashboard.signInPerMinute, 60)
      const secret = newSecret("ds")
      const idHash = hashSecret(secret)
      if (Option.isSome(adminToken) && sameSecret(token.trim(), adminToken.value)) {
        yield* repo.insert({ idHash, kind: "admin", projectId: null, apiKeyId: null, adminTokenHash })
      } else {
        const key = yield* apiKeys.verify(token.trim())
        if (key === undefined) return yield* new SignInRefused({ message: "unknown token" })
        yield* repo.insert({
          idHash,
          kind: "project",
          projectId: key.projectId,
          apiKeyId: key.keyId,
          adminTokenHash: null
        })
      }
      // Sessions idle past their end are cleared now and then, off the caller's path.
      if (Math.random() < 0.05) yield* Effect.forkDaemon(repo.removeIdle(IDLE_SECONDS))
      return secret
    })

    /** The session behind a cookie's secret, its idle clock restarted; undefined when it has ended. */
    const resolve = fn("DashboardSessions.resolve")(function* (secret: string) {
      if (!SECRET_PATTERN.test(secret)) return undefined
      const idHash = hashSecret(secret)
      const row = Option.getOrUndefined(yield* repo.touch(idHash, IDLE_SECONDS, adminTokenHash))
      if (row === undefined) return undefined
      const caller: DashboardCallerShape = {
        sessionId: idHash,
        kind: row.kind,
        projectId: row.project_id ?? undefined
      }
      return caller
    })

    const signOut = fn("DashboardSessions.signOut")(function* (caller: DashboardCallerShape) {
      yield* repo.remove(caller.sessionId)
    })

    /** The projects the session may open: every one for the admin, its own for a key's session. */
    const projectsOf = fn("DashboardSessions.projectsOf")(function* (caller: DashboardCallerShape) {
      const rows =
        caller.projectId === undefined ? yield* projects.list : Option.toArray(yield* projects.get(caller.projectId))
      return rows.map((row) => ({ id: row.id, name: row.name }))
    })

    /** `projectId` if the session may read it; 404 otherwise (unknown, or another tenant's). */
    const scope = fn("DashboardSessions.scope")(function* (caller: DashboardCallerShape, projectId: string) {
      if (caller.projectId !== undefined) {
        if (caller.projectId !== projectId) return yield* Effect.fail(notFound("project"))
        return projectId
      }
      return (yield* projects.require(projectId)).id
    })

    /**
     * `projectId` if the session may operate it (change settings, see keys,
     * alerts, evaluators, webhooks, erasures): the admin's session only; a
     * key's session 403 in its own project, 404 in another.
     */
    const manage = fn("DashboardSessions.manage")(function* (caller: DashboardCallerShape, projectId: string) {
      const scoped = yield* scope(caller, projectId)
      if (caller.kind !== "admin") return yield* Effect.fail(adminOnly)
      return scoped
    })

    /** The gateway's own operations (jobs): the admin's session only, 403 otherwise. */
    const manageGateway = fn("DashboardSessions.manageGateway")(function* (caller: DashboardCallerShape) {
      if (caller.kind !== "admin") return yield* Effect.fail(adminOnly)
    })

    return { signIn, resolve, signOut, projectsOf, scope, manage, manageGateway } as const
  })
}) {}
