/**
 * A chart by UTC day, drawn by uPlot (its own chunk, loaded on first use),
 * with its text alternative: a one-line summary as the image's label and the
 * figures as a table under a disclosure.
 */
import { useEffect, useRef, useState } from "preact/hooks"
import type uPlot from "uplot"
import { formatCompact } from "../format.js"
import { TableWrap } from "../ui.js"

export interface Series {
  readonly label: string
  readonly values: ReadonlyArray<number>
  readonly format: (n: number) => string
  /** How an axis tick reads (short); compact counts unless given. */
  readonly tick?: (n: number) => string
}

/** Lines told apart by color (and the legend): at least 3:1 against the white background. */
const COLORS = ["#2563eb", "#c2410c", "#15803d", "#7c3aed", "#be123c", "#0e7490"] as const

const summary = (days: ReadonlyArray<string>, series: ReadonlyArray<Series>): string =>
  series
    .map((each) => {
      const total = each.values.reduce((sum, n) => sum + n, 0)
      let peak = 0
      each.values.forEach((n, i) => {
        if (n > (each.values[peak] ?? 0)) peak = i
      })
      const peakText = total > 0 ? `, highest ${each.format(each.values[peak] ?? 0)} on ${days[peak]}` : ""
      return `${each.label}: ${each.format(total)} in all${peakText}`
    })
    .join("; ")

const draw = (Plot: typeof uPlot, el: HTMLElement, days: ReadonlyArray<string>, series: ReadonlyArray<Series>) => {
  const xs = days.map((day) => Date.parse(`${day}T00:00:00Z`) / 1000)
  const options: uPlot.Options = {
    width: Math.max(el.clientWidth, 200),
    height: 180,
    tzDate: (ts) => Plot.tzDate(new Date(ts * 1000), "Etc/UTC"),
    cursor: { drag: { x: false, y: false } },
    legend: { show: true, live: false },
    scales: { y: { range: (_u, _min, max) => [0, max > 0 ? max * 1.1 : 1] } },
    axes: [
      { stroke: "#4b5563", grid: { stroke: "#e5e7eb" }, ticks: { stroke: "#d1d5db" } },
      {
        stroke: "#4b5563",
        grid: { stroke: "#e5e7eb" },
        ticks: { stroke: "#d1d5db" },
        size: 56,
        values: (_u, ticks) => ticks.map((tick) => (series[0]?.tick ?? formatCompact)(tick))
      }
    ],
    series: [
      { label: "Day (UTC)", value: (_u, ts) => (ts == null ? "—" : new Date(ts * 1000).toISOString().slice(0, 10)) },
      ...series.map((each, i) => ({
        label: each.label,
        stroke: COLORS[i % COLORS.length],
        width: 2,
        points: { show: days.length <= 31 },
        value: (_u: uPlot, n: number | null) => (n == null ? "—" : each.format(n))
      }))
    ]
  }
  return new Plot(options, [xs, ...series.map((each) => [...each.values])], el)
}

export const Chart = (props: {
  readonly title: string
  readonly days: ReadonlyArray<string>
  readonly series: ReadonlyArray<Series>
}) => {
  const { title, days, series } = props
  const host = useRef<HTMLDivElement>(null)
  const [failed, setFailed] = useState(false)

  useEffect(() => {
    const el = host.current
    if (!el) return
    let plot: uPlot | undefined
    let gone = false
    const resize = new ResizeObserver(() => plot?.setSize({ width: Math.max(el.clientWidth, 200), height: 180 }))
    import("uplot").then(
      ({ default: Plot }) => {
        if (gone) return
        plot = draw(Plot, el, days, series)
        resize.observe(el)
      },
      () => setFailed(true)
    )
    return () => {
      gone = true
      resize.disconnect()
      plot?.destroy()
    }
  }, [days, series])

  const label = `${title} by day, ${days[0]} to ${days[days.length - 1]} (UTC). ${summary(days, series)}.`
  return (
    <figure class="chart">
      <figcaption>{title}</figcaption>
      <div ref={host} class="plot" role="img" aria-label={label} />
      {failed ? <p class="state error">The chart could not be drawn; the figures are in the table below.</p> : null}
      <details>
        <summary>{title}: figures by day</summary>
        <TableWrap label={`${title} by day`}>
          <table>
            <thead>
              <tr>
                <th scope="col">Day (UTC)</th>
                {series.map((each) => (
                  <th scope="col" key={each.label} class="num">
                    {each.label}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {days.map((day, i) => (
                <tr key={day}>
                  <th scope="row">{day}</th>
                  {series.map((each) => (
                    <td key={each.label} class="num">
                      {each.format(each.values[i] ?? 0)}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      </details>
    </figure>
  )
}
