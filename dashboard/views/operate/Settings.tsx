/**
 * A project's settings (docs/settings-plane.md): plan, retention (and when a
 * shorter one takes effect), allowed origins, topic ceiling, test user
 * prefixes, the external issuer, and the SDK clients seen. An admin session
 * changes each with its own form (its outcome said, the values read again);
 * an API key's session reads them as text, with no form.
 */
import type { ComponentChildren } from "preact"
import { useEffect, useState } from "preact/hooks"
import { AllowedOrigins, ExternalIssuer, type Plan, ProjectPlan, TestUserPrefixes } from "../../../schema/Admin.js"
import { type ProjectSettings, SetRetention, TOPIC_CEILING, TopicCeiling } from "../../../schema/Settings.js"
import { run } from "../../api.js"
import { formatCount } from "../../format.js"
import { useLoad } from "../../load.js"
import type { ViewProps } from "../../router.js"
import { Dash, Empty, Facts, Show, TableWrap, Time, useTitle } from "../../ui.js"
import { operate } from "./client.js"
import { type Action, ActionResult, ConfirmDialog, useAction } from "./forms.js"
import { checked, refusal } from "./parts.js"
import {
  itemOf,
  linesOf,
  RETENTION_CHOICES,
  retentionChoice,
  retentionOfChoice,
  retentionWords,
  useReloadable
} from "./settings-parts.js"

type Values = typeof ProjectSettings.Type

interface FormProps {
  readonly projectId: string
  readonly values: Values
  /** Reads the values again (after a change, whatever its outcome); resolves once they are shown. */
  readonly reload: () => Promise<void>
}

const PLANS: ReadonlyArray<readonly [Plan, string]> = [
  ["hobby", "Hobby"],
  ["pro", "Pro"],
  ["startup", "Startup"],
  ["enterprise", "Enterprise"]
]
const planWords = (plan: Plan): string => PLANS.find(([id]) => id === plan)?.[1] ?? plan

/** A form's value, set again from the gateway's whenever that changes (after a save, say). */
const useDraft = (from: string): [string, (value: string) => void] => {
  const [draft, setDraft] = useState(from)
  useEffect(() => setDraft(from), [from])
  return [draft, setDraft]
}

/**
 * Runs `change` as the form's action and reads the values again, whatever
 * its outcome: the outcome is said once the values shown are the new ones.
 */
const submit =
  <A,>(action: Action, reload: () => Promise<void>, change: () => Promise<A>, said: string | ((value: A) => string)) =>
  async (event: Event) => {
    event.preventDefault()
    await action.act(async () => {
      try {
        return await change()
      } finally {
        await reload()
      }
    }, said)
  }

/**
 * One setting under its heading. Not a named region: its name would be its
 * control's (a select "Retention" under the heading "Retention").
 */
const Section = (props: { readonly id: string; readonly title: string; readonly children: ComponentChildren }) => (
  <section class="setting">
    <h2 id={props.id}>{props.title}</h2>
    {props.children}
  </section>
)

/** A list as text: one item a line, or "None". */
const ListText = ({ items }: { readonly items: ReadonlyArray<string> }) =>
  items.length === 0 ? (
    <p class="muted">None.</p>
  ) : (
    <ul class="setting-list">
      {items.map((item) => (
        <li key={item}>
          <code>{item}</code>
        </li>
      ))}
    </ul>
  )

/** What the retention is, and, while a shorter one waits, when it takes effect and what holds until then. */
const RetentionNow = ({ retention }: { readonly retention: Values["retention"] }) =>
  retention.days === retention.effective_days ? (
    <p class="retention-now">Data is kept {retentionWords(retention.days)}.</p>
  ) : (
    <p class="retention-now pending">
      Set to {retentionWords(retention.days)}, which takes effect <Time at={retention.effective_at} />; until then data
      is kept {retentionWords(retention.effective_days)}.
    </p>
  )

const PlanForm = ({ projectId, values, reload }: FormProps) => {
  const action = useAction()
  const [plan, setPlan] = useDraft(values.plan)
  const onSubmit = submit(
    action,
    reload,
    () => run(operate().setPlan({ path: { project_id: projectId }, payload: checked(ProjectPlan, { plan }) })),
    (project) => `The plan is now ${planWords(project.plan)}.`
  )
  return (
    <form class="setting-form" onSubmit={onSubmit}>
      <label>
        Plan
        <select value={plan} onChange={(event) => setPlan(event.currentTarget.value)}>
          {PLANS.map(([id, label]) => (
            <option key={id} value={id}>
              {label}
            </option>
          ))}
        </select>
      </label>
      <p class="hint">
        The plan sets the project's quotas, such as its monthly title quota and how many alert rules it may have.
      </p>
      <div class="buttons">
        <button type="submit" disabled={action.busy}>
          Save plan
        </button>
      </div>
      <ActionResult action={action} />
    </form>
  )
}

