/**
 * Scores (docs/api-and-auth.md "Run reports, scores and events", docs/decisions.md "Scores"): a rating of a
 * thread, message or run.
 */
import * as Schema from "effect/Schema"
import { Id, PageLimit, Timestamp } from "./Common.js"
import { ExampleIds } from "./Examples.js"
import { Limits } from "./Limits.js"
import { StorableString } from "./Text.js"

export const ScoreDataType = Schema.Literal("numeric", "categorical", "boolean")

/** Where a score came from: `api` (POST /v1/scores) or `evaluator` (written by an evaluator). */
export const ScoreSource = Schema.Literal("api", "evaluator")

export const CreateScore = Schema.Struct({
  name: StorableString.pipe(Schema.minLength(1), Schema.maxLength(Limits.score.nameMaxLength)),
  data_type: ScoreDataType,
  value: Schema.optional(Schema.Union(Schema.Finite, Schema.Boolean)),
  string_value: Schema.optional(StorableString.pipe(Schema.maxLength(Limits.score.stringValueMaxLength))),
  comment: Schema.optional(StorableString.pipe(Schema.maxLength(Limits.score.commentMaxLength))),
  thread_id: Schema.optional(Id),
  message_id: Schema.optional(Id),
  run_id: Schema.optional(Id)
}).annotations({
  identifier: "CreateScore",
  parseOptions: { onExcessProperty: "error" },
  examples: [{ name: "helpfulness", data_type: "numeric", value: 4, thread_id: ExampleIds.thread }]
})
export type CreateScore = typeof CreateScore.Type

/** The answer to POST /v1/scores. */
export class ScoreCreated extends Schema.Class<ScoreCreated>("ScoreCreated")({
  score_id: Id,
  name: Schema.String,
  data_type: ScoreDataType,
  value: Schema.NullOr(Schema.Number),
  string_value: Schema.NullOr(Schema.String)
}) {}

/** A score as the project API lists it. */
export class Score extends Schema.Class<Score>("Score")({
  id: Id,
  name: Schema.String,
  data_type: ScoreDataType,
  value: Schema.NullOr(Schema.Number),
  string_value: Schema.NullOr(Schema.String),
  comment: Schema.NullOr(Schema.String),
  thread_id: Schema.NullOr(Schema.String),
  message_id: Schema.NullOr(Schema.String),
  run_id: Schema.NullOr(Schema.String),
  workspace_id: Schema.String,
  user_id: Schema.String,
  created_at: Timestamp
}) {}

export const ScoreListQuery = Schema.Struct({
  limit: PageLimit(Limits.score.listDefault, Limits.score.listMax),
  after: Schema.optional(Id),
  name: Schema.optional(StorableString),
  thread_id: Schema.optional(StorableString),
  message_id: Schema.optional(StorableString),
  run_id: Schema.optional(StorableString),
  data_type: Schema.optional(ScoreDataType),
  source: Schema.optional(ScoreSource)
})
export type ScoreListQuery = typeof ScoreListQuery.Type

export const ScoreList = Schema.Struct({ scores: Schema.Array(Score) })
