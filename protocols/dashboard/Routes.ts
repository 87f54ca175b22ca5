/**
 * The dashboard's `/v1/dashboard/...` routes: sign-in and the page's reads,
 * each a thin adapter over the use cases the project API calls, after
 * DashboardSessions.scope has checked the project against the session.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Effect from "effect/Effect"
import { DashboardCaller } from "../../schema/Api/Dashboard.js"
import { Api } from "../../schema/Api.js"
import { Unauthorized } from "../../schema/Errors.js"
import { DashboardSessions } from "../../src/dashboard/Sessions.js"
import { AppConfig } from "../../src/platform/Config.js"
import { Runs } from "../../src/runs/Runs.js"
import { Scores } from "../../src/scores/Scores.js"
import { Search } from "../../src/search/Search.js"
import { Messages } from "../../src/threads/Messages.js"
import { Threads } from "../../src/threads/Threads.js"
import { Topics } from "../../src/topics/Topics.js"
import { Traces } from "../../src/traces/Traces.js"
import { Usage } from "../../src/usage/Usage.js"
import { clientAddress } from "../rest/ClientAddress.js"
import { messagePage, rawJson } from "../rest/Messages.js"
import { runsReply, traceReply, tracesReply } from "../rest/ProjectRead.js"
import { answerRateLimited } from "../rest/RateLimit.js"
import { csrfRefused, PublicSite, sameSiteCall, sessionCookie } from "./Session.js"

export const DashboardSignInLive = HttpApiBuilder.group(Api, "dashboardSignIn", (handlers) =>
  Effect.gen(function* () {
    const sessions = yield* DashboardSessions
    const trustedProxies = yield* AppConfig.trustedProxies
    const { origin: publicOrigin, secure } = yield* PublicSite
    return handlers.handle("signIn", ({ payload }) =>
      Effect.gen(function* () {
        const request = yield* HttpServerRequest.HttpServerRequest
        if (!sameSiteCall(request, publicOrigin)) return yield* Effect.fail(csrfRefused)
        const secret = yield* sessions.signIn(payload.token, clientAddress(request, trustedProxies))
        return sessionCookie(HttpServerResponse.empty({ status: 204 }), secret, secure)
      }).pipe(
        Effect.catchTag("SignInRefused", () =>
          Effect.fail(new Unauthorized({ message: "that is neither the admin token nor a live API key" }))
        ),
        answerRateLimited
      )
    )
  })
)

export const DashboardLive = HttpApiBuilder.group(Api, "dashboard", (handlers) =>
  Effect.gen(function* () {
    const sessions = yield* DashboardSessions
    const threads = yield* Threads
    const messages = yield* Messages
    const runs = yield* Runs
    const scores = yield* Scores
    const usage = yield* Usage
    const traces = yield* Traces
    const search = yield* Search
    const topics = yield* Topics
    const { secure } = yield* PublicSite

    /** The path's project, if this session may read it (404 otherwise). */
    const project = (path: { readonly project_id: string }) =>
      Effect.flatMap(DashboardCaller, (caller) => sessions.scope(caller, path.project_id))

    return handlers
      .handle("session", () =>
        Effect.flatMap(DashboardCaller, (caller) =>
          Effect.map(sessions.projectsOf(caller), (projects) => ({ kind: caller.kind, projects }))
        )
      )
      .handle("signOut", () =>
        Effect.flatMap(DashboardCaller, (caller) => sessions.signOut(caller)).pipe(
          Effect.as(sessionCookie(HttpServerResponse.empty({ status: 204 }), "", secure, true))
        )
      )
      .handle("usageDaily", ({ path, urlParams }) =>
        project(path).pipe(
          Effect.flatMap((projectId) => usage.daily(projectId, urlParams)),
          Effect.map((days) => ({ days }))
        )
      )
      .handle("usagePeriod", ({ path, urlParams }) =>
        project(path).pipe(
          Effect.flatMap((projectId) => usage.period(projectId, urlParams)),
          Effect.map(({ from, to, totals }) => ({ from, to, ...totals }))
        )
      )
      .handle("threads", ({ path, urlParams }) =>
        project(path).pipe(
          Effect.flatMap((projectId) => threads.listDashboard(projectId, urlParams)),
          Effect.map((list) => ({ threads: list }))
        )
      )
      .handle("topics", ({ path }) => project(path).pipe(Effect.flatMap((projectId) => topics.list(projectId))))
      .handle("topicThreads", ({ path, urlParams }) =>
        project(path).pipe(Effect.flatMap((projectId) => topics.threads(projectId, path.topic_id, urlParams)))
      )
      .handle("search", ({ path, urlParams }) =>
        project(path).pipe(
          Effect.flatMap((projectId) => search.threadsJson({ projectId }, urlParams)),
          Effect.map(rawJson)
        )
      )
      .handle("thread", ({ path }) =>
        project(path).pipe(Effect.flatMap((projectId) => threads.getDashboard(projectId, path.thread_id)))
      )
      .handle("messages", ({ path, urlParams }) =>
        project(path).pipe(
          Effect.flatMap((projectId) => messages.listProject(projectId, path.thread_id, urlParams)),
          Effect.map(messagePage)
        )
      )
      .handle("runs", ({ path, urlParams }) =>
        project(path).pipe(
          Effect.flatMap((projectId) => runs.listJson(projectId, urlParams)),
          Effect.map(runsReply)
        )
      )
      .handle("run", ({ path }) => project(path).pipe(Effect.flatMap((projectId) => runs.get(projectId, path.run_id))))
      .handle("scores", ({ path, urlParams }) =>
        project(path).pipe(
          Effect.flatMap((projectId) => scores.list(projectId, urlParams)),
          Effect.map((list) => ({ scores: list }))
        )
      )
      .handle("scoreSummary", ({ path, urlParams }) =>
        project(path).pipe(Effect.flatMap((projectId) => scores.summary(projectId, urlParams)))
      )
      .handle("traces", ({ path, urlParams }) =>
        project(path).pipe(
          Effect.flatMap((projectId) => traces.listJson(projectId, urlParams)),
          Effect.map(tracesReply)
        )
      )
      .handle("trace", ({ path }) =>
        project(path).pipe(
          Effect.flatMap((projectId) => traces.getJson(projectId, path.trace_id)),
          Effect.map(traceReply)
        )
      )
  })
)
