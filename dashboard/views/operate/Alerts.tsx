/**
 * Alert rules (docs/settings-plane.md "Alert rules"): the project's rules
 * with their state (last value, last check, cooldown), a form to create or
 * edit one (its signing secret shown once), deleting one after a
 * confirmation, and a rule's firings with the delivery of each (?rule=<id>).
 */
import type { ComponentChildren, RefObject } from "preact"
import { useState } from "preact/hooks"
import {
  ALERT_COMPARISONS,
  ALERT_LIMITS,
  type AlertComparison,
  type AlertFiring,
  type AlertRule,
  AlertRuleInput,
  isRunMetric,
  PLAIN_METRICS
} from "../../../schema/Alerts.js"
import { EVENT_KINDS } from "../../../schema/Event.js"
import { run } from "../../api.js"
import { formatCount, formatDuration } from "../../format.js"
import { useLoad } from "../../load.js"
import { navigate, type ViewProps, withQuery } from "../../router.js"
import type { Column } from "../../table.js"
import { Badge, Dash, ErrorText, Show, Time, useTitle } from "../../ui.js"
import { operate } from "./client.js"
import { ActionResult, ConfirmDialog, SecretOnce, useAction } from "./forms.js"
import { CaptionTable, checked, counted, fieldOf, useVersion } from "./parts.js"
import { minutesText, numberOf, RowActions, useFocusFirst } from "./rule-parts.js"

const PLAIN_WORDS: Record<(typeof PLAIN_METRICS)[number], string> = {
  runs: "Runs",
  run_errors: "Run errors",
  run_error_rate: "Run error rate (0 to 1)",
  input_tokens: "Input tokens",
  output_tokens: "Output tokens",
  p95_duration_ms: "95th percentile run duration (ms)",
  negative_feedback: "Negative feedback",
  active_users: "Active users"
}

/** Every metric a rule may watch, with its name in words. */
const METRICS: ReadonlyArray<readonly [string, string]> = [
  ...PLAIN_METRICS.map((metric) => [metric, PLAIN_WORDS[metric]] as const),
  ...EVENT_KINDS.map((kind) => [`events:${kind}`, `Events: ${kind.replaceAll("_", " ")}`] as const)
]

const metricWords = (metric: string): string => METRICS.find(([value]) => value === metric)?.[1] ?? metric

const COMPARISON_WORDS: Record<AlertComparison, string> = {
  gt: "above (>)",
  gte: "at or above (≥)",
  lt: "below (<)",
  lte: "at or below (≤)"
}
const SYMBOL: Record<AlertComparison, string> = { gt: ">", gte: "≥", lt: "<", lte: "≤" }

const FILTERS = [
  ["model_id", "Model id"],
  ["tag", "Tag"],
  ["environment", "Environment"]
] as const

/** The form's values as typed. */
interface Draft {
  readonly name: string
  readonly metric: string
  readonly comparison: string
  readonly threshold: string
  readonly window: string
  readonly cooldown: string
  readonly model_id: string
  readonly tag: string
  readonly environment: string
  readonly webhook_url: string
}

const EMPTY: Draft = {
  name: "",
  metric: "run_errors",
  comparison: "gte",
  threshold: "",
  window: "15",
  cooldown: "60",
  model_id: "",
  tag: "",
  environment: "",
  webhook_url: ""
}

const draftOf = (rule: AlertRule): Draft => ({
  name: rule.name,
  metric: rule.metric,
  comparison: rule.comparison,
  threshold: String(rule.threshold),
  window: String(rule.window_minutes),
  cooldown: String(rule.cooldown_minutes),
  model_id: rule.filters.model_id ?? "",
  tag: rule.filters.tag ?? "",
  environment: rule.filters.environment ?? "",
  webhook_url: rule.webhook_url
})

