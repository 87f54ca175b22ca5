/** The project read API's usage figures (docs/decisions.md "Project read API and usage"). */
import * as Schema from "effect/Schema"
import { dayExists } from "./Common.js"
import { exampleOf } from "./Examples.js"

const DAY = /^(?!0000)\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/

/** A calendar date, YYYY-MM-DD (UTC days). */
export const CalendarDate = Schema.String.pipe(
  Schema.pattern(DAY, { message: () => "expected a date such as 2026-11-22" }),
  Schema.filter(dayExists)
).annotations({ identifier: "CalendarDate", description: "YYYY-MM-DD" })

export const UsageQuery = Schema.Struct({
  from: Schema.optional(CalendarDate.annotations(exampleOf("2026-11-01"))),
  to: Schema.optional(CalendarDate.annotations(exampleOf("2026-11-22")))
})
export type UsageQuery = typeof UsageQuery.Type

/** What is counted as it is written (per project, UTC day and user): the rollup's columns. */
export const UsageCounts = Schema.Struct({
  threads: Schema.Number,
  messages: Schema.Number,
  runs: Schema.Number,
  run_errors: Schema.Number,
  input_tokens: Schema.Number,
  output_tokens: Schema.Number,
  events: Schema.Number,
  title_generations: Schema.Number,
  /** The runs' reported cost_usd, summed (US dollars; 0 when none reported one). */
  cost_usd: Schema.Number,
  /** Scores written: posted by clients and written by the project's evaluators. */
  scores: Schema.Number
})
export type UsageCounts = typeof UsageCounts.Type
export type UsageField = keyof UsageCounts
export const USAGE_FIELDS = Object.keys(UsageCounts.fields) as ReadonlyArray<UsageField>

/** The counted fields, and the users who did any of it (distinct over the span). */
const counts = { ...UsageCounts.fields, active_users: Schema.Number }

export const UsageDay = Schema.Struct({ date: CalendarDate, ...counts })
export const UsageDaily = Schema.Struct({ days: Schema.Array(UsageDay) })
export const UsagePeriod = Schema.Struct({ from: CalendarDate, to: CalendarDate, ...counts })
