import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import { InvalidRequest, NotFound } from "../Errors.js"
import { MessageList, MessageListQuery } from "../Message.js"
import { Run, RunList, RunListQuery, RunPath } from "../Run.js"
import { ScoreList, ScoreListQuery } from "../Score.js"
import { ThreadList, ThreadListQuery, ThreadPath } from "../Thread.js"
import { UsageDaily, UsagePeriod, UsageQuery } from "../Usage.js"
import { ProjectApiKey } from "./Security.js"

/** The read-only project API: the whole project, API key only, never rate limited (decisions.md §8). */
export class ProjectsGroup extends HttpApiGroup.make("projects")
  .add(
    HttpApiEndpoint.get("threads", "/projects/threads")
      .setUrlParams(ThreadListQuery)
      .addSuccess(ThreadList)
      .addError(InvalidRequest)
  )
  .add(
    HttpApiEndpoint.get("messages", "/projects/threads/:thread_id/messages")
      .setPath(ThreadPath)
      .setUrlParams(MessageListQuery)
      .addSuccess(MessageList)
      .addError(NotFound)
  )
  .add(HttpApiEndpoint.get("runs", "/projects/runs").setUrlParams(RunListQuery).addSuccess(RunList))
  .add(HttpApiEndpoint.get("run", "/projects/runs/:run_id").setPath(RunPath).addSuccess(Run).addError(NotFound))
  .add(HttpApiEndpoint.get("scores", "/projects/scores").setUrlParams(ScoreListQuery).addSuccess(ScoreList))
  .add(
    HttpApiEndpoint.get("usageDaily", "/projects/usage/daily")
      .setUrlParams(UsageQuery)
      .addSuccess(UsageDaily)
      .addError(InvalidRequest)
  )
  .add(
    HttpApiEndpoint.get("usagePeriod", "/projects/usage/period")
      .setUrlParams(UsageQuery)
      .addSuccess(UsagePeriod)
      .addError(InvalidRequest)
  )
  .middleware(ProjectApiKey)
  .annotate(OpenApi.Description, "Read-only project API: API key only, across every workspace") {}