/** The form's values as the API's body, or the schema's refusal in words (thrown as a CallError). */
const bodyOf = (draft: Draft): AlertRuleInput => {
  const filters = isRunMetric(draft.metric)
    ? Object.fromEntries(FILTERS.flatMap(([key]) => (draft[key].trim() === "" ? [] : [[key, draft[key].trim()]])))
    : {}
  return checked(
    AlertRuleInput,
    {
      name: draft.name.trim(),
      metric: draft.metric,
      comparison: draft.comparison,
      threshold: numberOf(draft.threshold),
      window_minutes: numberOf(draft.window),
      cooldown_minutes: numberOf(draft.cooldown),
      ...(Object.keys(filters).length > 0 ? { filters } : {}),
      webhook_url: draft.webhook_url.trim()
    },
    fieldOf
  )
}

/** When a rule may fire again: after its cooldown since it last fired. */
const cooldownEnd = (rule: AlertRule): Date | undefined =>
  rule.last_fired_at ? new Date(rule.last_fired_at.getTime() + rule.cooldown_minutes * 60_000) : undefined

/** A rule's state: in cooldown (until when), ready to fire again, not fired, or not checked yet. */
const RuleState = ({ rule }: { readonly rule: AlertRule }) => {
  const until = cooldownEnd(rule)
  const fired = rule.last_fired_at ? (
    <span class="rules-sub">
      last fired <Time at={rule.last_fired_at} />
    </span>
  ) : null
  if (until && until.getTime() > Date.now())
    return (
      <>
        <Badge tone="warn">In cooldown</Badge>
        <span class="rules-sub">
          until <Time at={until} />
        </span>
        {fired}
      </>
    )
  if (rule.last_fired_at)
    return (
      <>
        <Badge tone="good">Ready</Badge>
        {fired}
      </>
    )
  return <Badge>{rule.last_checked_at ? "Not fired" : "Not checked yet"}</Badge>
}

const filtersText = (rule: AlertRule): string =>
  FILTERS.flatMap(([key, label]) => {
    const value = rule.filters[key]
    return value ? [`${label.toLowerCase()} ${value}`] : []
  }).join(", ")

const ruleColumns = (actions: (rule: AlertRule) => ComponentChildren): ReadonlyArray<Column<AlertRule>> => [
  { title: "Name", cell: (rule) => <strong>{rule.name}</strong> },
  {
    title: "Metric",
    wrap: "wide",
    cell: (rule) => (
      <>
        {metricWords(rule.metric)}
        {filtersText(rule) ? <span class="rules-sub">only {filtersText(rule)}</span> : null}
      </>
    )
  },
  { title: "Fires when", cell: (rule) => `${SYMBOL[rule.comparison]} ${formatCount(rule.threshold)}` },
  { title: "Window", cell: (rule) => minutesText(rule.window_minutes) },
  { title: "Cooldown", cell: (rule) => minutesText(rule.cooldown_minutes) },
  {
    title: "Last value",
    num: true,
    cell: (rule) => (rule.last_value === null ? <Dash /> : formatCount(rule.last_value))
  },
  { title: "Last checked", cell: (rule) => <Time at={rule.last_checked_at} /> },
  { title: "State", wrap: "wide", cell: (rule) => <RuleState rule={rule} /> },
  { title: "Actions", cell: actions }
]

const DELIVERY_TONE = { delivered: "good", failed: "bad", pending: "warn" } as const

const Delivery = ({ firing }: { readonly firing: AlertFiring }) => {
  const delivery = firing.delivery
  if (!delivery) return <span class="muted">none</span>
  return (
    <div class="rules-delivery">
      <Badge tone={DELIVERY_TONE[delivery.status]}>{delivery.status}</Badge> {counted(delivery.attempts, "attempt")}
      {delivery.next_attempt_at ? (
        <span class="rules-sub">
          next attempt <Time at={delivery.next_attempt_at} />
        </span>
      ) : null}
      {delivery.attempt_log.length > 0 ? (
        <ol class="rules-attempts">
          {delivery.attempt_log.map((attempt, index) => (
            <li key={`${index}`}>
              <Time at={attempt.at} />: {attempt.status_code === null ? "no answer" : `HTTP ${attempt.status_code}`}
              {attempt.error ? `, ${attempt.error}` : ""}, {formatDuration(attempt.duration_ms)}
            </li>
          ))}
        </ol>
      ) : null}
    </div>
  )
}

