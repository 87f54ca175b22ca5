import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as OpenApi from "@effect/platform/OpenApi"
import { InvalidRequest, NotFound } from "../Errors.js"
import { SearchQuery, SearchResults } from "../Search.js"
import {
  CreateThread,
  Thread,
  ThreadCreated,
  ThreadExisting,
  ThreadList,
  ThreadListQuery,
  ThreadPath,
  UpdateThread
} from "../Thread.js"
import { Authenticated } from "./Security.js"

export class ThreadsGroup extends HttpApiGroup.make("threads")
  .add(
    HttpApiEndpoint.get("list", "/threads")
      .setUrlParams(ThreadListQuery)
      .addSuccess(ThreadList)
      .annotateContext(
        OpenApi.annotations({
          summary: "List threads",
          description:
            "The caller's workspace's threads, most recent `last_message_at` first. Page with `after` (the last thread id of the previous page)."
        })
      )
  )
  .add(
    HttpApiEndpoint.get("search", "/threads/search")
      .setUrlParams(SearchQuery)
      .addSuccess(SearchResults)
      .addError(InvalidRequest)
      .annotateContext(
        OpenApi.annotations({
          summary: "Search threads",
          description:
            "Full-text search over the caller's workspace's thread titles and message text (svc/v0 and ai-sdk/v6 text parts), best match first, each with the best matching message and a highlighted snippet. Syntax: words, \"quoted phrases\", -word, OR. Page with `offset` (the previous page's `next_offset`)."
        })
      )
  )
  .add(
    HttpApiEndpoint.get("get", "/threads/:thread_id")
      .setPath(ThreadPath)
      .addSuccess(Thread)
      .addError(NotFound)
      .annotateContext(
        OpenApi.annotations({ summary: "Get a thread", description: "One thread of the caller's workspace." })
      )
  )
  .add(
    HttpApiEndpoint.post("create", "/threads")
      .setPayload(CreateThread)
      .addSuccess(ThreadCreated, { status: 201 })
      .addSuccess(ThreadExisting, { status: 200 })
      .addError(InvalidRequest)
      .annotateContext(
        OpenApi.annotations({
          summary: "Create a thread",
          description:
            "A new thread in the caller's workspace (201). With `upsert: true` and an `external_id`, the workspace's thread with that external_id when there is one (200, nothing written), so a client can create-or-get by its own id."
        })
      )
  )
  .add(
    HttpApiEndpoint.put("update", "/threads/:thread_id")
      .setPath(ThreadPath)
      .setPayload(UpdateThread)
      .addSuccess(HttpApiSchema.NoContent)
      .addError(NotFound)
      .annotateContext(
        OpenApi.annotations({
          summary: "Update a thread",
          description: "Sets the fields given (title, last_message_at, metadata, is_archived); the others are kept."
        })
      )
  )
  .add(
    HttpApiEndpoint.del("delete", "/threads/:thread_id")
      .setPath(ThreadPath)
      .addSuccess(HttpApiSchema.NoContent)
      .addError(NotFound)
      .annotateContext(
        OpenApi.annotations({ summary: "Delete a thread", description: "Deletes the thread and its messages." })
      )
  )
  .middleware(Authenticated)
  .annotate(OpenApi.Description, "Conversation threads of the caller's workspace") {}
