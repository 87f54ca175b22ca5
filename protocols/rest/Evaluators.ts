import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as Effect from "effect/Effect"
import { Api } from "../../schema/Api.js"
import { Evaluators } from "../../src/evaluators/Evaluators.js"

export const EvaluatorsLive = HttpApiBuilder.group(Api, "evaluators", (handlers) =>
  Effect.gen(function* () {
    const evaluators = yield* Evaluators
    return handlers
      .handle("createEvaluator", ({ path, payload }) => evaluators.create(path.project_id, payload))
      .handle("listEvaluators", ({ path }) =>
        Effect.map(evaluators.list(path.project_id), (list) => ({ evaluators: list }))
      )
      .handle("updateEvaluator", ({ path, payload }) => evaluators.update(path.project_id, path.evaluator_id, payload))
      .handle("deleteEvaluator", ({ path }) => evaluators.remove(path.project_id, path.evaluator_id))
  })
)
