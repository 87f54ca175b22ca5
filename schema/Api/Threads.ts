import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as OpenApi from "@effect/platform/OpenApi"
import { NotFound } from "../Errors.js"
import {
  CreateThread,
  Thread,
  ThreadCreated,
  ThreadList,
  ThreadListQuery,
  ThreadPath,
  UpdateThread
} from "../Thread.js"
import { withIdentityHeaderParameters } from "./Identity.js"
import { Authenticated } from "./Security.js"

export class ThreadsGroup extends HttpApiGroup.make("threads")
  .add(HttpApiEndpoint.get("list", "/threads").setUrlParams(ThreadListQuery).addSuccess(ThreadList))
  .add(HttpApiEndpoint.get("get", "/threads/:thread_id").setPath(ThreadPath).addSuccess(Thread).addError(NotFound))
  .add(HttpApiEndpoint.post("create", "/threads").setPayload(CreateThread).addSuccess(ThreadCreated, { status: 201 }))
  .add(
    HttpApiEndpoint.put("update", "/threads/:thread_id")
      .setPath(ThreadPath)
      .setPayload(UpdateThread)
      .addSuccess(HttpApiSchema.NoContent)
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.del("delete", "/threads/:thread_id")
      .setPath(ThreadPath)
      .addSuccess(HttpApiSchema.NoContent)
      .addError(NotFound)
  )
  .middleware(Authenticated)
  .annotateEndpoints(OpenApi.Transform, withIdentityHeaderParameters) {}
