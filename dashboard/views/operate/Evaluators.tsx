/**
 * Evaluators (docs/settings-plane.md "Evaluators"): the project's
 * evaluators with what each has done, a form to create or edit one (kind
 * rule or model, categories with keywords or an RE2 pattern; the gateway's
 * refusal of a pattern said in words), deleting one after a confirmation,
 * and each evaluator's latest labels (scores with source "evaluator")
 * linking to the runs or threads they label.
 */
import type { ComponentChildren, RefObject } from "preact"
import { useState } from "preact/hooks"
import { EVALUATOR_LIMITS, type Evaluator, EvaluatorInput } from "../../../schema/Evaluator.js"
import type { Score } from "../../../schema/Score.js"
import { client, run } from "../../api.js"
import { formatCount } from "../../format.js"
import { useLoad } from "../../load.js"
import { href, type ViewProps } from "../../router.js"
import type { Column } from "../../table.js"
import { Badge, Dash, ShortId, Show, Time, useTitle } from "../../ui.js"
import { operate } from "./client.js"
import { ActionResult, ConfirmDialog, useAction } from "./forms.js"
import { CaptionTable, checked, counted, fieldOf, useVersion } from "./parts.js"
import { choiceOf, numberOf, RowActions, useFocusFirst } from "./rule-parts.js"

const KINDS = ["rule", "model"] as const
const TARGETS = ["run", "thread"] as const
const KIND_WORDS = { rule: "Rule: keywords or a pattern", model: "Model: an evaluator model chooses" } as const
const TARGET_WORDS = { run: "Runs, by their output text", thread: "Threads, by their last user message" } as const
/** How many of an evaluator's latest labels are shown. */
const LATEST = 5

interface CategoryDraft {
  /** Keeps each category's inputs its own while others are added or removed. */
  readonly key: number
  readonly name: string
  /** One keyword a line. */
  readonly keywords: string
  readonly pattern: string
}

interface Draft {
  readonly name: string
  readonly kind: string
  readonly target: string
  readonly sampling: string
  readonly prompt: string
  readonly categories: ReadonlyArray<CategoryDraft>
}

let nextKey = 0
const newCategory = (from: Partial<Omit<CategoryDraft, "key">> = {}): CategoryDraft => ({
  key: nextKey++,
  name: from.name ?? "",
  keywords: from.keywords ?? "",
  pattern: from.pattern ?? ""
})

const emptyDraft = (): Draft => ({
  name: "",
  kind: "rule",
  target: "run",
  sampling: "1",
  prompt: "",
  categories: [newCategory()]
})

const draftOf = (evaluator: Evaluator): Draft => ({
  name: evaluator.name,
  kind: evaluator.kind,
  target: evaluator.target,
  sampling: String(evaluator.sampling_rate),
  prompt: evaluator.prompt ?? "",
  categories: evaluator.categories.map((category) =>
    newCategory({
      name: category.name,
      keywords: (category.keywords ?? []).join("\n"),
      pattern: category.pattern ?? ""
    })
  )
})

const lines = (text: string): Array<string> =>
  text
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "")

/** The form's values as the API's body, or the schema's refusal in words (thrown as a CallError). */
const bodyOf = (draft: Draft): EvaluatorInput => {
  const rule = draft.kind === "rule"
  return checked(
    EvaluatorInput,
    {
      name: draft.name.trim(),
      kind: draft.kind,
      target: draft.target,
      sampling_rate: numberOf(draft.sampling),
      categories: draft.categories.map((category) => {
        const keywords = lines(category.keywords)
        return {
          name: category.name.trim(),
          ...(rule && keywords.length > 0 ? { keywords } : {}),
          ...(rule && category.pattern.trim() !== "" ? { pattern: category.pattern.trim() } : {})
        }
      }),
      ...(!rule && draft.prompt.trim() !== "" ? { prompt: draft.prompt.trim() } : {})
    },
    fieldOf
  )
}

const Categories = ({ evaluator }: { readonly evaluator: Evaluator }) => (
  <ul class="rules-categories">
    {evaluator.categories.map((category) => (
      <li key={category.name}>
        <strong>{category.name}</strong>
        {category.keywords && category.keywords.length > 0 ? (
          <span> keywords {category.keywords.map((keyword) => `“${keyword}”`).join(", ")}</span>
        ) : null}
        {category.pattern ? (
          <span>
            {" "}
            pattern <code>{category.pattern}</code>
          </span>
        ) : null}
      </li>
    ))}
  </ul>
)

