/**
 * Topics: what a project's users talk about, found in their own words with
 * no outside service (issue 26). Pure functions; the job, the API and the
 * dashboard store and show what these return.
 *
 * A full run (`clusterTopics`): each thread's user text becomes terms as
 * search indexes them plus bigrams (Terms.ts); terms in too few threads
 * (noise) or in over half of them (function words) are dropped; the rest are
 * weighted by sublinear tf × idf. A first spherical k-means (k-means++ seeds
 * from a fixed seed, twice the ceiling) says how each term spreads over
 * subjects: words every subject uses (stop words of any language, with no
 * list) lose their weight. The reweighted vectors are projected on their
 * strongest latent directions (LSA: two threads of one subject often share
 * no word, but their words co-occur elsewhere), clustered again (the best of
 * a few starts), clusters are merged while above the ceiling or while two
 * are about as alike across as within (relative average linkage,
 * `mergeSimilarity`), refined, and clusters under `minTopicShare` of the
 * threads are dissolved into their nearest neighbour. Each topic is labelled
 * by its most distinctive terms (class-based TF-IDF, frequent in the topic
 * and rare elsewhere, a phrase counting no more than its weakest word).
 *
 * Between full runs (`placeThread`): a new thread goes to the topic whose
 * stored centroid it is most similar to, or to none when it is less similar
 * than that topic's own least typical members; `measureChange` says how far
 * the new threads have moved away from the last full run.
 *
 * Ids: a topic takes the id of the previous run's topic when it holds more
 * than half of that topic's surviving threads and more than half of its own
 * threads come from it (each previous topic can lend its id once); otherwise
 * a fresh id derived from its members, so the same input gives the same ids.
 */
import { isUnspaced, termCounts } from "./Terms.js"
import {
  centroidsOf,
  kMeans,
  latentSemantic,
  mergeClusters,
  type Partition,
  refine,
  type SparseVector,
  seededRandom,
  spreadWeights,
  type TermRow,
  weigh
} from "./Vectors.js"

/** A thread as topics see it: its user messages' text and its times (epoch ms). */
export interface TopicThread {
  readonly id: string
  readonly texts: ReadonlyArray<string>
  readonly createdAt: number
  readonly lastMessageAt: number
}

/** A topic of the previous full run, for stable ids. */
export interface PreviousTopic {
  readonly id: string
  readonly members: ReadonlyArray<string>
}

export interface TopicTerm {
  readonly term: string
  readonly weight: number
}

export interface Topic {
  readonly id: string
  /** Whether the id was carried over from the previous run. */
  readonly carried: boolean
  /** Its three most distinctive terms, comma-separated. */
  readonly label: string
  /** Up to ten distinctive terms, most distinctive first (class-based TF-IDF). */
  readonly terms: ReadonlyArray<TopicTerm>
  /** Member thread ids, sorted. */
  readonly members: ReadonlyArray<string>
  readonly firstAt: number
  readonly lastAt: number
  /** Members whose last message is within the last window (`windowMs` before `now`), and within the window before. */
  readonly recent: number
  readonly before: number
  /** The centroid's heaviest terms (L2-normalised), for placing new threads. */
  readonly centroid: ReadonlyArray<TopicTerm>
  /** A new thread less similar than this to the centroid is not placed here. */
  readonly threshold: number
}

/** What a full run produces; JSON-safe, so the job can store it and place threads later. */
export interface TopicModel {
  readonly version: 1
  /** Threads clustered (with at least one usable term). */
  readonly threads: number
  /** Threads with no usable term (greetings only, numbers, empty): in no topic. */
  readonly unassigned: ReadonlyArray<string>
  /** The weight (idf × spread) of every term a centroid holds. */
  readonly vocabulary: ReadonlyArray<TopicTerm>
  readonly topics: ReadonlyArray<Topic>
}

export interface ClusterOptions {
  /** At most this many topics (the project's topic ceiling, 10..60). */
  readonly ceiling: number
  readonly previous?: ReadonlyArray<PreviousTopic>
  readonly seed?: number
  /**
   * Under the ceiling, two clusters still merge when their threads are at least this alike across the two,
   * relative to within each (default 0.5: near-duplicates only; the ceiling does most of the merging).
   */
  readonly mergeSimilarity?: number
  /** Topics smaller than this share of the threads are dissolved into their nearest neighbour. */
  readonly minTopicShare?: number
  /** k-means starts to pick the best of (default 4, 2 past 3,000 threads). */
  readonly restarts?: number
  /** Dimensions of the latent semantic space threads are clustered in (0: cluster the term vectors). */
  readonly rank?: number
  /** The time `recent` counts back from; default: the latest last message. */
  readonly now?: number
  readonly windowMs?: number
  /** A fresh id for a topic with these members; default: `topic_` and a hash of them. */
  readonly freshId?: (members: ReadonlyArray<string>) => string
}