const FIRING_COLUMNS: ReadonlyArray<Column<AlertFiring>> = [
  { title: "Fired", cell: (firing) => <Time at={firing.fired_at} /> },
  { title: "Value", num: true, cell: (firing) => formatCount(firing.value) },
  { title: "Fires when", cell: (firing) => `${SYMBOL[firing.comparison]} ${formatCount(firing.threshold)}` },
  {
    title: "Window",
    cell: (firing) => (
      <>
        {minutesText(firing.window_minutes)}
        <span class="rules-sub">
          <Time at={firing.window_start} /> to <Time at={firing.window_end} />
        </span>
      </>
    )
  },
  { title: "Delivery", wrap: "wide", cell: (firing) => <Delivery firing={firing} /> }
]

/** The firings of one rule, newest first, each with its delivery to the rule's webhook URL. */
const History = ({ projectId, rule }: { readonly projectId: string; readonly rule: AlertRule }) => {
  const loaded = useLoad(`${projectId}/${rule.rule_id}/${rule.updated_at.getTime()}`, (signal) =>
    run(operate().alertRuleHistory({ path: { project_id: projectId, rule_id: rule.rule_id } }), { signal })
  )
  return (
    <section aria-labelledby="rule-history" class="rules-history">
      <h2 id="rule-history">Firings of {rule.name}</h2>
      <p class="hint">
        The latest {ALERT_LIMITS.historyListed} firings, newest first, and the delivery of each to{" "}
        <code>{rule.webhook_url}</code>. <a href={withQuery({ rule: undefined })}>Close the history</a>
      </p>
      <Show loaded={loaded} what="the rule's firings">
        {({ history }) => (
          <CaptionTable
            caption={`Firings of ${rule.name}`}
            columns={FIRING_COLUMNS}
            rows={history}
            rowKey={(firing) => firing.firing_id}
            tableClass="rules-table"
            empty={<>{rule.name} has not fired yet.</>}
          />
        )}
      </Show>
    </section>
  )
}

