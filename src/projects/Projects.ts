/**
 * The projects as other features see them: whether one exists, and its plan.
 * Features call this service rather than read `projects` themselves, so the
 * table has one owner (docs/architecture.md: a feature uses another
 * feature's service, never its repository).
 */
import * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import type { NotFound } from "../../schema/Errors.js"
import { orNotFound } from "../platform/Found.js"
import { fn } from "../platform/telemetry/Traced.js"
import { type ProjectRow, ProjectsRepo } from "./ProjectsRepo.js"

export class Projects extends Effect.Service<Projects>()("svc/Projects", {
  dependencies: [ProjectsRepo.Default],
  effect: Effect.gen(function* () {
    const projects = yield* ProjectsRepo
    return {
      /** The project, if there is one. */
      get: (projectId: string): Effect.Effect<Option.Option<ProjectRow>> => projects.get(projectId),
      /** Every project, by id. */
      list: projects.list,
      /** The project, or 404 `project not found`: what every per-project admin call checks first. */
      require: fn("Projects.require")(
        (projectId: string): Effect.Effect<ProjectRow, NotFound> =>
          Effect.flatMap(projects.get(projectId), orNotFound("project"))
      )
    }
  })
}) {}