const evaluatorColumns = (actions: (evaluator: Evaluator) => ComponentChildren): ReadonlyArray<Column<Evaluator>> => [
  { title: "Name", cell: (evaluator) => <strong>{evaluator.name}</strong> },
  {
    title: "Kind",
    cell: (evaluator) => (evaluator.kind === "model" ? <Badge tone="ai">model</Badge> : <Badge>rule</Badge>)
  },
  {
    title: "Labels",
    cell: (evaluator) => (
      <>
        {evaluator.target === "run" ? "runs" : "threads"}
        <span class="rules-sub">
          by <code>{evaluator.field}</code>
        </span>
      </>
    )
  },
  { title: "Sampled", num: true, cell: (evaluator) => `${Math.round(evaluator.sampling_rate * 1000) / 10} %` },
  { title: "Categories", wrap: "wide", cell: (evaluator) => <Categories evaluator={evaluator} /> },
  { title: "Evaluated", num: true, cell: (evaluator) => formatCount(evaluator.stats.evaluated) },
  { title: "Labelled", num: true, cell: (evaluator) => formatCount(evaluator.stats.scored) },
  { title: "No match", num: true, cell: (evaluator) => formatCount(evaluator.stats.no_match) },
  { title: "Retrying", num: true, cell: (evaluator) => formatCount(evaluator.stats.retrying) },
  { title: "Failed", num: true, cell: (evaluator) => formatCount(evaluator.stats.failed) },
  { title: "Actions", cell: actions }
]

const labelColumns = (projectId: string): ReadonlyArray<Column<Score>> => [
  { title: "Label", cell: (score) => <Badge>{score.string_value ?? "—"}</Badge> },
  {
    title: "Of",
    cell: (score) =>
      score.run_id ? (
        <a href={href(projectId, "runs", score.run_id)}>
          Run <ShortId id={score.run_id} />
        </a>
      ) : score.thread_id ? (
        <a href={href(projectId, "threads", score.thread_id, { message: score.message_id ?? undefined })}>
          Thread <ShortId id={score.thread_id} />
        </a>
      ) : (
        <Dash />
      )
  },
  { title: "Why", wrap: "wide", cell: (score) => score.comment ?? <Dash /> },
  { title: "Labelled", cell: (score) => <Time at={score.created_at} /> }
]

/** An evaluator's latest labels: the scores named after it that evaluators wrote, newest first. */
const LatestLabels = (props: {
  readonly projectId: string
  readonly evaluator: Evaluator
  readonly version: number
}) => {
  const { projectId, evaluator } = props
  const loaded = useLoad(`${projectId}/${evaluator.evaluator_id}/${evaluator.name}#${props.version}`, (signal) =>
    run(
      client.scores({
        path: { project_id: projectId },
        urlParams: { name: evaluator.name, source: "evaluator", limit: LATEST }
      }),
      { signal }
    )
  )
  return (
    <Show loaded={loaded} what={`the labels of ${evaluator.name}`}>
      {({ scores }) => (
        <CaptionTable
          caption={`Latest labels of ${evaluator.name}`}
          columns={labelColumns(projectId)}
          rows={scores}
          rowKey={(score) => score.id}
          tableClass="rules-table"
          empty={<>{evaluator.name}: no labels yet.</>}
        />
      )}
    </Show>
  )
}

