/**
 * Erasing one user's data (docs/dashboard.md "Operating views"): the user id
 * typed, what would be erased counted per kind before anything is deleted,
 * the erasure only once the id is typed again; then the project's erasure
 * log (the user as the SHA-256 of its id, who asked, when, what went).
 */
import { useState } from "preact/hooks"
import { ErasedUserId, type ErasureCounts, type UserErasure } from "../../../schema/Erasure.js"
import { run } from "../../api.js"
import { formatCount, formatDuration } from "../../format.js"
import { useLoad } from "../../load.js"
import type { ViewProps } from "../../router.js"
import type { Column } from "../../table.js"
import { Badge, Show, Time, useTitle } from "../../ui.js"
import { operate } from "./client.js"
import { ActionResult, useAction } from "./forms.js"
import { AdminOnly, CaptionTable, checked, counted, useKept, useVersion } from "./parts.js"

/** Each kind an erasure counts, in words. */
const KINDS: ReadonlyArray<readonly [keyof ErasureCounts, string]> = [
  ["threads", "Threads"],
  ["messages", "Messages"],
  ["feedback", "Feedback"],
  ["runs", "Runs"],
  ["scores", "Scores"],
  ["events", "Events"],
  ["attachments", "Attachments (their files)"],
  ["spans", "Spans"],
  ["traces", "Traces"],
  ["refresh_tokens", "Anonymous sessions (refresh tokens)"],
  ["workspace_claims", "Workspace claims"],
  ["webhook_deliveries", "Webhook deliveries"]
]

const total = (counts: ErasureCounts): number => KINDS.reduce((sum, [kind]) => sum + counts[kind], 0)

/** The kinds with something, as "2 threads, 5 messages"; "nothing" when none. */
const summary = (counts: ErasureCounts): string => {
  const some = KINDS.filter(([kind]) => counts[kind] > 0).map(
    ([kind, label]) => `${label.toLowerCase()} ${formatCount(counts[kind])}`
  )
  return some.length === 0 ? "nothing" : some.join(", ")
}

interface Previewed {
  readonly userId: string
  readonly counts: ErasureCounts
}

const LOG_COLUMNS: ReadonlyArray<Column<UserErasure>> = [
  {
    title: "User (SHA-256 of the id)",
    cell: (erasure) => (
      <code class="id" title={erasure.user_sha256}>
        {erasure.user_sha256.slice(0, 16)}…
      </code>
    )
  },
  { title: "When", cell: (erasure) => <Time at={erasure.started_at} /> },
  { title: "Requested by", cell: (erasure) => erasure.requested_by },
  { title: "Deleted", wrap: "wide", cell: (erasure) => summary(erasure.deleted) },
  { title: "Items", num: true, cell: (erasure) => formatCount(total(erasure.deleted)) },
  { title: "Usage rows anonymized", num: true, cell: (erasure) => formatCount(erasure.usage_rows_anonymized) },
  {
    title: "State",
    cell: (erasure) => (
      <>
        <Badge tone="good">finished</Badge>{" "}
        <span class="muted">in {formatDuration(erasure.finished_at.getTime() - erasure.started_at.getTime())}</span>
      </>
    )
  }
]

const ErasureLog = ({ projectId, version }: { readonly projectId: string; readonly version: number }) => {
  const loaded = useKept(
    useLoad(`${projectId}#${version}`, (signal) =>
      run(operate().listErasures({ path: { project_id: projectId } }), { signal })
    ),
    projectId
  )
  return (
    <section aria-labelledby="erasure-log">
      <h2 id="erasure-log">Erasure log</h2>
      <p class="hint">Newest first. The user is kept as the SHA-256 of its id, with no content.</p>
      <Show loaded={loaded} what="the erasure log">
        {({ erasures }) => (
          <CaptionTable
            caption="Erasures"
            columns={LOG_COLUMNS}
            rows={erasures}
            rowKey={(erasure) => erasure.erasure_id}
            empty="No erasures in this project."
          />
        )}
      </Show>
    </section>
  )
}

