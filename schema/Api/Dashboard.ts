import * as HttpApi from "@effect/platform/HttpApi"
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiMiddleware from "@effect/platform/HttpApiMiddleware"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as HttpApiSecurity from "@effect/platform/HttpApiSecurity"
import * as OpenApi from "@effect/platform/OpenApi"
import * as Context from "effect/Context"
import * as Schema from "effect/Schema"
import {
  DashboardProjectPath,
  DashboardRunPath,
  DashboardThreadDetail,
  DashboardThreadList,
  DashboardThreadPath,
  DashboardThreadQuery,
  DashboardTopicPath,
  DashboardTracePath,
  ScoreSummary,
  ScoreSummaryQuery,
  SessionInfo,
  SignIn
} from "../Dashboard.js"
import { Forbidden, InvalidRequest, NotFound, RateLimited, Unauthorized, Unavailable } from "../Errors.js"
import { MessageList, MessageListQuery } from "../Message.js"
import { Run, RunList, RunListQuery } from "../Run.js"
import { ScoreList, ScoreListQuery } from "../Score.js"
import { SearchQuery, SearchResults } from "../Search.js"
import { ProjectThreadList, TopicList, TopicThreadQuery } from "../Topic.js"
import { TraceDetail, TraceList, TraceListQuery } from "../Trace.js"
import { UsageDaily, UsagePeriod, UsageQuery } from "../Usage.js"
import { MaxBodyBytes, ServedOn } from "./RouteRules.js"

/** The name of the dashboard's session cookie. */
export const SESSION_COOKIE = "svc_session"
/** The header every changing dashboard call carries (with a same-origin `Origin`). */
export const CSRF_HEADER = "x-svc-dashboard"

/** A dashboard session: the admin's (every project) or a project API key's (that project only). */
export interface DashboardCallerShape {
  readonly sessionId: string
  readonly kind: "admin" | "project"
  /** The API key's project; undefined for the admin. */
  readonly projectId: string | undefined
}
export class DashboardCaller extends Context.Tag("svc/DashboardCaller")<DashboardCaller, DashboardCallerShape>() {}

/**
 * The session cookie and nothing else (never an API key or bearer token);
 * a changing call also needs the CSRF header and a same-origin `Origin` (403).
 */
export class DashboardSession extends HttpApiMiddleware.Tag<DashboardSession>()("svc/DashboardSession", {
  failure: Schema.Union(Unauthorized, Forbidden),
  provides: DashboardCaller,
  security: { session: HttpApiSecurity.apiKey({ in: "cookie", key: SESSION_COOKIE }) }
}) {}

/** A read of the page, with its OpenAPI summary and description. */
const read = <const Name extends string, const Path extends HttpApiEndpoint.PathSegment>(
  name: Name,
  path: Path,
  summary: string,
  description: string
) => HttpApiEndpoint.get(name, path).annotateContext(OpenApi.annotations({ summary, description }))

const SAME_AS = "The same answer as the project API's"

/** Sign-in: the one dashboard route without a session. */
export class DashboardSignInGroup extends HttpApiGroup.make("dashboardSignIn")
  .add(
    HttpApiEndpoint.post("signIn", "/dashboard/session")
      .setPayload(SignIn)
      .addSuccess(HttpApiSchema.NoContent)
      .addError(Unauthorized)
      .addError(Forbidden)
      .addError(RateLimited)
      .annotate(MaxBodyBytes, 4096)
      .annotateContext(
        OpenApi.annotations({
          summary: "Sign in to the dashboard",
          description:
            "Takes the admin token or a project API key and sets the HttpOnly session cookie `svc_session`. 429 past 10 attempts a minute from one client address."
        })
      )
  )
  .annotate(ServedOn, "backend")
  .annotate(OpenApi.Description, "The dashboard's session (docs/dashboard.md)") {}

/**
 * The page's reads, each a thin adapter over the project API's use cases,
 * scoped to a project the session may see (another one answers 404).
 */
