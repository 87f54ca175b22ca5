import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Effect from "effect/Effect"
import { Caller } from "../../schema/Api/Security.js"
import { Api } from "../../schema/Api.js"
import { Search } from "../../src/search/Search.js"
import { Threads } from "../../src/threads/Threads.js"
import { rawJson } from "./Messages.js"

export const ThreadsLive = HttpApiBuilder.group(Api, "threads", (handlers) =>
  Effect.gen(function* () {
    const threads = yield* Threads
    const search = yield* Search
    return handlers
      .handle("search", ({ urlParams }) =>
        Effect.flatMap(Caller, (caller) =>
          search.threadsJson({ projectId: caller.projectId, workspaceId: caller.workspaceId }, urlParams)
        ).pipe(Effect.map(rawJson))
      )
      .handle("list", ({ urlParams }) =>
        Effect.flatMap(Caller, (caller) => threads.list(caller, urlParams)).pipe(
          Effect.map((list) => ({ threads: list }))
        )
      )
      .handle("get", ({ path }) =>
        Effect.flatMap(Caller, (caller) => threads.getJson(caller, path.thread_id)).pipe(Effect.map(rawJson))
      )
      .handle("create", ({ payload }) =>
        Effect.flatMap(Caller, (caller) => threads.create(caller, payload)).pipe(
          // An upsert that found its thread: 200, the ThreadExisting answer.
          Effect.map(({ id, created }) =>
            created ? { thread_id: id } : HttpServerResponse.unsafeJson({ thread_id: id }, { status: 200 })
          )
        )
      )
      .handle("update", ({ path, payload }) =>
        Effect.flatMap(Caller, (caller) => threads.update(caller, path.thread_id, payload))
      )
      .handle("delete", ({ path }) => Effect.flatMap(Caller, (caller) => threads.remove(caller, path.thread_id)))
  })
)
