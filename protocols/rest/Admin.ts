import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as Effect from "effect/Effect"
import { Api } from "../../schema/Api.js"
import { Projects } from "../../src/Projects.js"

export const AdminLive = HttpApiBuilder.group(Api, "admin", (handlers) =>
  Effect.gen(function* () {
    const projects = yield* Projects
    return handlers
      .handle("createProject", ({ payload }) => projects.create(payload.name))
      .handle("listProjects", () => Effect.map(projects.list(), (list) => ({ projects: list })))
      .handle("createApiKey", ({ path, payload }) =>
        projects.createKey(path.project_id, { name: payload.name, expiresInDays: payload.expires_in_days })
      )
      .handle("listApiKeys", ({ path }) =>
        Effect.map(projects.listKeys(path.project_id), (keys) => ({ api_keys: keys }))
      )
      .handle("revokeApiKey", ({ path }) => projects.revokeKey(path.project_id, path.key_id))
      .handle("listSdkClients", ({ path }) =>
        Effect.map(projects.sdkClientList(path.project_id), (clients) => ({ clients }))
      )
  })
)
