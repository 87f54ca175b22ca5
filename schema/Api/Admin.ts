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

export class AdminGroup extends HttpApiGroup.make("admin")
  .add(
    HttpApiEndpoint.post("createProject", "/projects")
      .setPayload(CreateProject)
      .addSuccess(ProjectCreated, { status: 201 })
  )
  .add(HttpApiEndpoint.get("listProjects", "/projects").addSuccess(ProjectList))
  .add(
    HttpApiEndpoint.post("createApiKey", "/projects/:project_id/api-keys")
      .setPath(ProjectPath)
      .setPayload(CreateApiKey)
      .addSuccess(ApiKeyCreated, { status: 201 })
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.get("listApiKeys", "/projects/:project_id/api-keys")
      .setPath(ProjectPath)
      .addSuccess(ApiKeyList)
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.del("revokeApiKey", "/projects/:project_id/api-keys/:key_id")
      .setPath(ApiKeyPath)
      .addSuccess(HttpApiSchema.NoContent)
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.get("listSdkClients", "/projects/:project_id/sdk-clients")
      .setPath(ProjectPath)
      .addSuccess(SdkClientList)
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.get("getOrigins", "/projects/:project_id/origins")
      .setPath(ProjectPath)
      .addSuccess(AllowedOrigins)
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.put("setOrigins", "/projects/:project_id/origins")
      .setPath(ProjectPath)
      .setPayload(AllowedOrigins)
      .addSuccess(AllowedOrigins)
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.get("getIssuer", "/projects/:project_id/issuer")
      .setPath(ProjectPath)
      .addSuccess(ExternalIssuer)
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.put("setIssuer", "/projects/:project_id/issuer")
      .setPath(ProjectPath)
      .setPayload(ExternalIssuer)
      .addSuccess(ExternalIssuer)
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.del("clearIssuer", "/projects/:project_id/issuer")
      .setPath(ProjectPath)
      .addSuccess(HttpApiSchema.NoContent)
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.put("setPlan", "/projects/:project_id/plan")
      .setPath(ProjectPath)
      .setPayload(ProjectPlan)
      .addSuccess(Project)
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.get("getTestUsers", "/projects/:project_id/test-users")
      .setPath(ProjectPath)
      .addSuccess(TestUserPrefixes)
      .addError(NotFound)
  )
  .add(
    HttpApiEndpoint.put("setTestUsers", "/projects/:project_id/test-users")
      .setPath(ProjectPath)
      .setPayload(TestUserPrefixes)
      .addSuccess(TestUserPrefixes)
      .addError(NotFound)
  )
  .middleware(AdminAuth)
  .prefix("/admin")
  .annotate(OpenApi.Description, "Admin plane: requires ADMIN_TOKEN as the bearer; 404 when ADMIN_TOKEN is not set")
  .annotate(ServedOn, "backend") {}
