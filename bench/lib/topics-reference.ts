/**
 * What the topic benchmark measures against: clustering quality figures
 * (purity, normalised mutual information) and a plain reference, TF-IDF
 * (search tokens, raw counts × smoothed idf, L2) with k-means (k-means++
 * seeds, k = the ceiling), the textbook method the topic clustering has to
 * beat.
 */
import { tokensOf } from "../../src/topics/Terms.js"
import { kMeans, type SparseVector, seededRandom } from "../../src/topics/Vectors.js"

/** Purity: each cluster counted as its most common label; share of threads that are then right. */
export const purity = (clusters: ReadonlyArray<string>, labels: ReadonlyArray<string>): number => {
  const byCluster = new Map<string, Map<string, number>>()
  clusters.forEach((c, i) => {
    const counts = byCluster.get(c) ?? new Map<string, number>()
    const label = labels[i] ?? ""
    counts.set(label, (counts.get(label) ?? 0) + 1)
    byCluster.set(c, counts)
  })
  let right = 0
  for (const counts of byCluster.values()) right += Math.max(...counts.values())
  return clusters.length === 0 ? 1 : right / clusters.length
}

const entropy = (counts: Iterable<number>, n: number): number => {
  let h = 0
  for (const c of counts) if (c > 0) h -= (c / n) * Math.log(c / n)
  return h
}

/** NMI with the arithmetic mean of the entropies (scikit-learn's default): 2·I(C;Y) / (H(C) + H(Y)). */
export const nmi = (clusters: ReadonlyArray<string>, labels: ReadonlyArray<string>): number => {
  const n = clusters.length
  if (n === 0) return 1
  const cCount = new Map<string, number>()
  const yCount = new Map<string, number>()
  const joint = new Map<string, number>()
  clusters.forEach((c, i) => {
    const y = labels[i] ?? ""
    cCount.set(c, (cCount.get(c) ?? 0) + 1)
    yCount.set(y, (yCount.get(y) ?? 0) + 1)
    const key = `${c}\u0000${y}`
    joint.set(key, (joint.get(key) ?? 0) + 1)
  })
  let mutual = 0
  for (const [key, count] of joint) {
    const [c = "", y = ""] = key.split("\u0000")
    mutual += (count / n) * Math.log((count * n) / ((cCount.get(c) ?? 1) * (yCount.get(y) ?? 1)))
  }
  const hc = entropy(cCount.values(), n)
  const hy = entropy(yCount.values(), n)
  return hc + hy === 0 ? 1 : (2 * mutual) / (hc + hy)
}

/** The reference: plain TF-IDF over search tokens and k-means with k = ceiling; a cluster number per thread. */
export const referenceClusters = (texts: ReadonlyArray<ReadonlyArray<string>>, k: number, seed = 26): Array<number> => {
  const counts = texts.map((thread) => {
    const m = new Map<string, number>()
    for (const text of thread) for (const token of tokensOf(text)) m.set(token, (m.get(token) ?? 0) + 1)
    return m
  })
  const df = new Map<string, number>()
  for (const m of counts) for (const term of m.keys()) df.set(term, (df.get(term) ?? 0) + 1)
  const index = new Map([...df.keys()].sort().map((term, i) => [term, i] as const))
  const n = texts.length
  const vectors = counts.map((m): SparseVector => {
    const entries = [...m]
      .map(([term, count]) => {
        const d = df.get(term) ?? 1
        return [index.get(term) ?? 0, count * (Math.log((1 + n) / (1 + d)) + 1)] as const
      })
      .sort((a, b) => a[0] - b[0])
    const norm = Math.sqrt(entries.reduce((s, [, v]) => s + v * v, 0)) || 1
    return { index: Int32Array.from(entries, (e) => e[0]), value: Float64Array.from(entries, (e) => e[1] / norm) }
  })
  const partition = kMeans(vectors, k, index.size, seededRandom(seed), 30)
  return [...partition.assign]
}