const DEFAULTS = {
  seed: 26,
  mergeSimilarity: 0.5,
  minTopicShare: 0.01,
  windowMs: 7 * 24 * 3600 * 1000,
  maxFeatures: 30_000,
  maxDfShare: 0.5,
  /** Under this many threads one subject may well be most of them: only words in 80 % of them are dropped. */
  smallThreads: 200,
  smallMaxDfShare: 0.8,
  spreadFloor: 0.02,
  iterations: 30,
  centroidTerms: 200,
  minRank: 40,
  maxRank: 120,
  labelTerms: 10
} as const

/** A 64-bit FNV-1a of the text, as 16 hex digits: fresh ids that depend only on the members. */
const hash64 = (text: string): string => {
  let h1 = 0x811c9dc5
  let h2 = 0x01000193
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    h1 = Math.imul(h1 ^ code, 0x01000193) >>> 0
    h2 = Math.imul(h2 ^ code ^ (h1 >>> 7), 0x01000193) >>> 0
  }
  return h1.toString(16).padStart(8, "0") + h2.toString(16).padStart(8, "0")
}

const defaultFreshId = (members: ReadonlyArray<string>): string => `topic_${hash64(members.join("\n"))}`

const compareText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0)

/** The vocabulary of a run: terms in enough threads and not in most of them, with their idf. */
interface Features {
  readonly terms: ReadonlyArray<string>
  readonly idf: Float64Array
  readonly rows: ReadonlyArray<TermRow>
  /** Terms dropped for being in too many threads. */
  readonly common: ReadonlySet<string>
}

const featuresOf = (counts: ReadonlyArray<Map<string, number>>): Features => {
  const n = counts.length
  const df = new Map<string, number>()
  for (const thread of counts) for (const term of thread.keys()) df.set(term, (df.get(term) ?? 0) + 1)
  // Small inputs keep every term: there is no "too rare" or "too common" among a handful of threads.
  const minDf = n < 20 ? 1 : Math.max(2, Math.ceil(n * 0.0005))
  const maxDf =
    n < 20 ? n : Math.floor(n * (n < DEFAULTS.smallThreads ? DEFAULTS.smallMaxDfShare : DEFAULTS.maxDfShare))
  const kept = [...df]
    .filter(([, d]) => d >= minDf && d <= maxDf)
    .sort((a, b) => b[1] - a[1] || compareText(a[0], b[0]))
    .slice(0, DEFAULTS.maxFeatures)
  const index = new Map<string, number>()
  const idf = new Float64Array(kept.length)
  kept.forEach(([term, d], i) => {
    index.set(term, i)
    idf[i] = Math.log((1 + n) / (1 + d)) + 1
  })
  const rows = counts.map((thread): TermRow => {
    const entries: Array<readonly [number, number]> = []
    for (const [term, count] of thread) {
      const at = index.get(term)
      if (at !== undefined) entries.push([at, 1 + Math.log(count)])
    }
    entries.sort((a, b) => a[0] - b[0])
    return { index: Int32Array.from(entries, (e) => e[0]), tf: Float64Array.from(entries, (e) => e[1]) }
  })
  const common = new Set<string>()
  for (const [term, d] of df) if (d > maxDf) common.add(term)
  return { terms: kept.map(([term]) => term), idf, rows, common }
}

/** Members of each cluster (thread indexes), clusters renumbered by size (largest first), then first member. */
const groupsOf = (assign: Int32Array, k: number, ids: ReadonlyArray<string>): Array<Array<number>> => {
  const groups: Array<Array<number>> = Array.from({ length: k }, () => [])
  assign.forEach((c, i) => {
    if (c >= 0) groups[c]?.push(i)
  })
  return groups
    .filter((g) => g.length > 0)
    .sort((a, b) => b.length - a.length || compareText(ids[a[0] ?? 0] ?? "", ids[b[0] ?? 0] ?? ""))
}

