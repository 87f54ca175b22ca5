/**
 * The finishing pass of the OpenAPI document (an `OpenApi.Transform` on the
 * Api): what @effect/platform's generator does not know of the gateway, read
 * from the same endpoint declarations the gateway routes by.
 *
 * - Four named security schemes (`apiKey`, `frontendJwt`, `adminToken`,
 *   `dashboardSession`) instead of one `bearer`, and each operation's own.
 * - The frontend routes: every endpoint served on a project's frontend base
 *   URL (`ServedOn` frontend or both) is listed again under
 *   `/p/{project_id}/v1/...`, with the JWT scheme; frontend-only endpoints are
 *   listed there only. Plain paths rather than a server variable: generators
 *   and docs pages handle a path parameter everywhere, while per-operation
 *   servers are widely ignored, and the two hosts differ in credentials and
 *   headers, which a server variable cannot say.
 * - The identity headers where the gateway reads them (user and workspace,
 *   required, with an API key on the backend host; `Svc-Sdk` on every
 *   authenticated route), `servers`, the statuses the gateway middleware
 *   answers before a handler runs (403 for an origin not allowed on a
 *   frontend URL, 415, `Retry-After` on 429), and examples lifted from the
 *   schemas onto parameters and request bodies, where docs pages and
 *   generators look for them.
 */
import * as HttpApi from "@effect/platform/HttpApi"
import type * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import type * as HttpApiMiddleware from "@effect/platform/HttpApiMiddleware"
import * as Context from "effect/Context"
import { TRACES_PATH } from "../Trace.js"
import { DashboardSession, SESSION_COOKIE } from "./Dashboard.js"
import { type IdentityHeaderName, IdentityHeaderNames, identityHeaderParameters } from "./Identity.js"
import { type Host, ServedOn } from "./RouteRules.js"
import { AdminAuth, Authenticated, ProjectApiKey } from "./Security.js"

type Json = Record<string, unknown>

const SCHEMA_REF = "#/components/schemas/"

/** Which credential an endpoint takes: its security middleware. */
type Credential = "user" | "project" | "admin" | "dashboard" | "none"

export const SecuritySchemes = {
  apiKey: {
    type: "http",
    scheme: "bearer",
    bearerFormat: "API key (sk_...)",
    description:
      "A project API key, on the backend host (`/v1/...`). Calls acting for a user also send Svc-User-Id and Svc-Workspace-Id."
  },
  frontendJwt: {
    type: "http",
    scheme: "bearer",
    bearerFormat: "JWT",
    description:
      "A JWT for the project of the frontend base URL (`/p/{project_id}/v1/...`): a service-issued token (POST /v1/auth/tokens), an anonymous session's access token (POST /p/{project_id}/v1/auth/tokens/anonymous), or a token of the project's own identity provider. The user and workspace come from the token."
  },
  adminToken: {
    type: "http",
    scheme: "bearer",
    description:
      "The operator's ADMIN_TOKEN, on the backend host. Without ADMIN_TOKEN set, every admin route answers 404."
  },
  dashboardSession: {
    type: "apiKey",
    in: "cookie",
    name: SESSION_COOKIE,
    description:
      "The dashboard's session cookie, set by POST /v1/dashboard/session (the admin token or a project API key). The dashboard's routes take it and nothing else."
  }
} as const

/** The description of each error status, whichever error bodies it carries. */
const STATUS_TEXT: Record<string, string> = {
  "400": "The request is invalid: `issues` names each problem (`{ path, message }`).",
  "401": "Missing, invalid, expired or revoked credentials.",
  "403":
    "Not allowed: on a frontend URL, an Origin the project does not allow; or a rule of the route (see its description).",
  "404": "Not found: an id that does not exist for the caller, or a route not served on this host.",
  "409": "Conflict with the current state (see the route's description).",
  "413": "The body is larger than the route's cap.",
  "415": "The request body is not declared as JSON (Content-Type application/json).",
  "429": "Rate limit (rate_limited, with Retry-After) or monthly quota (quota_exceeded) exceeded.",
  "500": "Internal error (nothing of it is in the body).",
  "502": "An upstream service (the title model, the blob store) failed.",
  "503":
    "Unavailable for now (unavailable, with Retry-After): the store cannot be reached, or this gateway is shutting down."
}

