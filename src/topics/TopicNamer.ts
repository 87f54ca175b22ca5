/**
 * The model behind topics' names and the placing of threads no topic's words
 * fit (docs/decisions.md "Topics"): an OpenAI-compatible endpoint set with
 * TOPICS_MODEL_*, called as evaluators call theirs
 * (src/platform/model/BoundedModel.ts: each call within
 * TOPICS_MODEL_TIMEOUT_MS, its answer read to 256 KiB at most). Unset
 * (`None`): topics are extractive only. The prompts, the answers' checks and
 * the bounds per run are Naming.ts's; this port only asks.
 */
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"

export class TopicNamerFailed extends Data.TaggedError("TopicNamerFailed")<{ readonly reason: string }> {}

/** A question for the model: its instructions and the material. */
export interface TopicQuestion {
  readonly system: string
  readonly user: string
}

export class TopicNamer extends Context.Tag("svc/TopicNamer")<
  TopicNamer,
  {
    /** Whether a model is configured (otherwise topics are extractive only and nothing is asked). */
    readonly configured: boolean
    /** The model's answer, as it gave it. */
    readonly ask: (question: TopicQuestion) => Effect.Effect<string, TopicNamerFailed>
  }
>() {
  static readonly None = Layer.succeed(TopicNamer, {
    configured: false,
    ask: () => Effect.fail(new TopicNamerFailed({ reason: "no topics model is configured" }))
  })
}
