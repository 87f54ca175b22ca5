import * as Effect from "effect/Effect"
import type { ApiKeyCreated, ApiKeyInfo, Project, ProjectCreated } from "../../schema/Admin.js"
import { type ApiKeyRow, ApiKeys } from "../auth/ApiKeys.js"
import { orNotFound, rowNotFoundAs404 } from "../platform/Found.js"
import { newId } from "../platform/Ids.js"
import { fn } from "../platform/telemetry/Traced.js"
import { ProjectsRepo } from "./ProjectsRepo.js"
import { SdkClientsRepo } from "./SdkClientsRepo.js"

const apiKeyInfo = (row: ApiKeyRow): typeof ApiKeyInfo.Type => ({
  key_id: row.id,
  name: row.name,
  prefix: row.prefix,
  created_at: row.created_at,
  expires_at: row.expires_at,
  revoked_at: row.revoked_at
})

/** The admin plane's use cases, answered in the admin API's shapes (the CLI prints the same). */
export class ProjectAdmin extends Effect.Service<ProjectAdmin>()("svc/ProjectAdmin", {
  dependencies: [ProjectsRepo.Default, ApiKeys.Default, SdkClientsRepo.Default],
  effect: Effect.gen(function* () {
    const repo = yield* ProjectsRepo
    const keys = yield* ApiKeys
    const sdkClients = yield* SdkClientsRepo

    const insertWithKey = (name: string, given?: string) =>
      Effect.gen(function* () {
        const projectId = newId("proj")
        yield* repo.insert(projectId, name)
        const { apiKey } = yield* keys.create(projectId, { name: "first key", given })
        const created: typeof ProjectCreated.Type = { project_id: projectId, api_key: apiKey }
        return created
      })

    /** A new project and its first API key (which never expires), in one transaction. */
    const create = fn("ProjectAdmin.create")(function* (name: string) {
      return yield* repo.transaction(insertWithKey(name))
    })

    /** A project row in the admin API's shape. */
    const project = (row: { id: string; name: string; plan: typeof Project.Type.plan; created_at: Date }) => {
      const answer: typeof Project.Type = {
        project_id: row.id,
        name: row.name,
        plan: row.plan,
        created_at: row.created_at
      }
      return answer
    }

    const list = fn("ProjectAdmin.list")(function* () {
      return (yield* repo.list).map(project)
    })

    const require = fn("ProjectAdmin.require")(function* (projectId: string) {
      return yield* Effect.flatMap(repo.get(projectId), orNotFound("project"))
    })

    /**
     * On an empty store: a project named `default`, whose id and key are
     * answered once. Gateways starting together on one database make one.
     */
    /** On an empty store, the project `default` and its first key (`given`, or a new one); else undefined. */
    const bootstrap = fn("ProjectAdmin.bootstrap")(function* (given?: string) {
      return yield* repo.exclusively(
        Effect.gen(function* () {
          if ((yield* repo.count) > 0) return undefined
          return yield* insertWithKey("default", given)
        })
      )
    })

    const createKey = fn("ProjectAdmin.createKey")(function* (
      projectId: string,
      options: { readonly name?: string | undefined; readonly expiresInDays?: number | null | undefined }
    ) {
      yield* require(projectId)
      const { apiKey, row } = yield* keys.create(projectId, options)
      const created: typeof ApiKeyCreated.Type = {
        key_id: row.id,
        api_key: apiKey,
        prefix: row.prefix,
        expires_at: row.expires_at
      }
      return created
    })

    const listKeys = fn("ProjectAdmin.listKeys")(function* (projectId: string) {
      yield* require(projectId)
      return (yield* keys.list(projectId)).map(apiKeyInfo)
    })

    const sdkClientList = fn("ProjectAdmin.sdkClientList")(function* (projectId: string) {
      yield* require(projectId)
      return yield* sdkClients.list(projectId)
    })

    /** The plan sets the monthly title quota (docs/decisions.md "Titles"). */
    const setPlan = fn("ProjectAdmin.setPlan")(function* (projectId: string, plan: typeof Project.Type.plan) {
      return project(yield* rowNotFoundAs404(repo.setPlan(projectId, plan)))
    })

    const testUserPrefixes = fn("ProjectAdmin.testUserPrefixes")(function* (projectId: string) {
      return yield* Effect.flatMap(repo.testUserPrefixes(projectId), orNotFound("project"))
    })

    /** Replaces the list; duplicates are dropped, order kept. */
    const setTestUserPrefixes = fn("ProjectAdmin.setTestUserPrefixes")(function* (
      projectId: string,
      prefixes: ReadonlyArray<string>
    ) {
      return yield* rowNotFoundAs404(repo.setTestUserPrefixes(projectId, [...new Set(prefixes)]))
    })

    return {
      create,
      list,
      require,
      bootstrap,
      createKey,
      listKeys,
      revokeKey: keys.revoke,
      sdkClientList,
      setPlan,
      testUserPrefixes,
      setTestUserPrefixes
    } as const
  })
}) {}