const RuleForm = (props: {
  readonly draft: Draft
  readonly setDraft: (draft: Draft) => void
  readonly editing: AlertRule | undefined
  readonly busy: boolean
  readonly onSubmit: () => void
  readonly onCancel: () => void
  readonly formRef: RefObject<HTMLFormElement | null>
}) => {
  const { draft, setDraft } = props
  const set = (key: keyof Draft) => (event: Event) => {
    const target = event.currentTarget
    if (target instanceof HTMLInputElement || target instanceof HTMLSelectElement)
      setDraft({ ...draft, [key]: target.value })
  }
  const runMetric = isRunMetric(draft.metric)
  const heading = props.editing ? `Edit ${props.editing.name}` : "New rule"
  return (
    <form
      ref={props.formRef}
      class="operate-form rules-form"
      aria-labelledby="rule-form-title"
      onSubmit={(event) => {
        event.preventDefault()
        props.onSubmit()
      }}
    >
      <h2 id="rule-form-title">{heading}</h2>
      <div class="rules-fields">
        <label>
          Name
          <input value={draft.name} onInput={set("name")} maxLength={ALERT_LIMITS.nameMaxLength} required />
        </label>
        <label>
          Metric
          <select value={draft.metric} onChange={set("metric")}>
            {METRICS.map(([value, words]) => (
              <option key={value} value={value}>
                {words}
              </option>
            ))}
          </select>
        </label>
        <label>
          Fires when the value is
          <select value={draft.comparison} onChange={set("comparison")}>
            {ALERT_COMPARISONS.map((comparison) => (
              <option key={comparison} value={comparison}>
                {COMPARISON_WORDS[comparison]}
              </option>
            ))}
          </select>
        </label>
        <label>
          Threshold
          <input
            type="number"
            inputMode="decimal"
            min={0}
            step="any"
            value={draft.threshold}
            onInput={set("threshold")}
            required
          />
        </label>
        <label>
          Window (minutes)
          <input
            type="number"
            min={ALERT_LIMITS.windowMinutes.min}
            max={ALERT_LIMITS.windowMinutes.max}
            step={1}
            value={draft.window}
            onInput={set("window")}
            required
          />
        </label>
        <label>
          Cooldown (minutes)
          <input
            type="number"
            min={ALERT_LIMITS.cooldownMinutes.min}
            max={ALERT_LIMITS.cooldownMinutes.max}
            step={1}
            value={draft.cooldown}
            onInput={set("cooldown")}
            required
          />
        </label>
        <label class="rules-wide">
          Webhook URL
          <input type="url" value={draft.webhook_url} onInput={set("webhook_url")} required />
        </label>
      </div>
      <fieldset class="rules-filters" disabled={!runMetric}>
        <legend>Only runs of (optional)</legend>
        {runMetric ? null : <p class="hint">Filters apply to the run metrics only.</p>}
        <div class="rules-fields">
          {FILTERS.map(([key, label]) => (
            <label key={key}>
              {label}
              <input value={draft[key]} onInput={set(key)} maxLength={ALERT_LIMITS.filterMaxLength} />
            </label>
          ))}
        </div>
      </fieldset>
      <p class="hint">
        Checked every minute over the window; after firing, the rule waits for its cooldown before it fires again.
        Window {ALERT_LIMITS.windowMinutes.min} to {formatCount(ALERT_LIMITS.windowMinutes.max)} minutes, cooldown{" "}
        {ALERT_LIMITS.cooldownMinutes.min} to {formatCount(ALERT_LIMITS.cooldownMinutes.max)}.
      </p>
      <div class="buttons">
        <button type="submit" disabled={props.busy}>
          {props.editing ? "Save rule" : "Create rule"}
        </button>
        {props.editing ? (
          <button type="button" class="quiet" onClick={props.onCancel}>
            Cancel editing
          </button>
        ) : null}
      </div>
    </form>
  )
}

/** How many rules the plan allows, and how many the project has. */
const PlanLimit = ({ projectId, version }: { readonly projectId: string; readonly version: number }) => {
  const loaded = useLoad(`${projectId}#${version}`, (signal) =>
    run(operate().getSettings({ path: { project_id: projectId } }), { signal })
  )
  if (loaded.state === "loading") return null
  if (loaded.state === "error") return <ErrorText error={loaded.error} what="the plan's limit" />
  const { plan, alert_rules } = loaded.value
  const allowed = ALERT_LIMITS.perPlan[plan]
  return (
    <p class="hint">
      The {plan} plan allows {counted(allowed, "rule")} a project; this one has {alert_rules}.
    </p>
  )
}

