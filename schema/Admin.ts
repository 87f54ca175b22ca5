import * as Schema from "effect/Schema"
import { Id, Timestamp } from "./Common.js"
import { ExampleIds, exampleOf } from "./Examples.js"
import { Limits } from "./Limits.js"
import { StorableString } from "./Text.js"

export const CreateProject = Schema.Struct({
  name: StorableString.pipe(
    Schema.trimmed({ message: () => "name must not start or end with spaces" }),
    Schema.minLength(1, { message: () => "name must not be empty" }),
    Schema.maxLength(Limits.project.nameMaxLength)
  )
}).annotations({ examples: [{ name: "Travel assistant" }] })

export const ProjectCreated = Schema.Struct({ project_id: Id, api_key: Schema.String })

import { Plan } from "./Plan.js"

export { Plan }

export const Project = Schema.Struct({
  project_id: Id,
  name: Schema.String,
  plan: Plan,
  created_at: Timestamp
})
export const ProjectList = Schema.Struct({ projects: Schema.Array(Project) })

export const ProjectPlan = Schema.Struct({ plan: Plan }).annotations({ examples: [{ plan: "pro" }] })

/**
 * Users whose id starts with one of these are left out of usage figures
 * (docs/decisions.md "Project read API and usage").
 */
export const TestUserPrefixes = Schema.Struct({
  prefixes: Schema.Array(
    StorableString.pipe(
      Schema.minLength(1, { message: () => "a prefix must not be empty" }),
      Schema.maxLength(Limits.project.testUserPrefixMaxLength)
    )
  ).pipe(
    Schema.maxItems(Limits.project.testUserPrefixesMax, {
      message: () => `at most ${Limits.project.testUserPrefixesMax} test user prefixes`
    })
  )
}).annotations({ examples: [{ prefixes: ["test_", "qa-"] }] })

/** never (null or absent), or one of the presets of docs/api-and-auth.md "Authentication and tenancy". */
export const ExpiresInDays = Schema.NullOr(Schema.Literal(...Limits.apiKey.expiryPresetsDays))

export const CreateApiKey = Schema.Struct({
  name: Schema.optional(StorableString.pipe(Schema.maxLength(Limits.project.nameMaxLength))),
  expires_in_days: Schema.optional(ExpiresInDays)
}).annotations({ examples: [{ name: "production", expires_in_days: 90 }] })
export type CreateApiKey = typeof CreateApiKey.Type

export const ApiKeyCreated = Schema.Struct({
  key_id: Id,
  api_key: Schema.String,
  prefix: Schema.String,
  expires_at: Schema.NullOr(Timestamp)
})

export const ApiKeyInfo = Schema.Struct({
  key_id: Id,
  name: Schema.NullOr(Schema.String),
  prefix: Schema.String,
  created_at: Timestamp,
  expires_at: Schema.NullOr(Timestamp),
  revoked_at: Schema.NullOr(Timestamp)
})
export const ApiKeyList = Schema.Struct({ api_keys: Schema.Array(ApiKeyInfo) })

export const SdkClient = Schema.Struct({
  name: Schema.String,
  version: Schema.String,
  first_seen_at: Timestamp,
  last_seen_at: Timestamp
})
export const SdkClientList = Schema.Struct({ clients: Schema.Array(SdkClient) })

const ProjectId = StorableString.annotations(exampleOf(ExampleIds.project))
export const ProjectPath = Schema.Struct({ project_id: ProjectId })
export const ApiKeyPath = Schema.Struct({
  project_id: ProjectId,
  key_id: StorableString.annotations(exampleOf(ExampleIds.apiKey))
})

/** `scheme://host[:port]`, lower case, no path: what a browser sends as Origin. */
export const Origin = Schema.String.pipe(
  Schema.maxLength(Limits.origins.maxLength),
  Schema.pattern(/^https?:\/\/[a-z0-9.-]+(:\d{1,5})?$/, {
    message: () => "an origin is scheme://host[:port] in lower case, such as https://app.example.com"
  })
)

export const AllowedOrigins = Schema.Struct({
  origins: Schema.Array(Origin).pipe(Schema.maxItems(Limits.origins.maxEntries))
}).annotations({ examples: [{ origins: ["https://app.example.com"] }] })

const ClaimName = Schema.String.pipe(Schema.minLength(1), Schema.maxLength(64))

/**
 * A project's own identity provider: tokens it signs (found through
 * `jwks_url`) with this `issuer` and `audience` are accepted on the project's
 * frontend base URL, the user in `user_claim` and the workspace in
 * `workspace_claim` (null: each user is its own workspace).
 */
export const ExternalIssuer = Schema.Struct({
  issuer: StorableString.pipe(Schema.minLength(1), Schema.maxLength(Limits.origins.maxLength)),
  jwks_url: Schema.String.pipe(
    Schema.maxLength(2048),
    Schema.pattern(/^https?:\/\/\S+$/, { message: () => "jwks_url must be an http(s) URL" })
  ),
  audience: StorableString.pipe(Schema.minLength(1), Schema.maxLength(Limits.origins.maxLength)),
  user_claim: Schema.optionalWith(ClaimName, { default: () => "sub" }),
  workspace_claim: Schema.optionalWith(Schema.NullOr(ClaimName), { default: () => null })
}).annotations({
  examples: [
    {
      issuer: "https://auth.example.com/",
      jwks_url: "https://auth.example.com/.well-known/jwks.json",
      audience: "travel-assistant",
      user_claim: "sub",
      workspace_claim: "org_id"
    }
  ]
})
export type ExternalIssuer = typeof ExternalIssuer.Type