const EvaluatorForm = (props: {
  readonly draft: Draft
  readonly setDraft: (draft: Draft) => void
  readonly editing: Evaluator | undefined
  readonly busy: boolean
  readonly onSubmit: () => void
  readonly onCancel: () => void
  readonly formRef: RefObject<HTMLFormElement | null>
}) => {
  const { draft, setDraft } = props
  const inputValue = (event: Event): string | undefined => {
    const target = event.currentTarget
    return target instanceof HTMLInputElement ||
      target instanceof HTMLSelectElement ||
      target instanceof HTMLTextAreaElement
      ? target.value
      : undefined
  }
  const set = (key: "name" | "kind" | "target" | "sampling" | "prompt") => (event: Event) => {
    const value = inputValue(event)
    if (value !== undefined) setDraft({ ...draft, [key]: value })
  }
  const setCategory = (index: number, key: "name" | "keywords" | "pattern") => (event: Event) => {
    const value = inputValue(event)
    if (value === undefined) return
    setDraft({
      ...draft,
      categories: draft.categories.map((category, at) => (at === index ? { ...category, [key]: value } : category))
    })
  }
  const rule = draft.kind === "rule"
  const kind = choiceOf(KINDS, draft.kind) ?? "rule"
  const heading = props.editing ? `Edit ${props.editing.name}` : "New evaluator"
  return (
    <form
      ref={props.formRef}
      class="operate-form rules-form"
      aria-labelledby="evaluator-form-title"
      onSubmit={(event) => {
        event.preventDefault()
        props.onSubmit()
      }}
    >
      <h2 id="evaluator-form-title">{heading}</h2>
      <div class="rules-fields">
        <label>
          Name
          <input value={draft.name} onInput={set("name")} required />
        </label>
        <label>
          Kind
          <select value={draft.kind} onChange={set("kind")}>
            {KINDS.map((each) => (
              <option key={each} value={each}>
                {KIND_WORDS[each]}
              </option>
            ))}
          </select>
        </label>
        <label>
          Labels
          <select value={draft.target} onChange={set("target")}>
            {TARGETS.map((each) => (
              <option key={each} value={each}>
                {TARGET_WORDS[each]}
              </option>
            ))}
          </select>
        </label>
        <label>
          Sampling rate (0 to 1)
          <input
            type="number"
            inputMode="decimal"
            min={0}
            max={1}
            step="any"
            value={draft.sampling}
            onInput={set("sampling")}
            required
          />
        </label>
      </div>
      {kind === "model" ? (
        <label class="rules-wide">
          Prompt (what to judge; optional)
          <textarea
            rows={3}
            value={draft.prompt}
            onInput={set("prompt")}
            maxLength={EVALUATOR_LIMITS.promptMaxLength}
          />
        </label>
      ) : null}
      <p class="hint">
        {rule
          ? "The first category whose keywords (case-insensitive) or pattern match the text is the label; no match, no label. A pattern is RE2 syntax, matched case-insensitively in time linear in the text: no backreferences or lookaround, at most 200 characters; the gateway refuses one it cannot run safely and says why."
          : "The evaluator model answers one of the categories by name; the gateway needs EVALUATOR_MODEL_BASE_URL for it."}
      </p>
      {draft.categories.map((category, index) => (
        <fieldset key={category.key} class="rules-category">
          <legend>Category {index + 1}</legend>
          <div class="rules-fields">
            <label>
              Name
              <input value={category.name} onInput={setCategory(index, "name")} required />
            </label>
            {rule ? (
              <>
                <label>
                  Keywords (one a line)
                  <textarea rows={2} value={category.keywords} onInput={setCategory(index, "keywords")} />
                </label>
                <label>
                  Pattern
                  <input
                    value={category.pattern}
                    onInput={setCategory(index, "pattern")}
                    maxLength={EVALUATOR_LIMITS.patternMaxLength}
                    spellcheck={false}
                    autoComplete="off"
                  />
                </label>
              </>
            ) : null}
          </div>
          {draft.categories.length > 1 ? (
            <button
              type="button"
              class="quiet"
              onClick={() => setDraft({ ...draft, categories: draft.categories.filter((_, at) => at !== index) })}
            >
              Remove category {index + 1}
            </button>
          ) : null}
        </fieldset>
      ))}
      <div class="buttons">
        <button
          type="button"
          class="quiet"
          disabled={draft.categories.length >= EVALUATOR_LIMITS.categoriesMax}
          onClick={() => setDraft({ ...draft, categories: [...draft.categories, newCategory()] })}
        >
          Add category
        </button>
      </div>
      <div class="buttons">
        <button type="submit" disabled={props.busy}>
          {props.editing ? "Save evaluator" : "Create evaluator"}
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

export const Evaluators = ({ projectId, sessionKind }: ViewProps) => {
  useTitle("Evaluators")
  const [version, reload] = useVersion()
  const loaded = useLoad(sessionKind === "admin" ? `${projectId}#${version}` : undefined, (signal) =>
    run(operate().listEvaluators({ path: { project_id: projectId } }), { signal })
  )
  const [draft, setDraft] = useState<Draft>(emptyDraft)
  const [editing, setEditing] = useState<Evaluator | undefined>(undefined)
  const [deleting, setDeleting] = useState<Evaluator | undefined>(undefined)
  const saving = useAction()
  const removing = useAction()
  const [formRef, focusForm] = useFocusFirst()

  if (sessionKind !== "admin") {
    return (
      <>
        <h1>Evaluators</h1>
        <p class="state">Evaluators are the operator's: sign in with the admin token to see and change them.</p>
      </>
    )
  }

  const startEdit = (evaluator: Evaluator) => {
    setEditing(evaluator)
    setDraft(draftOf(evaluator))
    saving.clear()
    focusForm()
  }
  const stopEdit = () => {
    setEditing(undefined)
    setDraft(emptyDraft())
    saving.clear()
  }
  const submit = async () => {
    const target = editing
    const saved = target
      ? await saving.act(
          () =>
            run(
              operate().updateEvaluator({
                path: { project_id: projectId, evaluator_id: target.evaluator_id },
                payload: bodyOf(draft)
              })
            ),
          (evaluator) => `Saved ${evaluator.name}.`
        )
      : await saving.act(
          () => run(operate().createEvaluator({ path: { project_id: projectId }, payload: bodyOf(draft) })),
          (evaluator) => `Created ${evaluator.name}.`
        )
    if (saved) {
      setEditing(undefined)
      setDraft(emptyDraft())
      reload()
    }
  }
  const confirmDelete = async () => {
    const evaluator = deleting
    if (!evaluator) return
    const done = await removing.act(
      () =>
        run(operate().deleteEvaluator({ path: { project_id: projectId, evaluator_id: evaluator.evaluator_id } })).then(
          () => true
        ),
      `Deleted ${evaluator.name}.`
    )
    setDeleting(undefined)
    if (done) {
      if (editing?.evaluator_id === evaluator.evaluator_id) stopEdit()
      reload()
    }
  }
  const actions = (evaluator: Evaluator) => (
    <RowActions
      name={evaluator.name}
      onEdit={() => startEdit(evaluator)}
      onDelete={() => {
        removing.clear()
        setDeleting(evaluator)
      }}
    />
  )

  return (
    <>
      <h1>Evaluators</h1>
      <p class="hint">
        An evaluator labels the runs or threads created after it with one of its categories, written as a score named
        after it (source “evaluator”). A project has at most {EVALUATOR_LIMITS.perProject} evaluators of at most{" "}
        {EVALUATOR_LIMITS.categoriesMax} categories each.
      </p>
      <section aria-label="Evaluators list">
        <ActionResult action={removing} />
        <Show loaded={loaded} what="evaluators">
          {({ evaluators }) => (
            <CaptionTable
              caption="Evaluators"
              columns={evaluatorColumns(actions)}
              rows={evaluators}
              rowKey={(evaluator) => evaluator.evaluator_id}
              tableClass="rules-table"
              empty={<>No evaluators yet: create one below.</>}
            />
          )}
        </Show>
      </section>
      {loaded.state === "ok" && loaded.value.evaluators.length > 0 ? (
        <section aria-labelledby="evaluator-labels" class="rules-labels">
          <h2 id="evaluator-labels">Latest labels</h2>
          <p class="hint">
            Each evaluator's latest {counted(LATEST, "label")}, newest first; every label is in{" "}
            <a href={href(projectId, "scores", undefined, { source: "evaluator" })}>Scores</a> too.
          </p>
          {loaded.value.evaluators.map((evaluator) => (
            <LatestLabels key={evaluator.evaluator_id} projectId={projectId} evaluator={evaluator} version={version} />
          ))}
        </section>
      ) : null}
      <EvaluatorForm
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
      <ConfirmDialog
        open={deleting !== undefined}
        title="Delete evaluator"
        confirm="Delete"
        busy={removing.busy}
        onConfirm={confirmDelete}
        onCancel={() => setDeleting(undefined)}
      >
        <p>Delete {deleting?.name}? It evaluates nothing more; the labels it wrote stay.</p>
      </ConfirmDialog>
    </>
  )
}
