/**
 * The gateway's background jobs (docs/dashboard.md "Operating views"), the
 * same for every project: each job's interval, last run, next run, items and
 * failures as the store keeps them; a pass of one run now, its outcome said
 * and the list loaded again.
 */
import type { JobRun as JobRunSchema, JobStatus as JobStatusSchema } from "../../../schema/Settings.js"
import { run } from "../../api.js"
import { formatCount, formatDuration } from "../../format.js"
import { useLoad } from "../../load.js"
import type { ViewProps } from "../../router.js"
import type { Column } from "../../table.js"
import { Badge, Clip, Dash, Show, Time, useTitle } from "../../ui.js"
import { operate } from "./client.js"
import { ActionResult, useAction } from "./forms.js"
import { AdminOnly, CaptionTable, counted, refusal, useKept, useVersion } from "./parts.js"

type JobRun = typeof JobRunSchema.Type
type JobStatus = typeof JobStatusSchema.Type

/** What a pass did, in words: "3 items (delivered 2, retried 1)". */
const outcome = (done: JobRun): string => {
  const details = Object.entries(done.details)
    .filter(([, n]) => n > 0)
    .map(([kind, n]) => `${kind.replace(/_/g, " ")} ${formatCount(n)}`)
  const took = formatDuration(done.finished_at.getTime() - done.started_at.getTime())
  return `Ran ${done.job} in ${took}: ${counted(done.items, "item")}${details.length > 0 ? ` (${details.join(", ")})` : ""}.`
}

const every = (seconds: number): string =>
  seconds % 3600 === 0 ? `${seconds / 3600} h` : seconds % 60 === 0 ? `${seconds / 60} min` : `${seconds} s`

const JobsList = () => {
  const [version, reload] = useVersion()
  const action = useAction()
  const loaded = useKept(
    useLoad(`jobs#${version}`, (signal) => run(operate().listJobs(), { signal })),
    "jobs"
  )
  const runNow = async (job: JobStatus) => {
    await action.act(async () => {
      const done = await run(operate().runJob({ path: { job: job.name } }))
      if (done.error !== null) throw refusal(`${done.job} failed: ${done.error}`)
      return done
    }, outcome)
    // Loaded again whatever happened: a failed pass is counted too.
    reload()
  }
  const columns: ReadonlyArray<Column<JobStatus>> = [
    { title: "Job", cell: (job) => <code>{job.name}</code> },
    { title: "Every", cell: (job) => every(job.interval_seconds) },
    { title: "Last run", cell: (job) => <Time at={job.last_started_at} /> },
    {
      title: "Took",
      num: true,
      cell: (job) =>
        job.last_started_at && job.last_finished_at ? (
          formatDuration(job.last_finished_at.getTime() - job.last_started_at.getTime())
        ) : (
          <Dash />
        )
    },
    { title: "Last items", num: true, cell: (job) => formatCount(job.last_items) },
    {
      title: "Last error",
      cell: (job) => (job.last_error ? <Clip text={job.last_error} /> : <Dash />)
    },
    {
      title: "Next run",
      cell: (job) =>
        job.running ? (
          <Badge tone="warn">running</Badge>
        ) : job.next_run_at && job.next_run_at.getTime() <= Date.now() ? (
          // A time already past: the job runs at its scheduler's next tick.
          <>
            <Badge>due</Badge> <Time at={job.next_run_at} />
          </>
        ) : (
          <Time at={job.next_run_at} />
        )
    },
    { title: "Runs", num: true, cell: (job) => formatCount(job.runs) },
    {
      title: "Failures",
      num: true,
      cell: (job) => (job.failures > 0 ? <Badge tone="bad">{formatCount(job.failures)}</Badge> : "0")
    },
    { title: "Items in all", num: true, cell: (job) => formatCount(job.items_total) },
    {
      title: "Action",
      cell: (job) => (
        <button type="button" disabled={action.busy} onClick={() => runNow(job)}>
          Run <span class="sr-only">{job.name} </span>now
        </button>
      )
    }
  ]
  return (
    <>
      <ActionResult action={action} />
      <Show loaded={loaded} what="the jobs">
        {({ jobs }) => (
          <CaptionTable
            caption="Jobs"
            columns={columns}
            rows={jobs}
            rowKey={(job) => job.name}
            empty="This gateway runs no jobs."
          />
        )}
      </Show>
    </>
  )
}

export const Jobs = ({ sessionKind }: ViewProps) => {
  useTitle("Jobs")
  return (
    <>
      <h1>Jobs</h1>
      <p class="hint">
        The gateway's background jobs, shared by every project: each pass is bounded, one gateway at a time runs a job,
        and the figures are kept in the store.
      </p>
      {sessionKind === "admin" ? <JobsList /> : <AdminOnly what="Jobs" />}
    </>
  )
}