const retryAfter = (description: string) => ({
  "Retry-After": { description, schema: { type: "integer", minimum: 0 } }
})
const RETRY_AFTER = retryAfter("Seconds until the rate limit lets the request through.")
const RETRY_AFTER_UNAVAILABLE = retryAfter("Seconds after which to try again (here or on another instance).")

const PROJECT_ID_PARAMETER = {
  name: "project_id",
  in: "path",
  required: true,
  description: "Your project's id: the frontend base URL is {origin}/p/{project_id}.",
  schema: { type: "string", minLength: 1, maxLength: 48 },
  example: "proj_01M80KEP26YA9DZXRJENQJN9YP"
}

interface Route {
  readonly path: string
  readonly method: string
  readonly host: Host
  readonly credential: Credential
}

const credentialOf = (middleware: ReadonlySet<HttpApiMiddleware.TagClassAny>): Credential => {
  const keys = new Set([...middleware].map((tag) => tag.key))
  if (keys.has(Authenticated.key)) return "user"
  if (keys.has(ProjectApiKey.key)) return "project"
  if (keys.has(AdminAuth.key)) return "admin"
  if (keys.has(DashboardSession.key)) return "dashboard"
  return "none"
}

const routesOf = <Id extends string, Groups extends HttpApiGroup.HttpApiGroup.Any, E, R>(
  api: HttpApi.HttpApi<Id, Groups, E, R>
): ReadonlyArray<Route> => {
  const routes: Array<Route> = []
  HttpApi.reflect(api, {
    onGroup: () => {},
    onEndpoint: ({ endpoint, mergedAnnotations, middleware }) => {
      routes.push({
        path: endpoint.path.replace(/:(\w+)\??/g, "{$1}"),
        method: endpoint.method.toLowerCase(),
        host: Context.getOrElse(mergedAnnotations, ServedOn, () => "both" as const),
        credential: credentialOf(middleware)
      })
    }
  })
  return routes
}

const isRecord = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value)

/** A schema, its `$ref` followed into the components. */
const resolved = (spec: Json, schema: unknown): Json => {
  if (!isRecord(schema)) return {}
  const ref = schema.$ref
  if (typeof ref !== "string" || !ref.startsWith("#/components/schemas/")) return schema
  const components = isRecord(spec.components) && isRecord(spec.components.schemas) ? spec.components.schemas : {}
  return resolved(spec, components[ref.slice("#/components/schemas/".length)])
}

/**
 * A schema's first example; for an object without one, the object of its
 * properties' examples when every required property has one; for a union,
 * its first member's.
 */
const firstExample = (spec: Json, schema: unknown): { readonly value: unknown } | undefined => {
  const target = resolved(spec, schema)
  const examples = target.examples
  if (Array.isArray(examples) && examples.length > 0) return { value: examples[0] }
  // A union (the platform lists a payload union's members, without the union's own annotations): its first example.
  if (Array.isArray(target.anyOf)) {
    for (const member of target.anyOf) {
      const example = firstExample(spec, member)
      if (example !== undefined) return example
    }
    return undefined
  }
  if (!isRecord(target.properties)) return undefined
  const value: Json = {}
  for (const [name, property] of Object.entries(target.properties)) {
    const example = firstExample(spec, property)
    if (example !== undefined) value[name] = example.value
  }
  const required = Array.isArray(target.required) ? target.required.map(String) : []
  return Object.keys(value).length > 0 && required.every((name) => name in value) ? { value } : undefined
}

/** A parameter with `example` from its schema's first example (or default), which docs pages use. */
const withParameterExample = (spec: Json, parameter: Json): Json => {
  if ("example" in parameter) return parameter
  const example = firstExample(spec, parameter.schema)
  if (example !== undefined) return { ...parameter, example: example.value }
  const fallback = resolved(spec, parameter.schema).default
  return fallback === undefined ? parameter : { ...parameter, example: fallback }
}

