/**
 * The request headers of the identity an API-key caller acts as, and of the
 * client library (spec parts 5 and 9). Declared here once: the gateway's
 * authentication reads them by these names and limits, the OpenAPI document
 * lists them on every endpoint that takes them, and the client library sends
 * them.
 */
import * as JSONSchema from "effect/JSONSchema"
import * as Schema from "effect/Schema"
import { Limits } from "../Limits.js"

export const IdentityHeaderNames = {
  user: "svc-user-id",
  workspace: "svc-workspace-id",
  sdk: "svc-sdk"
} as const

/** How each header is named in messages (the spec's spelling). */
export const IdentityHeaderLabels = {
  [IdentityHeaderNames.user]: "Svc-User-Id",
  [IdentityHeaderNames.workspace]: "Svc-Workspace-Id",
  [IdentityHeaderNames.sdk]: "Svc-Sdk"
} as const

/** A user or workspace id as a header carries it: 1 to 255 characters once trimmed. */
export const IdentityValue = Schema.Trim.pipe(
  Schema.minLength(1),
  Schema.maxLength(Limits.identityHeaderMaxLength)
).annotations({ identifier: "IdentityValue" })

export const IdentityHeaders = Schema.Struct({
  [IdentityHeaderNames.user]: Schema.optional(
    IdentityValue.annotations({
      description:
        "With an API key (required then): the user the call acts for. Ids starting anon_ are anonymous users' and refused."
    })
  ),
  [IdentityHeaderNames.workspace]: Schema.optional(
    IdentityValue.annotations({
      description: "With an API key (required then): the workspace the call acts in. Ids starting anon_ are refused."
    })
  ),
  [IdentityHeaderNames.sdk]: Schema.optional(
    Schema.String.annotations({
      description: `svc-client/<version> then registered name/version tokens, space-separated; at most ${Limits.sdkHeader.maxTokens} tokens`
    })
  )
})

const identityHeaderParameters: ReadonlyArray<Record<string, unknown>> = (() => {
  const schema = JSONSchema.make(IdentityHeaders)
  const properties: Record<string, unknown> = "properties" in schema ? { ...schema.properties } : {}
  return Object.entries(properties).map(([name, property]) => ({
    name,
    in: "header",
    required: false,
    schema: property,
    ...(typeof property === "object" && property !== null && "description" in property
      ? { description: property.description }
      : {})
  }))
})()

/**
 * An OpenAPI transform (`OpenApi.Transform` on a group's endpoints) adding
 * the identity headers to an operation's parameters.
 */
export const withIdentityHeaderParameters = (operation: Record<string, unknown>): Record<string, unknown> => ({
  ...operation,
  parameters: [...(Array.isArray(operation.parameters) ? operation.parameters : []), ...identityHeaderParameters]
})