/** Dissolves clusters under `minSize` into the nearest remaining one (when at least one is large enough). */
const dissolveSmall = (
  vectors: ReadonlyArray<SparseVector>,
  partition: Partition,
  dim: number,
  minSize: number
): Partition => {
  const { k, assign } = partition
  const sizes = new Int32Array(k)
  for (const c of assign) if (c >= 0) sizes[c] = (sizes[c] ?? 0) + 1
  const keep: Array<number> = []
  for (let c = 0; c < k; c++) if ((sizes[c] ?? 0) >= minSize) keep.push(c)
  if (keep.length === 0 || keep.length === sizes.filter((s) => s > 0).length) return partition
  const renumber = new Int32Array(k).fill(-1)
  keep.forEach((c, i) => {
    renumber[c] = i
  })
  const start = assign.map((c) => (c < 0 ? -1 : (renumber[c] ?? -1)))
  // Threads of dissolved clusters join the nearest kept centroid (computed from the kept members only).
  const centroids = centroidsOf(vectors, start, keep.length, dim)
  const moved = Int32Array.from(start)
  const similarity = new Float64Array(vectors.length)
  const { data } = centroids
  const kk = keep.length
  vectors.forEach((vector, i) => {
    if ((start[i] ?? -1) >= 0 || (assign[i] ?? -1) < 0) return
    let best = 0
    let bestScore = -1
    for (let c = 0; c < kk; c++) {
      let s = 0
      for (let j = 0; j < vector.index.length; j++)
        s += (vector.value[j] ?? 0) * (data[(vector.index[j] ?? 0) * kk + c] ?? 0)
      if (s > bestScore) {
        bestScore = s
        best = c
      }
    }
    moved[i] = best
    similarity[i] = bestScore
  })
  return { k: kk, assign: moved, similarity }
}

/** The words of a term: a phrase's two words, a Chinese pair's two characters, or the word itself. */
const termParts = (term: string): Array<string> =>
  term.includes(" ") ? term.split(" ") : [...term].length > 1 && isUnspaced([...term][0] ?? "") ? [...term] : [term]

/**
 * Class-based TF-IDF: a term's share of a topic's threads × log(1 + the
 * average topic size / its threads overall). A word every topic has scores
 * near zero; a word most of one topic's threads share and few others do
 * scores highest.
 */
/** A keyword past the third keeps its place only at this share of the best one's weight. */
const KEYWORD_FLOOR = 0.25

const distinctiveTerms = (
  groups: ReadonlyArray<ReadonlyArray<number>>,
  rows: ReadonlyArray<TermRow>,
  terms: ReadonlyArray<string>,
  labelWeight: (t: number) => number,
  count: number
): Array<Array<TopicTerm>> => {
  const dim = terms.length
  const total = new Float64Array(dim)
  const perGroup = groups.map((group) => {
    const df = new Map<number, number>()
    for (const i of group) {
      const row = rows[i]
      if (row === undefined) continue
      for (const t of row.index) {
        df.set(t, (df.get(t) ?? 0) + 1)
        total[t] = (total[t] ?? 0) + 1
      }
    }
    return df
  })
  const average = groups.reduce((sum, g) => sum + g.length, 0) / Math.max(1, groups.length)
  return groups.map((group, g) => {
    const scored: Array<TopicTerm> = []
    for (const [t, df] of perGroup[g] ?? new Map<number, number>()) {
      const term = terms[t] ?? ""
      // One character of Chinese or Japanese says little on its own; its bigrams are the words.
      if (isUnspaced(term)) continue
      const weight = (df / group.length) * Math.log(1 + average / (total[t] ?? 1)) * labelWeight(t)
      if (weight > 0) scored.push({ term, weight })
    }
    scored.sort((a, b) => b.weight - a.weight || compareText(a.term, b.term))
    // Past the first three, a term far weaker than the best is noise ("with the", "reset for" in a small project).
    const floor = (scored[0]?.weight ?? 0) * KEYWORD_FLOOR
    return scored.slice(0, count).filter((term, i) => i < 3 || term.weight >= floor)
  })
}

/** Three terms that do not repeat each other's words, for the label. */
const labelOf = (terms: ReadonlyArray<TopicTerm>): string => {
  const chosen: Array<string> = []
  const covered = new Set<string>()
  for (const { term } of terms) {
    const parts = termParts(term)
    if (parts.some((p) => covered.has(p))) continue
    chosen.push(term)
    for (const p of parts) covered.add(p)
    if (chosen.length === 3) break
  }
  return chosen.join(", ")
}