const withBodyExample = (spec: Json, requestBody: unknown): unknown => {
  if (!isRecord(requestBody) || !isRecord(requestBody.content)) return requestBody
  const content: Json = {}
  for (const [type, media] of Object.entries(requestBody.content)) {
    const example = isRecord(media) ? firstExample(spec, media.schema) : undefined
    content[type] = example === undefined || !isRecord(media) ? media : { ...media, example: example.value }
  }
  return { ...requestBody, content }
}

const errorBody = (name: string) => ({
  content: { "application/json": { schema: { $ref: `#/components/schemas/${name}` } } }
})

/**
 * The responses with every error status described, and 429 with
 * Retry-After. On a frontend URL any route may answer 403 (an Origin the
 * project does not allow, before the route runs).
 */
const withStatuses = (responses: unknown, extra: { readonly forbidden: boolean }): Json => {
  const out: Json = {}
  const source = isRecord(responses) ? responses : {}
  const entries = Object.entries(source)
  if (extra.forbidden && !("403" in source)) entries.push(["403", errorBody("Forbidden")])
  for (const [status, response] of entries.sort(([a], [b]) => a.localeCompare(b))) {
    // The gateway answers the platform's own decode failures as invalid_request (protocols/rest/Gateway.ts).
    const base = status === "400" ? errorBody("InvalidRequest") : isRecord(response) ? response : {}
    const text = STATUS_TEXT[status]
    out[status] = {
      ...base,
      ...(text === undefined || Number(status) < 400 ? {} : { description: text }),
      // rate_limited carries Retry-After; quota_exceeded (a monthly quota) does not.
      ...(status === "429" && JSON.stringify(base).includes(`${SCHEMA_REF}RateLimited"`)
        ? { headers: RETRY_AFTER }
        : {}),
      ...(status === "503" ? { headers: RETRY_AFTER_UNAVAILABLE } : {})
    }
  }
  return out
}

const identityFor = (credential: Credential, frontend: boolean): Array<Json> => {
  const sdk: ReadonlyArray<IdentityHeaderName> = [IdentityHeaderNames.sdk]
  if (credential === "user" && !frontend) {
    const acting: ReadonlyArray<IdentityHeaderName> = [IdentityHeaderNames.user, IdentityHeaderNames.workspace]
    return identityHeaderParameters([...acting, ...sdk], acting)
  }
  if (credential === "user" || credential === "project") return identityHeaderParameters(sdk)
  return []
}

const securityFor = (credential: Credential, frontend: boolean): Array<Json> => {
  switch (credential) {
    case "user":
      return [frontend ? { frontendJwt: [] } : { apiKey: [] }]
    case "project":
      return [{ apiKey: [] }]
    case "admin":
      return [{ adminToken: [] }]
    case "dashboard":
      return [{ dashboardSession: [] }]
    case "none":
      return []
  }
}

/** The operation as served on one host. */
const operationOn = (spec: Json, operation: Json, route: Route, frontend: boolean): Json => {
  const own = Array.isArray(operation.parameters) ? operation.parameters.filter(isRecord) : []
  const parameters = [...(frontend ? [PROJECT_ID_PARAMETER] : []), ...own, ...identityFor(route.credential, frontend)]
  const tags = Array.isArray(operation.tags) ? operation.tags.map(String) : []
  const moved = frontend && route.host === "both"
  return {
    ...operation,
    ...(moved ? { operationId: `frontend.${String(operation.operationId)}` } : {}),
    tags: moved ? tags.map(frontendTag) : tags,
    parameters: parameters.map((parameter) => withParameterExample(spec, parameter)),
    security: securityFor(route.credential, frontend),
    ...(operation.requestBody === undefined ? {} : { requestBody: withBodyExample(spec, operation.requestBody) }),
    responses: withStatuses(operation.responses, { forbidden: frontend })
  }
}