const RetentionForm = ({ projectId, values, reload }: FormProps) => {
  const action = useAction()
  const [choice, setChoice] = useDraft(retentionChoice(values.retention.days))
  const onSubmit = submit(
    action,
    reload,
    () =>
      run(
        operate().setRetention({
          path: { project_id: projectId },
          payload: checked(SetRetention, { days: retentionOfChoice(choice) })
        })
      ),
    (retention) =>
      retention.days === retention.effective_days
        ? `Retention set to ${retentionWords(retention.days)}.`
        : `Retention set to ${retentionWords(retention.days)}; it takes effect later (see above).`
  )
  return (
    <form class="setting-form" onSubmit={onSubmit}>
      <label>
        Retention
        <select value={choice} onChange={(event) => setChoice(event.currentTarget.value)}>
          {RETENTION_CHOICES.map(([id, label]) => (
            <option key={id} value={id}>
              {label}
            </option>
          ))}
        </select>
      </label>
      <div class="buttons">
        <button type="submit" disabled={action.busy}>
          Save
        </button>
      </div>
      <ActionResult action={action} />
    </form>
  )
}

/** A textarea of one item a line, saved as a list. */
const ListForm = (props: {
  readonly label: string
  readonly button: string
  readonly hint: string
  readonly items: ReadonlyArray<string>
  readonly save: (items: Array<string>) => Promise<ReadonlyArray<string>>
  readonly reload: () => Promise<void>
}) => {
  const action = useAction()
  const [text, setText] = useDraft(props.items.join("\n"))
  const hintId = `${props.label.replace(/\W+/g, "-").toLowerCase()}-hint`
  const onSubmit = submit(
    action,
    props.reload,
    () => props.save(linesOf(text)),
    (saved) =>
      saved.length === 0 ? `${props.label}: none now.` : `${props.label} saved (${formatCount(saved.length)}).`
  )
  return (
    <form class="setting-form" onSubmit={onSubmit}>
      <label>
        {props.label}
        <textarea
          rows={Math.min(8, Math.max(3, props.items.length + 1))}
          value={text}
          aria-describedby={hintId}
          spellcheck={false}
          onInput={(event) => setText(event.currentTarget.value)}
        />
      </label>
      <p class="hint" id={hintId}>
        {props.hint}
      </p>
      <div class="buttons">
        <button type="submit" disabled={action.busy}>
          {props.button}
        </button>
      </div>
      <ActionResult action={action} />
    </form>
  )
}

const TopicCeilingForm = ({ projectId, values, reload }: FormProps) => {
  const action = useAction()
  const [text, setText] = useDraft(String(values.topic_ceiling))
  const onSubmit = submit(
    action,
    reload,
    () => {
      const value = Number(text.trim())
      if (text.trim() === "" || !Number.isInteger(value)) {
        throw refusal(`The topic ceiling is a whole number from ${TOPIC_CEILING.min} to ${TOPIC_CEILING.max}.`)
      }
      return run(
        operate().setTopicCeiling({ path: { project_id: projectId }, payload: checked(TopicCeiling, { value }) })
      )
    },
    (saved) => `The topic ceiling is now ${saved.value}.`
  )
  return (
    <form class="setting-form" onSubmit={onSubmit} noValidate>
      <label>
        Topic ceiling
        <input
          type="number"
          inputMode="numeric"
          min={TOPIC_CEILING.min}
          max={TOPIC_CEILING.max}
          step={1}
          value={text}
          aria-describedby="topic-ceiling-hint"
          onInput={(event) => setText(event.currentTarget.value)}
        />
      </label>
      <p class="hint" id="topic-ceiling-hint">
        The most topics the intelligence features keep: {TOPIC_CEILING.min} to {TOPIC_CEILING.max} (
        {TOPIC_CEILING.default} by default).
      </p>
      <div class="buttons">
        <button type="submit" disabled={action.busy}>
          Save topic ceiling
        </button>
      </div>
      <ActionResult action={action} />
    </form>
  )
}

