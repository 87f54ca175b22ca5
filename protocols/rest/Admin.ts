import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as Effect from "effect/Effect"
import { Api } from "../../schema/Api.js"
import { type ApiKeyRow, ApiKeys } from "../../src/auth/ApiKeys.js"
import { Projects } from "../../src/Projects.js"

export const apiKeyInfo = (row: ApiKeyRow) => ({
  key_id: row.id,
  name: row.name,
  prefix: row.prefix,
  created_at: row.created_at,
  expires_at: row.expires_at,
  revoked_at: row.revoked_at
})

export const AdminLive = HttpApiBuilder.group(Api, "admin", (handlers) =>
  Effect.gen(function* () {
    const projects = yield* Projects
    const keys = yield* ApiKeys
    return handlers
      .handle("createProject", ({ payload }) => projects.create(payload.name))
      .handle("listProjects", () =>
        projects.list().pipe(
          Effect.map((rows) => ({
            projects: rows.map((row) => ({
              project_id: row.id,
              name: row.name,
              plan: row.plan,
              created_at: row.created_at
            }))
          }))
        )
      )
      .handle("createApiKey", ({ path, payload }) =>
        Effect.gen(function* () {
          yield* projects.require(path.project_id)
          const { apiKey, row } = yield* keys.create(path.project_id, {
            name: payload.name,
            expiresInDays: payload.expires_in_days
          })
          return { key_id: row.id, api_key: apiKey, prefix: row.prefix, expires_at: row.expires_at }
        })
      )
      .handle("listApiKeys", ({ path }) =>
        Effect.gen(function* () {
          yield* projects.require(path.project_id)
          const rows = yield* keys.list(path.project_id)
          return { api_keys: rows.map(apiKeyInfo) }
        })
      )
      .handle("revokeApiKey", ({ path }) => keys.revoke(path.project_id, path.key_id))
      .handle("listSdkClients", ({ path }) =>
        projects.sdkClientList(path.project_id).pipe(Effect.map((clients) => ({ clients })))
      )
  })
)