const frontendTag = (tag: string) => `${tag} (frontend)`

/**
 * The document without Effect's `$id: "/schemas/unknown"` markers: repeated
 * on every unknown value, they make JSON Schema validators (a linter checking
 * the examples, a generator) refuse the document for a duplicate id.
 */
const withoutSchemaIds = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(withoutSchemaIds)
  if (!isRecord(value)) return value
  const out: Json = {}
  for (const [key, inner] of Object.entries(value)) {
    if (key === "$id" && typeof inner === "string" && inner.startsWith("/schemas/")) continue
    out[key] = withoutSchemaIds(inner)
  }
  return out
}

/**
 * The component schemas the paths use, directly or through each other:
 * the platform's own decode error (and its issue) is never on the wire, the
 * gateway answers invalid_request instead.
 */
const referenced = (schemas: Json, paths: Json): Json => {
  const used = new Set<string>()
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) {
      for (const item of value) visit(item)
      return
    }
    if (!isRecord(value)) return
    for (const [key, inner] of Object.entries(value)) {
      if (key === "$ref" && typeof inner === "string" && inner.startsWith(SCHEMA_REF)) {
        const name = inner.slice(SCHEMA_REF.length).split("/")[0] ?? ""
        if (!used.has(name)) {
          used.add(name)
          visit(schemas[name])
        }
      } else visit(inner)
    }
  }
  visit(paths)
  return Object.fromEntries(Object.entries(schemas).filter(([name]) => used.has(name)))
}

/** An OTLP/JSON export of one GenAI span: the example of POST /v1/traces. */
const TRACE_EXPORT_EXAMPLE = {
  resourceSpans: [
    {
      resource: { attributes: [{ key: "service.name", value: { stringValue: "my-assistant" } }] },
      scopeSpans: [
        {
          scope: { name: "chat" },
          spans: [
            {
              traceId: "5b8efff798038103d269b633813fc60c",
              spanId: "eee19b7ec3c1b174",
              name: "chat gpt-4o-mini",
              kind: 3,
              startTimeUnixNano: "1764000000000000000",
              endTimeUnixNano: "1764000001500000000",
              attributes: [
                { key: "gen_ai.operation.name", value: { stringValue: "chat" } },
                { key: "gen_ai.provider.name", value: { stringValue: "openai" } },
                { key: "gen_ai.request.model", value: { stringValue: "gpt-4o-mini" } },
                { key: "gen_ai.usage.input_tokens", value: { intValue: "812" } },
                { key: "gen_ai.usage.output_tokens", value: { intValue: "164" } }
              ],
              status: { code: 1 }
            }
          ]
        }
      ]
    }
  ]
}

const BINARY = { schema: { type: "string", format: "binary" } }

/**
 * POST /v1/traces (protocols/otlp) is a router route beside the HttpApi:
 * described here by hand, then given the same security, headers and
 * statuses as the project API's operations.
 */