/** Ids for the new topics: carried from the previous run where both sides mostly agree, else fresh. */
const assignIds = (
  groups: ReadonlyArray<ReadonlyArray<string>>,
  present: ReadonlySet<string>,
  previous: ReadonlyArray<PreviousTopic>,
  freshId: (members: ReadonlyArray<string>) => string
): Array<{ readonly id: string; readonly carried: boolean }> => {
  const previousOf = new Map<string, number>()
  const surviving = previous.map((topic, p) => {
    let count = 0
    for (const member of topic.members) {
      if (!present.has(member) || previousOf.has(member)) continue
      previousOf.set(member, p)
      count++
    }
    return count
  })
  const taken = new Set<string>()
  const ids = groups.map((members) => {
    const overlap = new Map<number, number>()
    let old = 0
    for (const member of members) {
      const p = previousOf.get(member)
      if (p === undefined) continue
      old++
      overlap.set(p, (overlap.get(p) ?? 0) + 1)
    }
    let best = -1
    let bestOverlap = 0
    for (const [p, shared] of overlap) {
      if (shared > bestOverlap || (shared === bestOverlap && p < best)) {
        best = p
        bestOverlap = shared
      }
    }
    const carried = previous[best]
    // More than half on both sides: each previous topic can then match one new topic at most.
    if (carried !== undefined && bestOverlap * 2 > old && bestOverlap * 2 > (surviving[best] ?? 0)) {
      if (!taken.has(carried.id)) {
        taken.add(carried.id)
        return { id: carried.id, carried: true }
      }
    }
    return undefined
  })
  for (const topic of previous) taken.add(topic.id)
  return ids.map((found, g) => {
    if (found !== undefined) return found
    const base = freshId(groups[g] ?? [])
    let id = base
    for (let n = 2; taken.has(id); n++) id = `${base}_${n}`
    taken.add(id)
    return { id, carried: false }
  })
}

/** A vector over a stored vocabulary: known terms only, so members and new threads are measured alike. */
const placementVector = (
  counts: ReadonlyMap<string, number>,
  weights: ReadonlyMap<string, number>
): Map<string, number> => {
  const vector = new Map<string, number>()
  let norm = 0
  for (const [term, count] of counts) {
    const weight = weights.get(term)
    if (weight === undefined) continue
    const v = (1 + Math.log(count)) * weight
    vector.set(term, v)
    norm += v * v
  }
  if (norm > 0) for (const [term, v] of vector) vector.set(term, v / Math.sqrt(norm))
  return vector
}

const dotWith = (vector: ReadonlyMap<string, number>, centroid: ReadonlyArray<TopicTerm>): number => {
  let s = 0
  for (const { term, weight } of centroid) s += weight * (vector.get(term) ?? 0)
  return s
}

const quantile = (values: ReadonlyArray<number>, q: number): number => {
  if (values.length === 0) return 0
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0
}

/** A centroid's heaviest terms, renormalised. */
const truncateCentroid = (
  group: ReadonlyArray<number>,
  vectors: ReadonlyArray<SparseVector>,
  terms: ReadonlyArray<string>,
  size: number
): Array<TopicTerm> => {
  const sum = new Map<number, number>()
  for (const i of group) {
    const vector = vectors[i]
    if (vector === undefined) continue
    for (let j = 0; j < vector.index.length; j++) {
      const t = vector.index[j] ?? 0
      sum.set(t, (sum.get(t) ?? 0) + (vector.value[j] ?? 0))
    }
  }
  const top = [...sum]
    .sort((a, b) => b[1] - a[1] || a[0] - b[0])
    .slice(0, size)
    .filter(([, v]) => v > 0)
  const norm = Math.sqrt(top.reduce((s, [, v]) => s + v * v, 0)) || 1
  return top.map(([t, v]) => ({ term: terms[t] ?? "", weight: v / norm }))
}

