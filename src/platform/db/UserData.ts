/**
 * Every table that holds a user's data, listed once, beside the migrations
 * that make them: what an erasure counts its rows as (schema/Erasure.ts
 * ErasureCounts), the webhook event its rows raise (an erasure deletes the
 * deliveries whose object they are), and how retention ages it. Erasure
 * (src/erasure/) and retention (src/retention/) read their tables and
 * counts from here, so a table added here is found by the compiler
 * wherever it must be handled: an erasure's count, retention's totals.
 * docs/decisions.md "Erasure of one user" and "Jobs and retention".
 */
import { ErasureCounts } from "../../../schema/Erasure.js"

/** How retention removes a table's rows. */
export type Aging =
  /** With their thread (the foreign key cascades), or by the thread batch's own statements. */
  | { readonly by: "thread" }
  /** By their own age: `column` older than the cutoff; `only`: rows without a thread, or finished deliveries. */
  | { readonly by: "age"; readonly column: string; readonly only?: "threadless" | "finished" }
  /** Not by age: they expire (refresh tokens) or go with the erasure of their user only. */
  | { readonly by: "never" }

export interface UserDataTable {
  /** The erasure count its rows add to; null: not counted (a part of another kind's rows). */
  readonly kind: keyof ErasureCounts | null
  /** The event its rows raise, whose deliveries record the row's id as their object. */
  readonly event: string | null
  readonly retention: Aging
}

const thread = { by: "thread" } as const

/** In the order retention deletes by age (a span's resources after the spans, traces after both). */
export const USER_DATA = {
  threads: { kind: "threads", event: "thread.created", retention: thread },
  messages: { kind: "messages", event: "message.created", retention: thread },
  message_feedback: { kind: "feedback", event: "feedback.created", retention: thread },
  scores: { kind: "scores", event: "score.created", retention: thread },
  spans: { kind: "spans", event: null, retention: { by: "age", column: "stored_at" } },
  // A resource row is as old as the spans of its export (one transaction's now()).
  span_resources: { kind: null, event: null, retention: { by: "age", column: "stored_at" } },
  traces: { kind: "traces", event: null, retention: { by: "age", column: "stored_at" } },
  runs: { kind: "runs", event: "run.created", retention: { by: "age", column: "created_at", only: "threadless" } },
  events: { kind: "events", event: null, retention: { by: "age", column: "created_at", only: "threadless" } },
  // The delivery log (payloads copy content); a delivery still being tried is left to finish.
  webhook_deliveries: {
    kind: "webhook_deliveries",
    event: null,
    retention: { by: "age", column: "created_at", only: "finished" }
  },
  refresh_tokens: { kind: "refresh_tokens", event: null, retention: { by: "never" } },
  workspace_claims: { kind: "workspace_claims", event: null, retention: { by: "never" } }
} as const satisfies Record<string, UserDataTable>

export type UserDataTableName = keyof typeof USER_DATA

/** The tables retention deletes by their own age, with the column it reads. */
export type AgedTable = {
  [T in UserDataTableName]: (typeof USER_DATA)[T]["retention"] extends { readonly by: "age" } ? T : never
}[UserDataTableName]

export const AGED_TABLES = (Object.keys(USER_DATA) as Array<UserDataTableName>).filter(
  (table): table is AgedTable => USER_DATA[table].retention.by === "age"
)

/** The kinds the tables count (attachments are blobs, not rows). */
type CountedKind = NonNullable<(typeof USER_DATA)[UserDataTableName]["kind"]> | "attachments"
// Every count the wire reports is some table's (or the blobs'), and every table's kind is reported.
const everyCountHasATable: Record<Exclude<keyof ErasureCounts, CountedKind>, never> = {}
void everyCountHasATable

/** An erasure's counts, every kind at 0, in the wire's order. */
export const zeroCounts = (): { -readonly [K in keyof ErasureCounts]: number } => ({ ...ZERO })

const ZERO = Object.fromEntries(Object.keys(ErasureCounts.fields).map((kind) => [kind, 0])) as {
  readonly [K in keyof ErasureCounts]: number
}
