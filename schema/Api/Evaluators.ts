import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as OpenApi from "@effect/platform/OpenApi"
import { ProjectPath } from "../Admin.js"
import { Conflict, NotFound } from "../Errors.js"
import { Evaluator, EvaluatorInput, EvaluatorList, EvaluatorPath } from "../Evaluator.js"
import { ServedOn } from "./RouteRules.js"
import { AdminAuth } from "./Security.js"

/** The evaluators routes' endpoints, shared by the admin API and the dashboard (schema/Api/DashboardOperate.ts). */
export const EvaluatorsEndpoints = {
  createEvaluator: HttpApiEndpoint.post("createEvaluator", "/projects/:project_id/evaluators")
    .setPath(ProjectPath)
    .setPayload(EvaluatorInput)
    .addSuccess(Evaluator, { status: 201 })
    .addError(NotFound)
    .addError(Conflict)
    .annotateContext(
      OpenApi.annotations({
        summary: "Create an evaluator",
        description:
          "Labels runs (by their output_text) or threads (by their last user message) created from now on with the first of its categories (1 to 10, in order) whose keywords or pattern match (kind rule), or the category a model answers (kind model, when EVALUATOR_MODEL_BASE_URL is set). The label is a categorical score named after the evaluator, its comment saying why. sampling_rate (0 to 1, default 1) picks targets by a hash of their id. At most 20 evaluators a project (409 past it); a name already used is 409. A pattern is RE2 syntax, matched case-insensitively in time linear in the text: one that RE2 cannot compile (backreferences, lookaround, JavaScript's \\u escapes) or that compiles to more than 250 RE2 instructions is 400, naming its category."
      })
    ),
  listEvaluators: HttpApiEndpoint.get("listEvaluators", "/projects/:project_id/evaluators")
    .setPath(ProjectPath)
    .addSuccess(EvaluatorList)
    .addError(NotFound)
    .annotateContext(
      OpenApi.annotations({
        summary: "List evaluators",
        description: "The project's evaluators, oldest first, each with what it has done (targets by outcome)."
      })
    ),
  updateEvaluator: HttpApiEndpoint.put("updateEvaluator", "/projects/:project_id/evaluators/:evaluator_id")
    .setPath(EvaluatorPath)
    .setPayload(EvaluatorInput)
    .addSuccess(Evaluator)
    .addError(NotFound)
    .addError(Conflict)
    .annotateContext(
      OpenApi.annotations({
        summary: "Replace an evaluator",
        description:
          "Replaces the evaluator's settings (same body and rules as create). Targets already evaluated keep their scores; a changed target (run or thread) starts from now."
      })
    ),
  deleteEvaluator: HttpApiEndpoint.del("deleteEvaluator", "/projects/:project_id/evaluators/:evaluator_id")
    .setPath(EvaluatorPath)
    .addSuccess(HttpApiSchema.NoContent)
    .addError(NotFound)
    .annotateContext(
      OpenApi.annotations({
        summary: "Delete an evaluator",
        description: "It evaluates nothing more; the scores it wrote stay."
      })
    )
} as const

/**
 * Evaluators (docs/decisions.md "Evaluators"): rules or a model that label
 * new runs or threads, as categorical scores.
 */
export class EvaluatorsGroup extends HttpApiGroup.make("evaluators")
  .add(EvaluatorsEndpoints.createEvaluator)
  .add(EvaluatorsEndpoints.listEvaluators)
  .add(EvaluatorsEndpoints.updateEvaluator)
  .add(EvaluatorsEndpoints.deleteEvaluator)
  .middleware(AdminAuth)
  .prefix("/admin")
  .annotate(OpenApi.Description, "Admin plane: evaluators (ADMIN_TOKEN)")
  .annotate(ServedOn, "backend") {}