export const Alerts = ({ projectId, query, sessionKind }: ViewProps) => {
  useTitle("Alerts")
  const [version, reload] = useVersion()
  const loaded = useLoad(sessionKind === "admin" ? `${projectId}#${version}` : undefined, (signal) =>
    run(operate().listAlertRules({ path: { project_id: projectId } }), { signal })
  )
  const [draft, setDraft] = useState<Draft>(EMPTY)
  const [editing, setEditing] = useState<AlertRule | undefined>(undefined)
  const [deleting, setDeleting] = useState<AlertRule | undefined>(undefined)
  const [secret, setSecret] = useState<{ readonly name: string; readonly value: string } | undefined>(undefined)
  const saving = useAction()
  const removing = useAction()
  const [formRef, focusForm] = useFocusFirst()

  if (sessionKind !== "admin") {
    return (
      <>
        <h1>Alert rules</h1>
        <p class="state">Alert rules are the operator's: sign in with the admin token to see and change them.</p>
      </>
    )
  }

  const startEdit = (rule: AlertRule) => {
    setEditing(rule)
    setDraft(draftOf(rule))
    setSecret(undefined)
    saving.clear()
    focusForm()
  }
  const stopEdit = () => {
    setEditing(undefined)
    setDraft(EMPTY)
    saving.clear()
  }
  const submit = async () => {
    setSecret(undefined)
    if (editing) {
      const rule = editing
      const saved = await saving.act(
        async () =>
          run(
            operate().updateAlertRule({
              path: { project_id: projectId, rule_id: rule.rule_id },
              payload: bodyOf(draft)
            })
          ),
        (updated) => `Saved ${updated.name}.`
      )
      if (saved) {
        setEditing(undefined)
        setDraft(EMPTY)
        reload()
      }
      return
    }
    const created = await saving.act(
      async () => run(operate().createAlertRule({ path: { project_id: projectId }, payload: bodyOf(draft) })),
      (rule) => `Created ${rule.name}.`
    )
    if (created) {
      setSecret({ name: created.name, value: created.secret })
      setDraft(EMPTY)
      reload()
    }
  }
  const confirmDelete = async () => {
    const rule = deleting
    if (!rule) return
    const done = await removing.act(
      () => run(operate().deleteAlertRule({ path: { project_id: projectId, rule_id: rule.rule_id } })).then(() => true),
      `Deleted ${rule.name}.`
    )
    setDeleting(undefined)
    if (done !== undefined) {
      if (editing?.rule_id === rule.rule_id) stopEdit()
      if (query.get("rule") === rule.rule_id) navigate(withQuery({ rule: undefined }), { replace: true })
      reload()
    }
  }

  const openId = query.get("rule") ?? undefined
  const actions = (rule: AlertRule) => (
    <RowActions
      name={rule.name}
      onEdit={() => startEdit(rule)}
      onDelete={() => {
        removing.clear()
        setDeleting(rule)
      }}
    >
      <a
        class="rules-link"
        href={withQuery({ rule: rule.rule_id })}
        aria-label={`History ${rule.name}`}
        aria-current={openId === rule.rule_id ? "true" : undefined}
      >
        History
      </a>
    </RowActions>
  )

  return (
    <>
      <h1>Alert rules</h1>
      <p class="hint">
        A rule measures one figure of the project over a sliding window every minute and, when it crosses the threshold,
        records a firing and sends <code>alert.fired</code> to its webhook URL.
      </p>
      <PlanLimit projectId={projectId} version={version} />
      <section aria-labelledby="rule-list">
        <h2 id="rule-list">Rules</h2>
        <ActionResult action={removing} />
        <Show loaded={loaded} what="alert rules">
          {({ alert_rules }) => (
            <CaptionTable
              caption="Alert rules"
              columns={ruleColumns(actions)}
              rows={alert_rules}
              rowKey={(rule) => rule.rule_id}
              tableClass="rules-table"
              empty={<>No alert rules yet: create one below.</>}
            />
          )}
        </Show>
      </section>
      {openId !== undefined && loaded.state === "ok"
        ? (() => {
            const open = loaded.value.alert_rules.find((rule) => rule.rule_id === openId)
            return open ? (
              <History projectId={projectId} rule={open} />
            ) : (
              <p class="state" role="status">
                No rule {openId} in this project. <a href={withQuery({ rule: undefined })}>Close</a>
              </p>
            )
          })()
        : null}
      <RuleForm
        draft={draft}
        setDraft={(next) => {
          setDraft(next)
          saving.clear()
        }}
        editing={editing}
        busy={saving.busy}
        onSubmit={submit}
        onCancel={stopEdit}
        formRef={formRef}
      />
      <ActionResult action={saving} />
      {secret ? (
        <SecretOnce title="Signing secret" copyLabel="Copy secret" value={secret.value}>
          The secret that signs the <code>alert.fired</code> deliveries of {secret.name}. Shown this once: keep it now,
          it cannot be read again.
        </SecretOnce>
      ) : null}
      <ConfirmDialog
        open={deleting !== undefined}
        title="Delete rule"
        confirm="Delete"
        busy={removing.busy}
        onConfirm={confirmDelete}
        onCancel={() => setDeleting(undefined)}
      >
        <p>Delete {deleting?.name}? Its firing history and its pending deliveries go too; this cannot be undone.</p>
      </ConfirmDialog>
    </>
  )
}