/** Groups threads into at most `options.ceiling` topics; deterministic for the same threads and options. */
export const clusterTopics = (threads: ReadonlyArray<TopicThread>, options: ClusterOptions): TopicModel => {
  const ceiling = Math.max(1, Math.floor(options.ceiling))
  const sorted = [...threads].sort((a, b) => compareText(a.id, b.id))
  const ids = sorted.map((t) => t.id)
  const counts = sorted.map((t) => termCounts(t.texts))
  const { terms, idf, rows, common } = featuresOf(counts)
  const dim = terms.length
  const random = seededRandom(options.seed ?? DEFAULTS.seed)

  // Pass 1 over tf-idf, with room to split; its clusters say which terms every subject uses.
  const first = weighAll(rows, idf)
  const live = first.filter((v) => v.index.length > 0).length
  const over = Math.min(live, ceiling * 2)
  const pass1 = kMeans(first, over, dim, random, DEFAULTS.iterations)
  const spread = spreadWeights(rows, pass1, dim, DEFAULTS.spreadFloor)
  const weights = idf.map((w, t) => w * (spread[t] ?? 1))

  // Pass 2: the same clusters re-fitted on the reweighted vectors, merged, refined, small ones dissolved.
  const vectors = weighAll(rows, weights)
  const useLsa = live >= 30 && (options.rank ?? 1) > 0
  const rank = Math.min(DEFAULTS.maxRank, Math.max(DEFAULTS.minRank, options.rank ?? 2 * ceiling + 20))
  const space = useLsa ? latentSemantic(vectors, dim, rank, random) : vectors
  const spaceDim = useLsa ? Math.min(rank, space.length, dim) : dim
  // Several starts (the first pass's clusters, then k-means++ seeds); the one whose threads sit closest to their centroids wins.
  // With a previous run that still covers most threads, start from its topics instead: a topic whose threads
  // did not change stays as it was (k-means from a fixed point does not move), so its id stays too.
  const warm = warmStart(ids, space, options.previous ?? [], live, ceiling)
  const restarts = Math.max(1, options.restarts ?? (live <= 3000 ? 4 : 2))
  let pass2 = refine(space, warm?.assign ?? pass1.assign, warm?.k ?? pass1.k, spaceDim, DEFAULTS.iterations)
  for (let start = 1; warm === undefined && start < restarts; start++) {
    const candidate = kMeans(space, over, spaceDim, random, DEFAULTS.iterations)
    if (total(candidate.similarity) > total(pass2.similarity)) pass2 = candidate
  }
  const merged = mergeClusters(space, pass2, spaceDim, ceiling, options.mergeSimilarity ?? DEFAULTS.mergeSimilarity)
  const minSize = Math.max(2, Math.ceil(live * (options.minTopicShare ?? DEFAULTS.minTopicShare)))
  // Dissolve and refine until every cluster is big enough and k-means is at rest (a rerun then starts at rest).
  let final = refine(space, merged.assign, merged.k, spaceDim, DEFAULTS.iterations)
  for (let round = 0; round < 5; round++) {
    const dissolved = dissolveSmall(space, final, spaceDim, minSize)
    if (dissolved === final) break
    final = refine(space, dissolved.assign, dissolved.k, spaceDim, DEFAULTS.iterations)
  }

  const groups = groupsOf(final.assign, final.k, ids)
  const memberIds = groups.map((g) => g.map((i) => ids[i] ?? "").sort(compareText))
  const named = assignIds(memberIds, new Set(ids), options.previous ?? [], options.freshId ?? defaultFreshId)
  const termIndex = new Map(terms.map((term, t) => [term, t] as const))
  // A label term must be a subject's word: weighed by its spread over the final topics, and a phrase also by
  // its weakest word's ("the tracking", "do keep", 们支 of 你们支持 fall back behind "tracking", 快递).
  const topicSpread = spreadWeights(rows, final, dim, DEFAULTS.spreadFloor)
  const partWeight = (part: string): number => {
    if (common.has(part)) return DEFAULTS.spreadFloor
    const at = termIndex.get(part)
    return at === undefined ? 1 : (topicSpread[at] ?? 1)
  }
  const labelWeight = (t: number): number => {
    const parts = termParts(terms[t] ?? "")
    const own = topicSpread[t] ?? 1
    return parts.length < 2 ? own : own * Math.min(...parts.map(partWeight))
  }
  const distinctive = distinctiveTerms(groups, rows, terms, labelWeight, DEFAULTS.labelTerms)
  const centroids = groups.map((g) => truncateCentroid(g, vectors, terms, DEFAULTS.centroidTerms))
  const vocabulary = new Map<string, number>()
  for (const centroid of centroids) {
    for (const { term } of centroid) vocabulary.set(term, weights[termIndex.get(term) ?? 0] ?? 0)
  }

  const now = options.now ?? sorted.reduce((max, t) => Math.max(max, t.lastMessageAt), 0)
  const windowMs = options.windowMs ?? DEFAULTS.windowMs
  const topics = groups.map((group, g): Topic => {
    const members = group.map((i) => sorted[i]).filter((t) => t !== undefined)
    const centroid = centroids[g] ?? []
    const similarities = group.map((i) => dotWith(placementVector(counts[i] ?? new Map(), vocabulary), centroid))
    const terms = distinctive[g] ?? []
    return {
      id: named[g]?.id ?? "",
      carried: named[g]?.carried ?? false,
      label: labelOf(terms),
      terms,
      members: memberIds[g] ?? [],
      firstAt: members.reduce((min, t) => Math.min(min, t.createdAt), Number.POSITIVE_INFINITY),
      lastAt: members.reduce((max, t) => Math.max(max, t.lastMessageAt), 0),
      recent: members.filter((t) => t.lastMessageAt > now - windowMs && t.lastMessageAt <= now).length,
      before: members.filter((t) => t.lastMessageAt > now - 2 * windowMs && t.lastMessageAt <= now - windowMs).length,
      centroid,
      // Below most of its own members (the 5th percentile, with some slack): not this topic.
      threshold: Math.max(0.05, quantile(similarities, 0.05) * 0.8)
    }
  })
  const unassigned = ids.filter((_, i) => (final.assign[i] ?? -1) < 0)
  return {
    version: 1,
    threads: ids.length - unassigned.length,
    unassigned,
    vocabulary: [...vocabulary].map(([term, weight]) => ({ term, weight })).sort((a, b) => compareText(a.term, b.term)),
    topics
  }
}

