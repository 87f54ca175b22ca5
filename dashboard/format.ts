/** How values read: times in the browser's zone, counts grouped, money in dollars, durations in units. */

/** A formatter made on first use: the first one a page makes loads the browser's locale data (tens of ms). */
const lazily = <A>(make: () => A): (() => A) => {
  let made: A | undefined
  return () => {
    made ??= make()
    return made
  }
}

const dateTime = lazily(() => new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "medium" }))
const count = lazily(() => new Intl.NumberFormat())
const compact = lazily(() => new Intl.NumberFormat(undefined, { notation: "compact", maximumFractionDigits: 1 }))

/**
 * Makes the formatters now: main.tsx calls it once the first calls are on
 * their way, so the locale data loads while the page waits for the answers
 * instead of before the calls go out or while the view is drawn.
 */
export const prepareFormats = (): void => {
  dateTime()
  count()
}

export const formatTime = (at: Date): string => (Number.isNaN(at.getTime()) ? "—" : dateTime().format(at))

export const isoTime = (at: Date): string => (Number.isNaN(at.getTime()) ? "" : at.toISOString())

export const formatCount = (n: number | null | undefined): string => (n == null ? "—" : count().format(n))

/** A count in a few characters (an axis tick): 1.2K, 3M. */
export const formatCompact = (n: number): string => compact().format(n)

export const formatCost = (usd: number | null | undefined): string => {
  if (usd == null) return "—"
  if (usd === 0) return "$0"
  const digits = usd >= 100 ? 2 : usd >= 1 ? 3 : 5
  return `$${usd.toLocaleString(undefined, { maximumFractionDigits: digits })}`
}

export const formatDuration = (ms: number | null | undefined): string => {
  if (ms == null) return "—"
  if (ms === 0) return "0 ms"
  if (ms < 1) return `${ms.toFixed(2)} ms`
  if (ms < 999.5) return `${Math.round(ms)} ms`
  if (ms < 59_950) return `${(ms / 1000).toFixed(ms < 9_995 ? 2 : 1)} s`
  // Whole seconds first, so that 119.6 s reads "2 min 0 s", not "1 min 60 s".
  const seconds = Math.round(ms / 1000)
  return `${Math.floor(seconds / 60)} min ${seconds % 60} s`
}

/** Any JSON value readably: strings as they are, the rest indented. */
export const pretty = (value: unknown): string => {
  if (typeof value === "string") return value
  try {
    return JSON.stringify(value, null, 2) ?? String(value)
  } catch {
    return String(value)
  }
}

/** A string that holds JSON, indented; any other string as it is. */
export const prettyText = (value: unknown): string => {
  if (typeof value === "string" && /^\s*[[{]/.test(value)) {
    try {
      return JSON.stringify(JSON.parse(value), null, 2)
    } catch {
      return value
    }
  }
  return pretty(value)
}

/** A date input's YYYY-MM-DD as the start of that day in the browser's zone. */
export const dayStart = (day: string): Date | undefined => {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day)
  if (!match) return undefined
  const [year, month, date] = [Number(match[1]), Number(match[2]) - 1, Number(match[3])]
  const at = new Date(year, month, date)
  // A day the calendar has (not "2026-13-45", which Date would roll over), as a date input can show it.
  return at.getFullYear() === year && at.getMonth() === month && at.getDate() === date ? at : undefined
}

/** The start of the day after (an exclusive end for "to this day"). */
export const dayEnd = (day: string): Date | undefined => {
  const start = dayStart(day)
  return start && new Date(start.getFullYear(), start.getMonth(), start.getDate() + 1)
}

/** A UTC calendar day `daysBack` days before today. */
export const utcDay = (daysBack: number): string =>
  new Date(Date.now() - daysBack * 86_400_000).toISOString().slice(0, 10)
