import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as OpenApi from "@effect/platform/OpenApi"
import {
  AllowedOrigins,
  ApiKeyCreated,
  ApiKeyList,
  ApiKeyPath,
  CreateApiKey,
  CreateProject,
  ExternalIssuer,
  Project,
  ProjectCreated,
  ProjectList,
  ProjectPath,
  ProjectPlan,
  SdkClientList,
  TestUserPrefixes
} from "../Admin.js"
import { NotFound } from "../Errors.js"
import { ServedOn } from "./RouteRules.js"
import { AdminAuth } from "./Security.js"

/** The admin routes' endpoints, shared by the admin API and the dashboard (schema/Api/DashboardOperate.ts). */
export const AdminEndpoints = {
  createProject: HttpApiEndpoint.post("createProject", "/projects")
    .setPayload(CreateProject)
    .addSuccess(ProjectCreated, { status: 201 })
    .annotateContext(
      OpenApi.annotations({
        summary: "Create a project",
        description: "A new project and its first API key (shown once)."
      })
    ),
  listProjects: HttpApiEndpoint.get("listProjects", "/projects")
    .addSuccess(ProjectList)
    .annotateContext(OpenApi.annotations({ summary: "List projects", description: "Every project of this gateway." })),
  createApiKey: HttpApiEndpoint.post("createApiKey", "/projects/:project_id/api-keys")
    .setPath(ProjectPath)
    .setPayload(CreateApiKey)
    .addSuccess(ApiKeyCreated, { status: 201 })
    .addError(NotFound)
    .annotateContext(
      OpenApi.annotations({
        summary: "Create an API key",
        description: "A new API key for the project, shown once; `expires_in_days` is null (never) or 7, 30, 90 or 365."
      })
    ),
  listApiKeys: HttpApiEndpoint.get("listApiKeys", "/projects/:project_id/api-keys")
    .setPath(ProjectPath)
    .addSuccess(ApiKeyList)
    .addError(NotFound)
    .annotateContext(
      OpenApi.annotations({
        summary: "List API keys",
        description: "The project's API keys, by their visible prefix; the keys themselves are never shown again."
      })
    ),
  revokeApiKey: HttpApiEndpoint.del("revokeApiKey", "/projects/:project_id/api-keys/:key_id")
    .setPath(ApiKeyPath)
    .addSuccess(HttpApiSchema.NoContent)
    .addError(NotFound)
    .annotateContext(
      OpenApi.annotations({ summary: "Revoke an API key", description: "The key answers 401 from now on." })
    ),
  listSdkClients: HttpApiEndpoint.get("listSdkClients", "/projects/:project_id/sdk-clients")
    .setPath(ProjectPath)
    .addSuccess(SdkClientList)
    .addError(NotFound)
    .annotateContext(
      OpenApi.annotations({
        summary: "List SDK clients",
        description:
          "The client libraries (name and version from Svc-Sdk) seen calling the project in the last 180 days."
      })
    ),
  getOrigins: HttpApiEndpoint.get("getOrigins", "/projects/:project_id/origins")
    .setPath(ProjectPath)
    .addSuccess(AllowedOrigins)
    .addError(NotFound)
    .annotateContext(
      OpenApi.annotations({
        summary: "Get allowed origins",
        description: "The browser origins allowed to call the project's frontend base URL (CORS)."
      })
    ),
  setOrigins: HttpApiEndpoint.put("setOrigins", "/projects/:project_id/origins")
    .setPath(ProjectPath)
    .setPayload(AllowedOrigins)
    .addSuccess(AllowedOrigins)
    .addError(NotFound)
    .annotateContext(
      OpenApi.annotations({
        summary: "Set allowed origins",
        description: "Replaces the allowed origins: scheme://host[:port], lower case, at most 32."
      })
    ),
  getIssuer: HttpApiEndpoint.get("getIssuer", "/projects/:project_id/issuer")
    .setPath(ProjectPath)
    .addSuccess(ExternalIssuer)
    .addError(NotFound)
    .annotateContext(
      OpenApi.annotations({
        summary: "Get the external issuer",
        description:
          "The project's own identity provider, whose tokens the frontend base URL accepts (404 when none is set)."
      })
    ),
  setIssuer: HttpApiEndpoint.put("setIssuer", "/projects/:project_id/issuer")
    .setPath(ProjectPath)
    .setPayload(ExternalIssuer)
    .addSuccess(ExternalIssuer)
    .addError(NotFound)
    .annotateContext(
      OpenApi.annotations({
        summary: "Set the external issuer",
        description:
          "Trusts tokens signed by keys at `jwks_url` with this issuer and audience; the user is read from `user_claim`, the workspace from `workspace_claim`."
      })
    ),
  clearIssuer: HttpApiEndpoint.del("clearIssuer", "/projects/:project_id/issuer")
    .setPath(ProjectPath)
    .addSuccess(HttpApiSchema.NoContent)
    .addError(NotFound)
    .annotateContext(
      OpenApi.annotations({
        summary: "Remove the external issuer",
        description: "Only service-issued tokens are accepted afterwards."
      })
    ),
  setPlan: HttpApiEndpoint.put("setPlan", "/projects/:project_id/plan")
    .setPath(ProjectPath)
    .setPayload(ProjectPlan)
    .addSuccess(Project)
    .addError(NotFound)
    .annotateContext(
      OpenApi.annotations({
        summary: "Set the plan",
        description: "The project's plan, which sets its monthly title quota."
      })
    ),
  getTestUsers: HttpApiEndpoint.get("getTestUsers", "/projects/:project_id/test-users")
    .setPath(ProjectPath)
    .addSuccess(TestUserPrefixes)
    .addError(NotFound)
    .annotateContext(
      OpenApi.annotations({
        summary: "Get test user prefixes",
        description: "Users whose id starts with one of these are left out of usage figures."
      })
    ),
  setTestUsers: HttpApiEndpoint.put("setTestUsers", "/projects/:project_id/test-users")
    .setPath(ProjectPath)
    .setPayload(TestUserPrefixes)
    .addSuccess(TestUserPrefixes)
    .addError(NotFound)
    .annotateContext(
      OpenApi.annotations({
        summary: "Set test user prefixes",
        description: "Replaces the test user prefixes (at most 10)."
      })
    )
} as const

export class AdminGroup extends HttpApiGroup.make("admin")
  .add(AdminEndpoints.createProject)
  .add(AdminEndpoints.listProjects)
  .add(AdminEndpoints.createApiKey)
  .add(AdminEndpoints.listApiKeys)
  .add(AdminEndpoints.revokeApiKey)
  .add(AdminEndpoints.listSdkClients)
  .add(AdminEndpoints.getOrigins)
  .add(AdminEndpoints.setOrigins)
  .add(AdminEndpoints.getIssuer)
  .add(AdminEndpoints.setIssuer)
  .add(AdminEndpoints.clearIssuer)
  .add(AdminEndpoints.setPlan)
  .add(AdminEndpoints.getTestUsers)
  .add(AdminEndpoints.setTestUsers)
  .middleware(AdminAuth)
  .prefix("/admin")
  .annotate(
    OpenApi.Description,
    "Admin plane, on the backend host: ADMIN_TOKEN as the bearer; every route answers 404 when ADMIN_TOKEN is not set"
  )
  .annotate(ServedOn, "backend") {}
