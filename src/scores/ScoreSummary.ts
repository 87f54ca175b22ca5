/**
 * The arithmetic of a score summary, kept out of SQL: a numeric name's
 * bucket bounds (the database only compares values with them, see
 * ScoreSummaryRepo.histograms), and the ScoreSummary made from the rows:
 * every histogram with all its buckets (the empty ones too), categories and
 * boolean counts where the data type has them, empty or null elsewhere.
 */
import type { ScoreDistribution } from "../../schema/Dashboard.js"
import type { BucketRow, CategoryRow, NameRow } from "./ScoreSummaryRepo.js"

/** How many names a summary shows, most scored first. */
export const SUMMARY_NAMES_MAX = 50
/** How many values of a categorical name, most frequent first. */
export const SUMMARY_CATEGORIES_MAX = 20
/** How many buckets of equal width a numeric name's histogram has (one when every value is equal). */
export const SUMMARY_BUCKETS = 10

type Histogram = NonNullable<ScoreDistribution["histogram"]>

/**
 * The SUMMARY_BUCKETS + 1 bounds of equal width from min to max, the last max exactly; weighted
 * sums where max - min is past the largest double. Never decreasing.
 */
export const bucketEdges = (min: number, max: number): ReadonlyArray<number> => {
  const span = max - min
  return Array.from({ length: SUMMARY_BUCKETS + 1 }, (_, i) => {
    if (i === SUMMARY_BUCKETS) return max
    const t = i / SUMMARY_BUCKETS
    return Number.isFinite(span) ? min + span * t : min * (1 - t) + max * t
  })
}

/** A numeric name's values spread over more than one value: it has buckets to count. */
export const hasSpread = (row: NameRow): row is NameRow & { readonly min: number; readonly max: number } =>
  row.data_type === "numeric" && row.min !== null && row.max !== null && row.min < row.max

/** The bounds between buckets (each edge but the first and last), for the database to compare with. */
export const innerEdges = (row: { readonly min: number; readonly max: number }): ReadonlyArray<number> =>
  bucketEdges(row.min, row.max).slice(1, SUMMARY_BUCKETS)

const groupByName = <Row extends { readonly name: string }>(rows: ReadonlyArray<Row>) => {
  const groups = new Map<string, Array<Row>>()
  for (const row of rows) {
    const group = groups.get(row.name)
    if (group === undefined) groups.set(row.name, [row])
    else group.push(row)
  }
  return groups
}

const histogramOf = (row: NameRow, counted: ReadonlyArray<BucketRow>): Histogram | null => {
  const { min, max } = row
  if (min === null || max === null) return null
  // Every value equal: one bucket holds them all.
  if (!hasSpread(row)) return { min, max, buckets: [{ from: min, to: max, count: row.count }] }
  const counts = new Map(counted.map((bucket) => [bucket.bucket, bucket.count]))
  const edges = bucketEdges(min, max)
  const buckets = Array.from({ length: SUMMARY_BUCKETS }, (_, i) => ({
    from: edges[i] ?? min,
    to: edges[i + 1] ?? max,
    count: counts.get(i) ?? 0
  }))
  return { min, max, buckets }
}

export const assembleSummary = (
  names: ReadonlyArray<NameRow>,
  categories: ReadonlyArray<CategoryRow>,
  buckets: ReadonlyArray<BucketRow>
): { readonly names: ReadonlyArray<ScoreDistribution> } => {
  const categoriesByName = groupByName(categories)
  const bucketsByName = groupByName(buckets)
  return {
    names: names.map((row) => ({
      name: row.name,
      data_type: row.data_type,
      count: row.count,
      categories:
        row.data_type === "categorical"
          ? (categoriesByName.get(row.name) ?? []).map(({ value, count }) => ({ value, count }))
          : [],
      histogram: row.data_type === "numeric" ? histogramOf(row, bucketsByName.get(row.name) ?? []) : null,
      booleans: row.data_type === "boolean" ? { true: row.true_count, false: row.false_count } : null
    }))
  }
}
