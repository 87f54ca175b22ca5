/**
 * One score name's distribution in plain HTML: categories as bars, numbers
 * as a histogram, booleans as a ratio. Each bar's length is set through its
 * style property (a strict CSP allows that) and its figure is written out.
 */
import { useId } from "preact/hooks"
import type { ScoreDistribution } from "../../schema/Dashboard.js"
import { formatCount } from "../format.js"

const percent = (part: number, whole: number): number => (whole > 0 ? (part / whole) * 100 : 0)
const pctText = (part: number, whole: number): string => `${Math.round(percent(part, whole))}%`

/** Three significant digits, trailing zeros dropped (0.2, not 0.200). */
const number = (n: number): string => (Number.isInteger(n) ? String(n) : String(Number(n.toPrecision(3))))

const Bars = (props: { readonly rows: ReadonlyArray<{ readonly label: string; readonly count: number }> }) => {
  const max = Math.max(1, ...props.rows.map((row) => row.count))
  const total = props.rows.reduce((sum, row) => sum + row.count, 0)
  return (
    <table class="bars">
      <tbody>
        {props.rows.map((row) => (
          <tr key={row.label}>
            <th scope="row">{row.label}</th>
            <td class="bar-cell">
              <span class="hbar" style={{ width: `${percent(row.count, max)}%` }} />
            </td>
            <td class="num">
              {formatCount(row.count)} <span class="muted">({pctText(row.count, total)})</span>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  )
}

const Histogram = ({ value }: { readonly value: NonNullable<ScoreDistribution["histogram"]> }) => {
  const max = Math.max(1, ...value.buckets.map((bucket) => bucket.count))
  const label = value.buckets
    .map((bucket) => `${number(bucket.from)} to ${number(bucket.to)}: ${bucket.count}`)
    .join("; ")
  return (
    <figure class="histogram">
      <div
        class="columns"
        role="img"
        aria-label={`Histogram from ${number(value.min)} to ${number(value.max)}. ${label}`}
      >
        {value.buckets.map((bucket) => (
          <span
            key={bucket.from}
            class="column"
            title={`${number(bucket.from)} to ${number(bucket.to)}: ${formatCount(bucket.count)}`}
            style={{ height: `${percent(bucket.count, max)}%` }}
          />
        ))}
      </div>
      <figcaption class="range">
        <span>{number(value.min)}</span>
        <span>{number(value.max)}</span>
      </figcaption>
    </figure>
  )
}

const Ratio = ({ value }: { readonly value: NonNullable<ScoreDistribution["booleans"]> }) => {
  const total = value.true + value.false
  return (
    <div class="ratio">
      <div class="ratio-bar" aria-hidden="true">
        <span class="yes" style={{ width: `${percent(value.true, total)}%` }} />
      </div>
      <p>
        True {formatCount(value.true)} ({pctText(value.true, total)}) · False {formatCount(value.false)} (
        {pctText(value.false, total)})
      </p>
    </div>
  )
}

export const Distribution = ({ value }: { readonly value: ScoreDistribution }) => {
  const id = useId()
  return (
    <article class="distribution" aria-labelledby={id}>
      <h3 id={id}>
        {value.name}{" "}
        <span class="muted">
          · {value.data_type} · {formatCount(value.count)} scores
        </span>
      </h3>
      {value.data_type === "categorical" && value.categories.length > 0 ? (
        <Bars rows={value.categories.map((each) => ({ label: each.value, count: each.count }))} />
      ) : value.data_type === "numeric" && value.histogram ? (
        <Histogram value={value.histogram} />
      ) : value.data_type === "boolean" && value.booleans ? (
        <Ratio value={value.booleans} />
      ) : (
        <p class="muted">No distribution for these scores.</p>
      )}
    </article>
  )
}
