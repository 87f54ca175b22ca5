/** Usage over a period: the totals as text, then charts by UTC day. */
import { useMemo } from "preact/hooks"
import { client, run } from "../api.js"
import { formatCost, formatCount, utcDay } from "../format.js"
import { useLoad } from "../load.js"
import { navigate, type ViewProps, withQuery } from "../router.js"
import { Facts, Show, useTitle } from "../ui.js"
import { Chart, type Series } from "./Chart.js"

const PERIODS = [7, 30, 90] as const

type Day = Awaited<ReturnType<typeof loadUsage>>["daily"]["days"][number]

const loadUsage = (projectId: string, days: number, signal: AbortSignal) => {
  const urlParams = { from: utcDay(days - 1), to: utcDay(0) }
  const path = { project_id: projectId }
  return Promise.all([
    run(client.usageDaily({ path, urlParams }), { signal }),
    run(client.usagePeriod({ path, urlParams }), { signal })
  ]).then(([daily, period]) => ({ daily, period }))
}

const charts = (rows: ReadonlyArray<Day>) => {
  const column = (pick: (day: Day) => number) => rows.map(pick)
  const series = (label: string, pick: (day: Day) => number, format = formatCount): Series => ({
    label,
    values: column(pick),
    format,
    ...(format === formatCost ? { tick: formatCost } : {})
  })
  return [
    {
      title: "Threads and messages",
      series: [series("Threads", (d) => d.threads), series("Messages", (d) => d.messages)]
    },
    { title: "Runs", series: [series("Runs", (d) => d.runs), series("Run errors", (d) => d.run_errors)] },
    {
      title: "Tokens",
      series: [series("Input tokens", (d) => d.input_tokens), series("Output tokens", (d) => d.output_tokens)]
    },
    { title: "Cost", series: [series("Cost (USD)", (d) => d.cost_usd, formatCost)] },
    { title: "Active users", series: [series("Active users", (d) => d.active_users)] },
    { title: "Events and scores", series: [series("Events", (d) => d.events), series("Scores", (d) => d.scores)] }
  ]
}

export const Overview = ({ projectId, query }: ViewProps) => {
  useTitle("Overview")
  const asked = Number(query.get("days"))
  const days = PERIODS.find((period) => period === asked) ?? 30
  const loaded = useLoad(`${projectId}/${days}`, (signal) => loadUsage(projectId, days, signal))
  // Made once per answer: the charts redraw only when their figures change.
  const drawn = useMemo(
    () =>
      loaded.state === "ok"
        ? { days: loaded.value.daily.days.map((day) => day.date), charts: charts(loaded.value.daily.days) }
        : { days: [], charts: [] },
    [loaded]
  )

  return (
    <>
      <div class="view-head">
        <h1>Overview</h1>
        <label class="inline">
          Period
          <select
            value={String(days)}
            onChange={(event) => navigate(withQuery({ days: event.currentTarget.value }), { replace: true })}
          >
            {PERIODS.map((period) => (
              <option key={period} value={String(period)}>
                Last {period} days
              </option>
            ))}
          </select>
        </label>
      </div>
      <Show loaded={loaded} what="usage">
        {({ period }) => (
          <>
            <section aria-labelledby="totals-heading">
              <h2 id="totals-heading">
                Totals, {period.from} to {period.to} (UTC)
              </h2>
              <Facts
                kind="totals"
                items={[
                  ["Threads", formatCount(period.threads)],
                  ["Messages", formatCount(period.messages)],
                  ["Runs", formatCount(period.runs)],
                  ["Run errors", formatCount(period.run_errors)],
                  ["Input tokens", formatCount(period.input_tokens)],
                  ["Output tokens", formatCount(period.output_tokens)],
                  ["Cost", formatCost(period.cost_usd)],
                  ["Active users", formatCount(period.active_users)],
                  ["Events", formatCount(period.events)],
                  ["Scores", formatCount(period.scores)]
                ]}
              />
            </section>
            <section aria-labelledby="daily-heading">
              <h2 id="daily-heading">By day</h2>
              <div class="charts">
                {drawn.charts.map((chart) => (
                  <Chart key={chart.title} title={chart.title} days={drawn.days} series={chart.series} />
                ))}
              </div>
            </section>
          </>
        )}
      </Show>
    </>
  )
}
