import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { AlertFilters } from "../../schema/Alerts.js"
import { inTransaction } from "../platform/db/SqlErrors.js"
import { fn } from "../platform/telemetry/Traced.js"
import type { AttemptEntry } from "../webhooks/Outbox.js"

/** A rule's settings as stored (the API's input, filters always an object). */
export interface AlertRuleSettings {
  readonly name: string
  readonly metric: string
  readonly comparison: "gt" | "gte" | "lt" | "lte"
  readonly threshold: number
  readonly window_minutes: number
  readonly cooldown_minutes: number
  readonly filters: AlertFilters
  readonly webhook_url: string
}

export interface AlertRuleRow extends AlertRuleSettings {
  readonly project_id: string
  readonly id: string
  readonly created_at: Date
  readonly updated_at: Date
  readonly last_checked_at: Date | null
  readonly last_value: number | null
  readonly last_fired_at: Date | null
}

/** A firing with its delivery (null when the delivery is gone). */
export interface FiringRow {
  readonly id: string
  readonly rule_id: string
  readonly metric: string
  readonly comparison: "gt" | "gte" | "lt" | "lte"
  readonly threshold: number
  readonly value: number
  readonly window_minutes: number
  readonly window_start: Date
  readonly window_end: Date
  readonly fired_at: Date
  readonly delivery: {
    readonly id: string
    readonly status: string
    readonly attempts: number
    readonly attempt_log: ReadonlyArray<AttemptEntry>
    readonly next_attempt_at: Date | null
    readonly finished_at: Date | null
  } | null
}

/** What a firing writes, besides `last_fired_at`: the rule as it was evaluated, the value, the delivery. */
export interface NewFiring {
  readonly rule: AlertRuleRow
  readonly firingId: string
  readonly value: number
  readonly windowStart: Date
  readonly at: Date
  readonly deliveryId: string
}

interface RawRule {
  readonly project_id: string
  readonly id: string
  readonly name: string
  readonly metric: string
  readonly comparison: "gt" | "gte" | "lt" | "lte"
  readonly threshold: number
  readonly window_minutes: number
  readonly cooldown_minutes: number
  readonly filters: string
  readonly webhook_url: string
  readonly created_at: Date | string
  readonly updated_at: Date | string
  readonly last_checked_at: Date | string | null
  readonly last_value: number | null
  readonly last_fired_at: Date | string | null
}

const Filters = Schema.parseJson(AlertFilters)
const RULE_COLUMNS = `project_id, id, name, metric, comparison, threshold, window_minutes, cooldown_minutes,
  filters::text AS filters, webhook_url, created_at, updated_at, last_checked_at, last_value, last_fired_at`
const dateOrNull = (value: Date | string | null) => (value === null ? null : new Date(value))

