/**
 * The request headers of the identity an API-key caller acts as, and of the
 * client library (docs/api-and-auth.md "Authentication and tenancy"). Declared here once: the gateway's
 * authentication reads them by these names and limits, the OpenAPI document
 * lists them on every endpoint that takes them, and the client library sends
 * them.
 */
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as AST from "effect/SchemaAST"
import { Limits } from "../Limits.js"

export const IdentityHeaderNames = {
  user: "svc-user-id",
  workspace: "svc-workspace-id",
  sdk: "svc-sdk"
} as const

/** How each header is named in messages (as docs/api-and-auth.md "Authentication and tenancy" spells them). */
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

const headerValues = {
  [IdentityHeaderNames.user]: IdentityValue.annotations({
    description:
      "With an API key (required then): the user the call acts for. Ids starting anon_ are anonymous users' and refused.",
    examples: ["user_42"]
  }),
  [IdentityHeaderNames.workspace]: IdentityValue.annotations({
    description: "With an API key (required then): the workspace the call acts in. Ids starting anon_ are refused.",
    examples: ["workspace_7"]
  }),
  [IdentityHeaderNames.sdk]: Schema.String.annotations({
    description: `svc-client/<version> then registered name/version tokens, space-separated; at most ${Limits.sdkHeader.maxTokens} tokens`,
    examples: ["svc-client/0.1.0 my-app/1.4.0"]
  })
}

export const IdentityHeaders = Schema.Struct({
  [IdentityHeaderNames.user]: Schema.optional(headerValues[IdentityHeaderNames.user]),
  [IdentityHeaderNames.workspace]: Schema.optional(headerValues[IdentityHeaderNames.workspace]),
  [IdentityHeaderNames.sdk]: Schema.optional(headerValues[IdentityHeaderNames.sdk])
})

export type IdentityHeaderName = (typeof IdentityHeaderNames)[keyof typeof IdentityHeaderNames]

/** Each header's JSON Schema, as the wire reads it (IdentityValue's encoded side says nothing of its bounds). */
const headerSchemas: Record<IdentityHeaderName, Record<string, unknown>> = {
  [IdentityHeaderNames.user]: { type: "string", minLength: 1, maxLength: Limits.identityHeaderMaxLength },
  [IdentityHeaderNames.workspace]: { type: "string", minLength: 1, maxLength: Limits.identityHeaderMaxLength },
  [IdentityHeaderNames.sdk]: { type: "string" }
}

const described = (name: IdentityHeaderName): { description?: string; examples?: ReadonlyArray<unknown> } => {
  const ast = headerValues[name].ast
  return {
    ...Option.match(AST.getDescriptionAnnotation(ast), {
      onNone: () => ({}),
      onSome: (description) => ({ description })
    }),
    ...Option.match(AST.getExamplesAnnotation(ast), { onNone: () => ({}), onSome: (examples) => ({ examples }) })
  }
}

/**
 * The identity headers as OpenAPI header parameters, each with its schema,
 * description and example: `required` lists those the caller must send
 * (the user and workspace with an API key).
 */
export const identityHeaderParameters = (
  names: ReadonlyArray<IdentityHeaderName>,
  required: ReadonlyArray<IdentityHeaderName> = []
): Array<Record<string, unknown>> =>
  names.map((name) => {
    const { description, examples } = described(name)
    return {
      name: IdentityHeaderLabels[name],
      in: "header",
      required: required.includes(name),
      schema: { ...headerSchemas[name], ...(examples === undefined ? {} : { examples }) },
      ...(description === undefined ? {} : { description }),
      ...(examples?.[0] === undefined ? {} : { example: examples[0] })
    }
  })
