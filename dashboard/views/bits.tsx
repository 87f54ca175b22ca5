/** Pieces the runs, traces, threads and scores views share. */
import type { RunSummary } from "../../schema/Run.js"
import type { Score } from "../../schema/Score.js"
import { formatCost, formatCount, formatDuration } from "../format.js"
import type { Column } from "../table.js"
import { Badge } from "../ui.js"

export const RunStatus = ({ status }: { readonly status: RunSummary["status"] }) => (
  <Badge tone={status === "error" ? "bad" : status === "incomplete" ? "warn" : "good"}>{status}</Badge>
)

export const tokens = (run: Pick<RunSummary, "input_tokens" | "output_tokens">): string =>
  run.input_tokens == null && run.output_tokens == null
    ? "—"
    : `${formatCount(run.input_tokens ?? 0)} in / ${formatCount(run.output_tokens ?? 0)} out`

/** The columns the project's runs and a trace's runs share. */
export const runColumns = {
  status: { title: "Status", cell: (run) => <RunStatus status={run.status} /> },
  tokens: { title: "Tokens", cell: tokens },
  cost: { title: "Cost", num: true, cell: (run) => formatCost(run.cost_usd) },
  duration: { title: "Duration", num: true, cell: (run) => formatDuration(run.duration_ms) }
} satisfies Record<string, Column<RunSummary>>

/** A thread's archived flag, as its cells say it. */
export const archived = (isArchived: boolean) => (isArchived ? <Badge>Archived</Badge> : "No")

/** A score's value as written: the category, true or false, or the number. */
export const scoreValue = (score: Pick<Score, "data_type" | "value" | "string_value">): string => {
  if (score.data_type === "boolean") {
    if (score.string_value) return score.string_value
    return score.value == null ? "—" : score.value !== 0 ? "true" : "false"
  }
  if (score.data_type === "categorical") return score.string_value ?? (score.value == null ? "—" : String(score.value))
  return score.value == null ? (score.string_value ?? "—") : String(score.value)
}

export const RUN_STATUSES = [
  ["completed", "Completed"],
  ["incomplete", "Incomplete"],
  ["error", "Error"]
] as const
