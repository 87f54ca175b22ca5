import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import { ProjectPath } from "../Admin.js"
import { UserErasure, UserErasureList, UserPath } from "../Erasure.js"
import { BadGateway, NotFound } from "../Errors.js"
import { ServedOn } from "./RouteRules.js"
import { AdminAuth } from "./Security.js"

/** The erasure routes' endpoints, shared by the admin API and the dashboard (schema/Api/DashboardOperate.ts). */
export const ErasureEndpoints = {
  eraseUser: HttpApiEndpoint.del("eraseUser", "/projects/:project_id/users/:user_id")
    .setPath(UserPath)
    .addSuccess(UserErasure)
    .addError(NotFound)
    .addError(BadGateway)
    .annotateContext(
      OpenApi.annotations({
        summary: "Erase one user's data",
        description:
          "Deletes every thread of the user (in any workspace of the project) with everything in it, the user's messages, feedback, runs, scores and events elsewhere, the spans of the traces of those runs, the user's refresh tokens (anonymous sessions) and workspace claims, and the attachments the erased messages name (their blobs too). Answers the counts deleted per kind; the same record goes to the project's erasure log. An id that has nothing answers zeros. 502 when the attachment store does not answer: nothing of the batch under way is lost, and erasing again finishes it."
      })
    ),
  listErasures: HttpApiEndpoint.get("listErasures", "/projects/:project_id/erasures")
    .setPath(ProjectPath)
    .addSuccess(UserErasureList)
    .addError(NotFound)
    .annotateContext(
      OpenApi.annotations({
        summary: "List erasures",
        description:
          "The project's erasure log, newest first: who asked, when, the counts; the user as the SHA-256 of its id, no content."
      })
    )
} as const

/** Erasure of one user's data (docs/decisions.md "Erasure of one user") and its audit log. */
export class ErasureGroup extends HttpApiGroup.make("erasure")
  .add(ErasureEndpoints.eraseUser)
  .add(ErasureEndpoints.listErasures)
  .middleware(AdminAuth)
  .prefix("/admin")
  .annotate(OpenApi.Description, "Admin plane: erasure of one user's data (ADMIN_TOKEN)")
  .annotate(ServedOn, "backend") {}
