import * as Layer from "effect/Layer"
import { EvaluatorJob } from "../src/evaluators/EvaluatorJob.js"
import { EvaluatorModelLive } from "../src/evaluators/EvaluatorModel.js"
import { Evaluators } from "../src/evaluators/Evaluators.js"

/** The evaluators' settings (admin API and CLI), with the model chosen by configuration. */
export const EvaluatorsLive = Evaluators.Default.pipe(Layer.provide(EvaluatorModelLive))

/** The evaluators job (app/Jobs.ts lists it). */
export const EvaluatorJobLive = EvaluatorJob.Default.pipe(Layer.provide(EvaluatorModelLive))
