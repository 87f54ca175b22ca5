import * as Layer from "effect/Layer"
import { Evaluators } from "../Evaluators.js"
import { EvaluatorJob } from "./EvaluatorJob.js"
import { EvaluatorModelLive } from "./EvaluatorModel.js"

/** The evaluators' settings (admin API and CLI), with the model chosen by configuration. */
export const EvaluatorsLive = Evaluators.Default.pipe(Layer.provide(EvaluatorModelLive))

/** The evaluators job (src/jobs/Live.ts lists it). */
export const EvaluatorJobLive = EvaluatorJob.Default.pipe(Layer.provide(EvaluatorModelLive))