const ErasureOf = ({ projectId }: { readonly projectId: string }) => {
  const [userId, setUserId] = useState("")
  const [again, setAgain] = useState("")
  const [previewed, setPreviewed] = useState<Previewed | undefined>(undefined)
  const [version, reload] = useVersion()
  const looking = useAction()
  const erasing = useAction()

  const preview = async (event: Event) => {
    event.preventDefault()
    setPreviewed(undefined)
    setAgain("")
    erasing.clear()
    const id = userId
    const counts = await looking.act(
      () => {
        const user_id = checked(ErasedUserId, id)
        return run(operate().previewErasure({ path: { project_id: projectId, user_id } }))
      },
      (found) => `User ${id}: ${counted(total(found), "item")} would be erased.`
    )
    if (counts !== undefined) setPreviewed({ userId: id, counts })
  }

  const erase = async (event: Event) => {
    event.preventDefault()
    if (previewed === undefined || again !== previewed.userId) return
    const { userId: id } = previewed
    const erased = await erasing.act(
      () => run(operate().eraseUser({ path: { project_id: projectId, user_id: id } })),
      (record) => `Erased user ${id}: ${summary(record.deleted)}.`
    )
    if (erased === undefined) return
    setPreviewed(undefined)
    setAgain("")
    looking.clear()
    reload()
  }

  const matches = previewed !== undefined && again === previewed.userId
  return (
    <>
      <h1>Erasure</h1>
      <p class="hint">
        Deletes everything of one user in this project: threads (in any workspace) with all in them, messages, feedback,
        runs, scores, events, spans, anonymous sessions, workspace claims and attachments. See what will go first.
      </p>
      <form class="operate-form erasure-form" onSubmit={preview}>
        <label>
          User id
          <input
            type="text"
            name="user_id"
            autoComplete="off"
            spellcheck={false}
            value={userId}
            onInput={(event) => {
              looking.clear()
              setUserId(event.currentTarget.value)
            }}
          />
        </label>
        <div class="buttons">
          <button type="submit" disabled={looking.busy || erasing.busy}>
            Preview erasure
          </button>
        </div>
      </form>
      <ActionResult action={looking} />
      {previewed ? (
        <section class="erasure-preview" aria-labelledby="erasure-preview">
          <h2 id="erasure-preview">
            What erasing <span class="user-id">{previewed.userId}</span> deletes now
          </h2>
          <CaptionTable
            caption="What will be erased"
            columns={[
              { title: "Kind", cell: ([, label]) => label },
              { title: "Count", num: true, cell: ([kind]) => formatCount(previewed.counts[kind]) }
            ]}
            rows={KINDS}
            rowKey={([kind]) => kind}
            empty=""
          />
          <form class="operate-form erasure-confirm" onSubmit={erase}>
            <label>
              Type the user id again to confirm
              <input
                type="text"
                name="confirm_user_id"
                autoComplete="off"
                spellcheck={false}
                value={again}
                onInput={(event) => {
                  erasing.clear()
                  setAgain(event.currentTarget.value)
                }}
              />
            </label>
            <p class="hint">This cannot be undone. Nothing is deleted until the id typed matches.</p>
            <div class="buttons">
              <button type="submit" class="danger" disabled={!matches || erasing.busy}>
                Erase user
              </button>
            </div>
          </form>
        </section>
      ) : null}
      <ActionResult action={erasing} />
      <ErasureLog projectId={projectId} version={version} />
    </>
  )
}

export const Erasure = ({ projectId, sessionKind }: ViewProps) => {
  useTitle("Erasure")
  if (sessionKind !== "admin") {
    return (
      <>
        <h1>Erasure</h1>
        <AdminOnly what="Erasure" />
      </>
    )
  }
  // A project of its own each: a preview does not follow a switch of project.
  return <ErasureOf key={projectId} projectId={projectId} />
}