export class DashboardGroup extends HttpApiGroup.make("dashboard")
  .add(
    read(
      "session",
      "/dashboard/session",
      "Who the session is",
      "The session's kind and the projects it may open."
    ).addSuccess(SessionInfo)
  )
  .add(
    HttpApiEndpoint.del("signOut", "/dashboard/session")
      .addSuccess(HttpApiSchema.NoContent)
      .annotateContext(
        OpenApi.annotations({ summary: "Sign out", description: "Ends the session at once and clears the cookie." })
      )
  )
  .add(
    read(
      "usageDaily",
      "/dashboard/projects/:project_id/usage/daily",
      "Daily usage",
      `${SAME_AS} GET /v1/projects/usage/daily.`
    )
      .setPath(DashboardProjectPath)
      .setUrlParams(UsageQuery)
      .addSuccess(UsageDaily)
  )
  .add(
    read(
      "usagePeriod",
      "/dashboard/projects/:project_id/usage/period",
      "Usage over a period",
      `${SAME_AS} GET /v1/projects/usage/period.`
    )
      .setPath(DashboardProjectPath)
      .setUrlParams(UsageQuery)
      .addSuccess(UsagePeriod)
  )
  .add(
    read("topics", "/dashboard/projects/:project_id/topics", "List topics", `${SAME_AS} GET /v1/projects/topics.`)
      .setPath(DashboardProjectPath)
      .addSuccess(TopicList)
  )
  .add(
    read(
      "topicThreads",
      "/dashboard/projects/:project_id/topics/:topic_id/threads",
      "List a topic's threads",
      `${SAME_AS} GET /v1/projects/topics/{topic_id}/threads.`
    )
      .setPath(DashboardTopicPath)
      .setUrlParams(TopicThreadQuery)
      .addSuccess(ProjectThreadList)
  )
  .add(
    read(
      "threads",
      "/dashboard/projects/:project_id/threads",
      "List threads",
      "The project's threads, most recent activity first, with their user and message count; filters by user, workspace, archive flag and last message time."
    )
      .setPath(DashboardProjectPath)
      .setUrlParams(DashboardThreadQuery)
      .addSuccess(DashboardThreadList)
  )
  .add(
    read("search", "/dashboard/projects/:project_id/search", "Search threads", `${SAME_AS} GET /v1/projects/search.`)
      .setPath(DashboardProjectPath)
      .setUrlParams(SearchQuery)
      .addSuccess(SearchResults)
  )
  .add(
    read(
      "thread",
      "/dashboard/projects/:project_id/threads/:thread_id",
      "Get a thread",
      "The thread, whatever its workspace, with every feedback given on its messages."
    )
      .setPath(DashboardThreadPath)
      .addSuccess(DashboardThreadDetail)
  )
  .add(
    read(
      "messages",
      "/dashboard/projects/:project_id/threads/:thread_id/messages",
      "List a thread's messages",
      `${SAME_AS} GET /v1/projects/threads/{thread_id}/messages.`
    )
      .setPath(DashboardThreadPath)
      .setUrlParams(MessageListQuery)
      .addSuccess(MessageList)
  )
  .add(
    read("runs", "/dashboard/projects/:project_id/runs", "List runs", `${SAME_AS} GET /v1/projects/runs.`)
      .setPath(DashboardProjectPath)
      .setUrlParams(RunListQuery)
      .addSuccess(RunList)
  )
  .add(
    read(
      "run",
      "/dashboard/projects/:project_id/runs/:run_id",
      "Get a run",
      `${SAME_AS} GET /v1/projects/runs/{run_id}.`
    )
      .setPath(DashboardRunPath)
      .addSuccess(Run)
  )
  .add(
    read("scores", "/dashboard/projects/:project_id/scores", "List scores", `${SAME_AS} GET /v1/projects/scores.`)
      .setPath(DashboardProjectPath)
      .setUrlParams(ScoreListQuery)
      .addSuccess(ScoreList)
  )
  .add(
    read(
      "scoreSummary",
      "/dashboard/projects/:project_id/scores/summary",
      "Score distributions",
      "Per score name (at most 50, most scored first) among the scores the filters select (as the score list's): its count and distribution: categories as counts, numbers as a 10-bucket histogram, booleans as true and false counts."
    )
      .setPath(DashboardProjectPath)
      .setUrlParams(ScoreSummaryQuery)
      .addSuccess(ScoreSummary)
  )
  .add(
    read("traces", "/dashboard/projects/:project_id/traces", "List traces", `${SAME_AS} GET /v1/projects/traces.`)
      .setPath(DashboardProjectPath)
      .setUrlParams(TraceListQuery)
      .addSuccess(TraceList)
  )
  .add(
    read(
      "trace",
      "/dashboard/projects/:project_id/traces/:trace_id",
      "Get a trace",
      `${SAME_AS} GET /v1/projects/traces/{trace_id}.`
    )
      .setPath(DashboardTracePath)
      .addSuccess(TraceDetail)
  )
  .addError(NotFound)
  .addError(InvalidRequest)
  .middleware(DashboardSession)
  .annotate(ServedOn, "backend")
  .annotate(
    OpenApi.Description,
    "The dashboard's reads: the session cookie only (docs/dashboard.md); another project's id answers 404"
  ) {}

/**
 * The dashboard's routes as an API of their own: what the page's client is
 * derived from (HttpApiClient), so the page bundles these schemas and no others.
 */
export class DashboardApi extends HttpApi.make("dashboard")
  .add(DashboardSignInGroup)
  .add(DashboardGroup)
  .addError(InvalidRequest)
  .addError(Unavailable)
  .prefix("/v1") {}