/** The `alert_rules` and `alert_history` tables (migration 0022); times are the gateway's clock. */
export class AlertsRepo extends Effect.Service<AlertsRepo>()("svc/AlertsRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const ruleColumns = sql.literal(RULE_COLUMNS)

    const toRule = (raw: RawRule) =>
      Effect.map(
        Schema.decodeUnknown(Filters)(raw.filters),
        (filters): AlertRuleRow => ({
          project_id: raw.project_id,
          id: raw.id,
          name: raw.name,
          metric: raw.metric,
          comparison: raw.comparison,
          threshold: Number(raw.threshold),
          window_minutes: Number(raw.window_minutes),
          cooldown_minutes: Number(raw.cooldown_minutes),
          filters,
          webhook_url: raw.webhook_url,
          created_at: new Date(raw.created_at),
          updated_at: new Date(raw.updated_at),
          last_checked_at: dateOrNull(raw.last_checked_at),
          last_value: raw.last_value === null ? null : Number(raw.last_value),
          last_fired_at: dateOrNull(raw.last_fired_at)
        })
      )
    const rules = Effect.flatMap(Effect.forEach(toRule))

    /** The project's plan, its row locked until the transaction ends: creates in a project go one at a time. */
    const lockProject = (projectId: string) =>
      Effect.map(sql<{ plan: string }>`SELECT plan FROM projects WHERE id = ${projectId} FOR UPDATE`, (rows) =>
        Option.map(Option.fromNullable(rows[0]), (row) => row.plan)
      )

    const count = (projectId: string) =>
      Effect.map(
        sql<{ n: number }>`SELECT count(*)::int AS n FROM alert_rules WHERE project_id = ${projectId}`,
        (rows) => Number(rows[0]?.n ?? 0)
      )

    const insert = (projectId: string, id: string, settings: AlertRuleSettings, secret: string, at: Date) =>
      sql<RawRule>`INSERT INTO alert_rules (project_id, id, name, metric, comparison, threshold, window_minutes,
          cooldown_minutes, filters, webhook_url, secret, created_at, updated_at)
        VALUES (${projectId}, ${id}, ${settings.name}, ${settings.metric}, ${settings.comparison},
          ${settings.threshold}, ${settings.window_minutes}, ${settings.cooldown_minutes},
          ${JSON.stringify(settings.filters)}::jsonb, ${settings.webhook_url}, ${secret}, ${at}, ${at})
        RETURNING ${ruleColumns}`.pipe(
        rules,
        Effect.map((rows) => Option.fromNullable(rows[0]))
      )

    /** A PUT: the settings change; the secret, the history and the cooldown stay. */
    const update = (projectId: string, id: string, settings: AlertRuleSettings, at: Date) =>
      sql<RawRule>`UPDATE alert_rules SET name = ${settings.name}, metric = ${settings.metric},
          comparison = ${settings.comparison}, threshold = ${settings.threshold},
          window_minutes = ${settings.window_minutes}, cooldown_minutes = ${settings.cooldown_minutes},
          filters = ${JSON.stringify(settings.filters)}::jsonb, webhook_url = ${settings.webhook_url},
          updated_at = ${at}
        WHERE project_id = ${projectId} AND id = ${id}
        RETURNING ${ruleColumns}`.pipe(
        rules,
        Effect.map((rows) => Option.fromNullable(rows[0]))
      )

    const list = (projectId: string) =>
      sql<RawRule>`SELECT ${ruleColumns} FROM alert_rules WHERE project_id = ${projectId} ORDER BY id`.pipe(rules)

    const exists = (projectId: string, id: string) =>
      Effect.map(
        sql`SELECT 1 FROM alert_rules WHERE project_id = ${projectId} AND id = ${id}`,
        (rows) => rows.length > 0
      )

    /** Its history and its deliveries go with it (the foreign keys cascade). */
    const remove = (projectId: string, id: string) =>
      Effect.map(
        sql`DELETE FROM alert_rules WHERE project_id = ${projectId} AND id = ${id} RETURNING id`,
        (rows) => rows.length > 0
      )

    /** The rule's newest firings, each with its delivery. */
    const history = (projectId: string, ruleId: string, limit: number) =>
      sql<
        Omit<FiringRow, "delivery"> & {
          readonly delivery_id: string | null
          readonly status: string | null
          readonly attempts: number | null
          readonly attempt_log: ReadonlyArray<AttemptEntry> | null
          readonly next_attempt_at: Date | null
          readonly finished_at: Date | null
        }
      >`SELECT h.id, h.rule_id, h.metric, h.comparison, h.threshold, h.value, h.window_minutes, h.window_start,
          h.window_end, h.fired_at, d.id AS delivery_id, d.status, d.attempts, d.attempt_log, d.next_attempt_at,
          d.finished_at
        FROM alert_history h
        LEFT JOIN webhook_deliveries d ON d.project_id = h.project_id AND d.id = h.delivery_id
        WHERE h.project_id = ${projectId} AND h.rule_id = ${ruleId}
        ORDER BY h.id DESC LIMIT ${limit}`.pipe(
        Effect.map((rows) =>
          rows.map(
            (row): FiringRow => ({
              id: row.id,
              rule_id: row.rule_id,
              metric: row.metric,
              comparison: row.comparison,
              threshold: Number(row.threshold),
              value: Number(row.value),
              window_minutes: Number(row.window_minutes),
              window_start: new Date(row.window_start),
              window_end: new Date(row.window_end),
              fired_at: new Date(row.fired_at),
              delivery:
                row.delivery_id === null
                  ? null
                  : {
                      id: row.delivery_id,
                      status: row.status ?? "pending",
                      attempts: Number(row.attempts ?? 0),
                      attempt_log: row.attempt_log ?? [],
                      next_attempt_at: dateOrNull(row.next_attempt_at),
                      finished_at: dateOrNull(row.finished_at)
                    }
            })
          )
        )
      )

    /**
     * Up to `limit` rules of every project not checked since `passStart` and
     * out of their cooldown at `at`, the least recently checked first (a pass
     * cut short by its budget leaves the others first in line next time). A
     * check dated after `at` (a clock that went back) does not hold a rule back.
     */
    const due = (passStart: Date, at: Date, limit: number) =>
      sql<RawRule>`SELECT ${ruleColumns} FROM alert_rules
        WHERE (last_checked_at IS NULL OR last_checked_at < ${passStart} OR last_checked_at > ${at})
          AND (last_fired_at IS NULL OR last_fired_at + cooldown_minutes * interval '1 minute' <= ${at})
        ORDER BY last_checked_at NULLS FIRST, project_id, id LIMIT ${limit}`.pipe(rules)

    /** Records each rule's evaluation (one statement for the batch). */
    const checked = (
      checks: ReadonlyArray<{ readonly projectId: string; readonly id: string; readonly value: number | null }>,
      at: Date
    ) =>
      checks.length === 0
        ? Effect.void
        : sql`UPDATE alert_rules r SET last_checked_at = ${at}, last_value = c.value
            FROM jsonb_to_recordset(${JSON.stringify(
              checks.map((check) => ({ project_id: check.projectId, id: check.id, value: check.value }))
            )}::jsonb) AS c(project_id text, id text, value float8)
            WHERE r.project_id = c.project_id AND r.id = c.id`.pipe(Effect.asVoid)

    /**
     * Takes the rule's firing at `at`, on the caller's connection (call it in
     * a transaction): sets `last_fired_at` only if the rule is out of its
     * cooldown (another gateway's firing, committed or not, makes this one
     * wait for it, then find nothing). Answers whether this call took it.
     */
    const claimFiring = (rule: AlertRuleRow, at: Date) =>
      sql`UPDATE alert_rules SET last_fired_at = ${at}
        WHERE project_id = ${rule.project_id} AND id = ${rule.id}
          AND (last_fired_at IS NULL OR last_fired_at + cooldown_minutes * interval '1 minute' <= ${at})
        RETURNING id`.pipe(Effect.map((rows) => rows.length > 0))

    /** The firing's history row, with the delivery the outbox wrote for it (same transaction). */
    const recordFiring = (firing: NewFiring) =>
      sql`INSERT INTO alert_history (project_id, id, rule_id, metric, comparison, threshold, value,
          window_minutes, window_start, window_end, fired_at, delivery_id)
        VALUES (${firing.rule.project_id}, ${firing.firingId}, ${firing.rule.id}, ${firing.rule.metric},
          ${firing.rule.comparison}, ${firing.rule.threshold}, ${firing.value}, ${firing.rule.window_minutes},
          ${firing.windowStart}, ${firing.at}, ${firing.at}, ${firing.deliveryId})`.pipe(Effect.asVoid)

    return {
      lockProject: fn("AlertsRepo.lockProject")(lockProject, Effect.orDie),
      count: fn("AlertsRepo.count")(count, Effect.orDie),
      insert: fn("AlertsRepo.insert")(insert, Effect.orDie),
      update: fn("AlertsRepo.update")(update, Effect.orDie),
      list: fn("AlertsRepo.list")(list, Effect.orDie),
      exists: fn("AlertsRepo.exists")(exists, Effect.orDie),
      remove: fn("AlertsRepo.remove")(remove, Effect.orDie),
      history: fn("AlertsRepo.history")(history, Effect.orDie),
      due: fn("AlertsRepo.due")(due, Effect.orDie),
      checked: fn("AlertsRepo.checked")(checked, Effect.orDie),
      claimFiring: fn("AlertsRepo.claimFiring")(claimFiring, Effect.orDie),
      recordFiring: fn("AlertsRepo.recordFiring")(recordFiring, Effect.orDie),
      /** `effect` in a transaction; the store's own failures are defects, the effect's errors stay. */
      withTransaction: inTransaction(sql)
    } as const
  })
}) {}