/**
 * The previous topics as a starting assignment (−1: a thread in none), when they hold at least half the
 * threads and are not far fewer than the ceiling allows.
 */
const warmStart = (
  ids: ReadonlyArray<string>,
  space: ReadonlyArray<SparseVector>,
  previous: ReadonlyArray<PreviousTopic>,
  live: number,
  ceiling: number
): { readonly k: number; readonly assign: Int32Array } | undefined => {
  if (previous.length === 0) return undefined
  const at = new Map(ids.map((id, i) => [id, i] as const))
  const assign = new Int32Array(ids.length).fill(-1)
  let k = 0
  let covered = 0
  for (const topic of previous) {
    let members = 0
    for (const member of topic.members) {
      const i = at.get(member)
      if (i === undefined || (assign[i] ?? -1) >= 0 || (space[i]?.index.length ?? 0) === 0) continue
      assign[i] = k
      members++
    }
    if (members > 0) k++
    covered += members
  }
  // Fewer than half the topics a fresh run may make (a raised ceiling, a first run on a handful of threads): start afresh.
  return covered * 2 >= live && k * 2 >= Math.min(ceiling, live) ? { k, assign } : undefined
}

const total = (values: Float64Array): number => values.reduce((sum, v) => sum + v, 0)

const weighAll = (rows: ReadonlyArray<TermRow>, weights: Float64Array): Array<SparseVector> =>
  rows.map((row) => weigh(row, weights))

/** Where a new thread goes between full runs. */
export interface Placement {
  readonly topicId: string
  readonly similarity: number
}

/** A topic as placement needs it: its centroid, its threshold and its size. */
export interface PlacedTopic {
  readonly id: string
  readonly centroid: ReadonlyArray<TopicTerm>
  readonly threshold: number
  readonly size: number
}

/** What a full run leaves for placing threads until the next one (the job stores it; members are not in it). */
export interface PlacementModel {
  readonly version: 1
  readonly threads: number
  readonly vocabulary: ReadonlyArray<TopicTerm>
  readonly topics: ReadonlyArray<PlacedTopic>
}

export const toPlacementModel = (model: TopicModel): PlacementModel => ({
  version: 1,
  threads: model.threads,
  vocabulary: model.vocabulary,
  topics: model.topics.map((topic) => ({
    id: topic.id,
    centroid: topic.centroid,
    threshold: topic.threshold,
    size: topic.members.length
  }))
})

/** A prepared model: the lookups `placeThread` needs, built once for many threads. */
export interface PlacementIndex {
  readonly weights: ReadonlyMap<string, number>
  readonly topics: ReadonlyArray<Pick<Topic, "id" | "centroid" | "threshold">>
}

