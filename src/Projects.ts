import * as Effect from "effect/Effect"
import { notFound } from "../schema/Errors.js"
import { ApiKeys } from "./auth/ApiKeys.js"
import { newId } from "./Ids.js"
import { ProjectsRepo } from "./storage/ProjectsRepo.js"
import { SdkClientsRepo } from "./storage/SdkClientsRepo.js"

export class Projects extends Effect.Service<Projects>()("svc/Projects", {
  dependencies: [ProjectsRepo.Default, ApiKeys.Default, SdkClientsRepo.Default],
  effect: Effect.gen(function* () {
    const repo = yield* ProjectsRepo
    const keys = yield* ApiKeys
    const sdkClients = yield* SdkClientsRepo

    /** A new project and its first API key (which never expires). */
    const create = Effect.fn("Projects.create")(function* (name: string) {
      const projectId = newId("proj")
      yield* repo.insert(projectId, name)
      const { apiKey } = yield* keys.create(projectId, { name: "first key" })
      return { project_id: projectId, api_key: apiKey }
    })

    const list = Effect.fn("Projects.list")(function* () {
      return yield* repo.list
    })

    const require = Effect.fn("Projects.require")(function* (projectId: string) {
      const project = yield* repo.get(projectId)
      if (!project) return yield* Effect.fail(notFound("project"))
      return project
    })

    /** On an empty store: a project named `default`, whose id and key are answered once. */
    const bootstrap = Effect.fn("Projects.bootstrap")(function* () {
      if ((yield* repo.count) > 0) return undefined
      return yield* create("default")
    })

    const sdkClientList = Effect.fn("Projects.sdkClients")(function* (projectId: string) {
      yield* require(projectId)
      return yield* sdkClients.list(projectId)
    })

    return { create, list, require, bootstrap, sdkClientList } as const
  })
}) {}