const traceExportOperation = (spec: Json): Json =>
  operationOn(
    spec,
    {
      operationId: "traces.export",
      tags: ["traces"],
      summary: "Export traces (OTLP/HTTP)",
      description:
        "OpenTelemetry trace export (OTLP/HTTP 1.x): protobuf (`application/x-protobuf`) or OTLP/JSON (`application/json`: lowerCamelCase fields, hex ids, enums as numbers), each optionally `Content-Encoding: gzip`. At most 4 MiB sent and inflated. Spans past the 500th of a trace, spans whose attributes are over 16 KiB as JSON, and spans with malformed ids or times are refused through `partialSuccess`; the rest is kept, once per trace and span id. Model-call spans (OpenTelemetry GenAI, the AI SDK, OpenInference) become runs. The answer is an ExportTraceServiceResponse in the request's encoding; errors carry a google.rpc.Status (`code`, `message`).",
      parameters: [
        {
          name: "Content-Encoding",
          in: "header",
          required: false,
          description: "gzip, or absent",
          schema: { type: "string", enum: ["gzip", "identity"] }
        }
      ],
      requestBody: {
        required: true,
        content: {
          "application/json": {
            schema: {
              type: "object",
              description: "An ExportTraceServiceRequest in OTLP/JSON.",
              properties: { resourceSpans: { type: "array", items: { type: "object" } } }
            },
            example: TRACE_EXPORT_EXAMPLE
          },
          "application/x-protobuf": BINARY
        }
      },
      responses: {
        "200": {
          description:
            "Stored. `partialSuccess` (absent when everything was kept) counts the spans refused and says why.",
          content: {
            "application/json": {
              schema: {
                type: "object",
                properties: {
                  partialSuccess: {
                    type: "object",
                    properties: { rejectedSpans: { type: "string" }, errorMessage: { type: "string" } }
                  }
                }
              }
            },
            "application/x-protobuf": BINARY
          }
        },
        "400": {},
        "401": errorBody("Unauthorized"),
        "413": errorBody("PayloadTooLarge"),
        "415": errorBody("UnsupportedMediaType"),
        "500": errorBody("Internal"),
        "503": errorBody("Unavailable")
      }
    },
    { path: TRACES_PATH, method: "post", host: "backend", credential: "project" },
    false
  )

/** The Transform: the document as the gateway serves it. */
export const completeDocument =
  <Id extends string, Groups extends HttpApiGroup.HttpApiGroup.Any, E, R>(api: HttpApi.HttpApi<Id, Groups, E, R>) =>
  (input: Record<string, unknown>): Record<string, unknown> => {
    const spec: Json = { ...input }
    const paths: Json = {}
    const source = isRecord(input.paths) ? input.paths : {}
    const frontendPaths: Json = {}
    const frontendTags = new Set<string>()
    for (const route of routesOf(api)) {
      const item = source[route.path]
      const operation = isRecord(item) ? item[route.method] : undefined
      if (!isRecord(operation)) continue
      if (route.host !== "frontend") {
        const backend = isRecord(paths[route.path]) ? (paths[route.path] as Json) : {}
        paths[route.path] = { ...backend, [route.method]: operationOn(spec, operation, route, false) }
      }
      // The project API refuses every frontend call (401): it is not listed there.
      if (route.host !== "backend" && route.credential !== "project" && route.credential !== "admin") {
        const path = `/p/{project_id}${route.path}`
        const frontend = isRecord(frontendPaths[path]) ? (frontendPaths[path] as Json) : {}
        const served = operationOn(spec, operation, route, true)
        if (route.host === "both" && Array.isArray(served.tags)) for (const tag of served.tags) frontendTags.add(tag)
        frontendPaths[path] = { ...frontend, [route.method]: served }
      }
    }
    const components = isRecord(input.components) ? input.components : {}
    const schemas = isRecord(components.schemas) ? components.schemas : {}
    const tags = Array.isArray(input.tags) ? input.tags.filter(isRecord) : []
    const document: Json = {
      ...spec,
      servers: [
        {
          url: "/",
          description:
            "This gateway: the backend host serves /v1/...; a project's frontend base URL is /p/{project_id} on the same origin."
        }
      ],
      paths: { ...paths, [TRACES_PATH]: { post: traceExportOperation(spec) }, ...frontendPaths },
      components: {
        ...components,
        schemas: referenced(schemas, { ...paths, ...frontendPaths, [TRACES_PATH]: traceExportOperation(spec) }),
        securitySchemes: SecuritySchemes
      },
      security: [],
      tags: [
        ...tags,
        {
          name: "traces",
          description:
            "OpenTelemetry trace exports (OTLP/HTTP): spans kept as sent, model calls made runs. Read them back with the project API's traces."
        },
        ...[...frontendTags].map((name) => ({
          name,
          description: `The same operations on a project's frontend base URL, /p/{project_id}/v1/..., with a JWT or an anonymous session (no identity headers: the user and workspace come from the token).`
        }))
      ]
    }
    const cleaned = withoutSchemaIds(document)
    return isRecord(cleaned) ? cleaned : document
  }