const ISSUER_FIELDS = [
  ["issuer", "Issuer"],
  ["jwks_url", "JWKS URL"],
  ["audience", "Audience"],
  ["user_claim", "User claim"],
  ["workspace_claim", "Workspace claim"]
] as const
type IssuerField = (typeof ISSUER_FIELDS)[number][0]
type IssuerDraft = Record<IssuerField, string>

const issuerDraft = (issuer: Values["issuer"]): IssuerDraft => ({
  issuer: issuer?.issuer ?? "",
  jwks_url: issuer?.jwks_url ?? "",
  audience: issuer?.audience ?? "",
  user_claim: issuer?.user_claim ?? "sub",
  workspace_claim: issuer?.workspace_claim ?? ""
})

const IssuerForm = ({ projectId, values, reload }: FormProps) => {
  const action = useAction()
  const removal = useAction()
  const [confirming, setConfirming] = useState(false)
  const saved = JSON.stringify(issuerDraft(values.issuer))
  const [draft, setDraft] = useState<IssuerDraft>(() => issuerDraft(values.issuer))
  useEffect(() => setDraft(issuerDraft(values.issuer)), [saved])
  const path = { project_id: projectId }
  const onSubmit = submit(
    action,
    reload,
    () => {
      const trimmed = (field: IssuerField) => draft[field].trim()
      const payload = checked(ExternalIssuer, {
        issuer: trimmed("issuer"),
        jwks_url: trimmed("jwks_url"),
        audience: trimmed("audience"),
        ...(trimmed("user_claim") === "" ? {} : { user_claim: trimmed("user_claim") }),
        workspace_claim: trimmed("workspace_claim") === "" ? null : trimmed("workspace_claim")
      })
      removal.clear()
      return run(operate().setIssuer({ path, payload }))
    },
    (issuer) => `Tokens from ${issuer.issuer} are accepted now.`
  )
  const remove = async () => {
    action.clear()
    setConfirming(false)
    await removal.act(async () => {
      try {
        await run(operate().clearIssuer({ path }))
      } finally {
        await reload()
      }
    }, "The issuer is removed.")
  }
  return (
    <>
      <form class="setting-form issuer-form" onSubmit={onSubmit}>
        <div class="fields">
          {ISSUER_FIELDS.map(([field, label]) => (
            <label key={field}>
              {label}
              <input
                type="text"
                value={draft[field]}
                spellcheck={false}
                onInput={(event) => {
                  const value = event.currentTarget.value
                  setDraft((now) => ({ ...now, [field]: value }))
                }}
              />
            </label>
          ))}
        </div>
        <p class="hint">
          Tokens this issuer signs (its keys found at the JWKS URL) for this audience are accepted on the project's
          frontend base URL; the user is read from the user claim, the workspace from the workspace claim (empty: each
          user is its own workspace).
        </p>
        <div class="buttons">
          <button type="submit" disabled={action.busy || removal.busy}>
            Save issuer
          </button>
          {values.issuer ? (
            <button type="button" class="quiet" onClick={() => setConfirming(true)} disabled={removal.busy}>
              Remove issuer
            </button>
          ) : null}
        </div>
        <ActionResult action={action} />
        <ActionResult action={removal} />
      </form>
      <ConfirmDialog
        open={confirming}
        title="Remove issuer"
        confirm="Remove"
        busy={removal.busy}
        onConfirm={remove}
        onCancel={() => setConfirming(false)}
      >
        <p>Only tokens the gateway issues itself will be accepted afterwards.</p>
      </ConfirmDialog>
    </>
  )
}

const IssuerText = ({ issuer }: { readonly issuer: Values["issuer"] }) =>
  issuer ? (
    <Facts
      items={[
        ["Issuer", issuer.issuer],
        ["JWKS URL", issuer.jwks_url],
        ["Audience", issuer.audience],
        ["User claim", issuer.user_claim],
        ["Workspace claim", issuer.workspace_claim ?? <Dash />]
      ]}
    />
  ) : (
    <p class="muted">None: only tokens the gateway issues itself are accepted.</p>
  )