export const placementIndex = (model: TopicModel | PlacementModel): PlacementIndex => ({
  weights: new Map(model.vocabulary.map(({ term, weight }) => [term, weight] as const)),
  topics: model.topics
})

/** The nearest topic of a new thread, or undefined when it is not close enough to any (or has no known term). */
export const placeThread = (
  model: TopicModel | PlacementModel | PlacementIndex,
  thread: Pick<TopicThread, "texts">
): Placement | undefined => {
  const index = "version" in model ? placementIndex(model) : model
  const vector = placementVector(termCounts(thread.texts), index.weights)
  if (vector.size === 0) return undefined
  let best: Placement | undefined
  for (const topic of index.topics) {
    const similarity = dotWith(vector, topic.centroid)
    if (similarity < topic.threshold) continue
    if (best === undefined || similarity > best.similarity) best = { topicId: topic.id, similarity }
  }
  return best
}

/** How far the threads since the last full run have moved from it. */
export interface TopicChange {
  /** Threads the full run clustered. */
  readonly baseThreads: number
  /** Threads since, placed or not. */
  readonly newThreads: number
  readonly unplaced: number
  /** newThreads / baseThreads. */
  readonly newShare: number
  /** unplaced / newThreads. */
  readonly unplacedShare: number
  /**
   * Jensen–Shannon divergence (base 2, 0..1) between the topic mix of the
   * full run and that of the new threads, "unplaced" counted as a topic of
   * its own: 0 when people talk about the same things in the same
   * proportions, 1 when about entirely other things.
   */
  readonly shift: number
  /** newShare × shift, capped at 1: much new talk that differs from before. */
  readonly score: number
  /** Whether a full run is due (see `ChangeThresholds`). */
  readonly rerun: boolean
}

export interface ChangeThresholds {
  /** Rerun when the new threads are at least this share of the base (default 0.5). */
  readonly newShare?: number
  /** …or, with at least `minNew` new threads, this share of them unplaced (default 0.3)… */
  readonly unplacedShare?: number
  /** …or this much shift (default 0.25). */
  readonly shift?: number
  readonly minNew?: number
}

const entropyBits = (p: ReadonlyArray<number>): number => p.reduce((h, x) => (x > 0 ? h - x * Math.log2(x) : h), 0)

/** The change since the full run `model`, from the placements of the threads that came after it. */
export const measureChange = (
  model: TopicModel | PlacementModel,
  placements: ReadonlyArray<Placement | undefined>,
  thresholds: ChangeThresholds = {}
): TopicChange => {
  const baseThreads = model.threads
  const newThreads = placements.length
  const slot = new Map(model.topics.map((topic, i) => [topic.id, i] as const))
  const size = model.topics.length + 1
  const base = new Array<number>(size).fill(0)
  model.topics.forEach((topic, i) => {
    base[i] = ("size" in topic ? topic.size : topic.members.length) / Math.max(1, baseThreads)
  })
  const fresh = new Array<number>(size).fill(0)
  let unplaced = 0
  for (const placement of placements) {
    const at = placement === undefined ? undefined : slot.get(placement.topicId)
    if (at === undefined) unplaced++
    const i = at ?? size - 1
    fresh[i] = (fresh[i] ?? 0) + 1 / Math.max(1, newThreads)
  }
  const mix = base.map((b, i) => (b + (fresh[i] ?? 0)) / 2)
  const shift =
    newThreads === 0 || baseThreads === 0
      ? 0
      : Math.max(0, Math.min(1, entropyBits(mix) - (entropyBits(base) + entropyBits(fresh)) / 2))
  const newShare = newThreads / Math.max(1, baseThreads)
  const unplacedShare = unplaced / Math.max(1, newThreads)
  const minNew = thresholds.minNew ?? 20
  const rerun =
    baseThreads === 0
      ? newThreads > 0
      : newShare >= (thresholds.newShare ?? 0.5) ||
        (newThreads >= minNew &&
          (unplacedShare >= (thresholds.unplacedShare ?? 0.3) || shift >= (thresholds.shift ?? 0.25)))
  return {
    baseThreads,
    newThreads,
    unplaced,
    newShare,
    unplacedShare,
    shift,
    score: Math.min(1, newShare * shift),
    rerun
  }
}
