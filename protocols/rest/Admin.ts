import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as Effect from "effect/Effect"
import { Api } from "../../schema/Api.js"
import { notFound } from "../../schema/Errors.js"
import { Issuers } from "../../src/auth/Issuers.js"
import { orNotFound } from "../../src/platform/Found.js"
import { Origins } from "../../src/projects/Origins.js"
import { ProjectAdmin } from "../../src/projects/ProjectAdmin.js"

export const AdminLive = HttpApiBuilder.group(Api, "admin", (handlers) =>
  Effect.gen(function* () {
    const projects = yield* ProjectAdmin
    const origins = yield* Origins
    const issuers = yield* Issuers
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
      .handle("getOrigins", ({ path }) => Effect.map(origins.list(path.project_id), (list) => ({ origins: list })))
      .handle("setOrigins", ({ path, payload }) =>
        Effect.map(origins.replace(path.project_id, payload.origins), (list) => ({ origins: list }))
      )
      .handle("getIssuer", ({ path }) => Effect.flatMap(issuers.get(path.project_id), orNotFound("external issuer")))
      .handle("setIssuer", ({ path, payload }) => issuers.set(path.project_id, payload))
      .handle("clearIssuer", ({ path }) =>
        Effect.flatMap(issuers.clear(path.project_id), (cleared) =>
          cleared ? Effect.void : Effect.fail(notFound("external issuer"))
        )
      )
      .handle("setPlan", ({ path, payload }) => projects.setPlan(path.project_id, payload.plan))
      .handle("getTestUsers", ({ path }) =>
        Effect.map(projects.testUserPrefixes(path.project_id), (prefixes) => ({ prefixes }))
      )
      .handle("setTestUsers", ({ path, payload }) =>
        Effect.map(projects.setTestUserPrefixes(path.project_id, payload.prefixes), (prefixes) => ({ prefixes }))
      )
      .handle("listSdkClients", ({ path }) =>
        Effect.map(projects.sdkClientList(path.project_id), (clients) => ({ clients }))
      )
  })
)