const SdkClients = ({ projectId }: { readonly projectId: string }) => {
  const loaded = useLoad(projectId, (signal) =>
    run(operate().listSdkClients({ path: { project_id: projectId } }), { signal })
  )
  return (
    <Section id="setting-sdk-clients" title="SDK clients">
      <Show loaded={loaded} what="the SDK clients">
        {({ clients }) =>
          clients.length === 0 ? (
            <Empty>No SDK client has called this project in the last 180 days.</Empty>
          ) : (
            <TableWrap label="SDK clients">
              <table>
                <caption class="sr-only">SDK clients</caption>
                <thead>
                  <tr>
                    <th scope="col">Client</th>
                    <th scope="col">Version</th>
                    <th scope="col">First seen</th>
                    <th scope="col">Last seen</th>
                  </tr>
                </thead>
                <tbody>
                  {clients.map((each) => (
                    <tr key={`${each.name}/${each.version}`}>
                      <td>{each.name}</td>
                      <td>
                        <code>{each.version}</code>
                      </td>
                      <td>
                        <Time at={each.first_seen_at} />
                      </td>
                      <td>
                        <Time at={each.last_seen_at} />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </TableWrap>
          )
        }
      </Show>
    </Section>
  )
}

const ORIGINS_HINT =
  "One a line, as a browser sends it: scheme://host[:port] in lower case, such as https://app.example.com (at most 32). These may call the project's frontend base URL."
const PREFIXES_HINT =
  "One a line (at most 10). Users whose id starts with one of these are left out of usage figures and alert rules."

const Editable = (props: FormProps) => {
  const { projectId, values, reload } = props
  const path = { project_id: projectId }
  return (
    <>
      <Section id="setting-plan" title="Plan">
        <PlanForm {...props} />
      </Section>
      <Section id="setting-retention" title="Retention">
        <RetentionNow retention={values.retention} />
        <RetentionForm {...props} />
      </Section>
      <Section id="setting-origins" title="Allowed origins">
        <ListForm
          label="Allowed origins"
          button="Save origins"
          hint={ORIGINS_HINT}
          items={values.origins}
          reload={reload}
          save={async (origins) => {
            const payload = checked(AllowedOrigins, { origins }, itemOf(origins))
            return (await run(operate().setOrigins({ path, payload }))).origins
          }}
        />
      </Section>
      <Section id="setting-topic-ceiling" title="Topic ceiling">
        <TopicCeilingForm {...props} />
      </Section>
      <Section id="setting-test-users" title="Test user prefixes">
        <ListForm
          label="Test user prefixes"
          button="Save test user prefixes"
          hint={PREFIXES_HINT}
          items={values.test_user_prefixes}
          reload={reload}
          save={async (prefixes) => {
            const payload = checked(TestUserPrefixes, { prefixes }, itemOf(prefixes))
            return (await run(operate().setTestUsers({ path, payload }))).prefixes
          }}
        />
      </Section>
      <Section id="setting-issuer" title="Issuer">
        <IssuerForm {...props} />
      </Section>
    </>
  )
}

/** An API key's session: the same values as text. */
const ReadOnly = ({ values }: { readonly values: Values }) => (
  <>
    <p class="hint">Signed in with an API key: these settings can be read here; an admin session changes them.</p>
    <Section id="setting-plan" title="Plan">
      <p>{planWords(values.plan)}</p>
    </Section>
    <Section id="setting-retention" title="Retention">
      <RetentionNow retention={values.retention} />
    </Section>
    <Section id="setting-origins" title="Allowed origins">
      <ListText items={values.origins} />
    </Section>
    <Section id="setting-topic-ceiling" title="Topic ceiling">
      <p>{values.topic_ceiling}</p>
    </Section>
    <Section id="setting-test-users" title="Test user prefixes">
      <ListText items={values.test_user_prefixes} />
    </Section>
    <Section id="setting-issuer" title="Issuer">
      <IssuerText issuer={values.issuer} />
    </Section>
  </>
)

export const Settings = ({ projectId, sessionKind }: ViewProps) => {
  useTitle("Settings")
  const { loaded, reload } = useReloadable(projectId, (signal) =>
    run(operate().getSettings({ path: { project_id: projectId } }), { signal })
  )
  return (
    <div class="settings-view">
      <h1>Settings</h1>
      <Show loaded={loaded} what="the settings">
        {(values) => (
          <>
            <Facts
              items={[
                ["Project", values.name],
                ["Project id", <code key="id">{values.project_id}</code>],
                ["Alert rules", formatCount(values.alert_rules)],
                ["Evaluators", formatCount(values.evaluators)],
                ["Webhooks", formatCount(values.webhooks)]
              ]}
            />
            {sessionKind === "admin" ? (
              <Editable projectId={projectId} values={values} reload={reload} />
            ) : (
              <ReadOnly values={values} />
            )}
          </>
        )}
      </Show>
      <SdkClients projectId={projectId} />
    </div>
  )
}
