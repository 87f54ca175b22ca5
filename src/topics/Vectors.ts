/**
 * The numeric core of topic clustering: sparse term vectors, spherical
 * k-means (cosine similarity, k-means++ seeding from a seeded generator, so
 * the same input gives the same clusters), term spread weights, a latent
 * semantic projection (randomised SVD), and the merge of clusters that are
 * one subject. No library: a few hundred lines, deterministic, and no
 * dependency to vet for the server.
 *
 * Centroids are dense and term-major (`C[term * k + cluster]`): assigning a
 * thread walks its few terms once and updates every cluster's score from
 * one contiguous row, which keeps 10,000 threads × 120 clusters well under
 * a second per iteration.
 */

/** A thread's weighted terms: term indexes ascending, L2-normalised values. */
export interface SparseVector {
  readonly index: Int32Array
  readonly value: Float64Array
}

/** A small seeded generator (mulberry32): k-means must not depend on Math.random. */
export const seededRandom = (seed: number): (() => number) => {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** Term counts of a thread over a vocabulary: index ascending, sublinear tf (1 + ln count). */
export interface TermRow {
  readonly index: Int32Array
  readonly tf: Float64Array
}

/** The vector of a row under per-term weights; empty (no terms) when nothing weighs. */
export const weigh = (row: TermRow, weights: Float64Array): SparseVector => {
  let norm = 0
  const value = new Float64Array(row.index.length)
  for (let j = 0; j < row.index.length; j++) {
    const v = (row.tf[j] ?? 0) * (weights[row.index[j] ?? 0] ?? 0)
    value[j] = v
    norm += v * v
  }
  if (norm === 0) return { index: new Int32Array(0), value: new Float64Array(0) }
  const scale = 1 / Math.sqrt(norm)
  for (let j = 0; j < value.length; j++) value[j] = (value[j] ?? 0) * scale
  return { index: row.index, value }
}

/** Dense term-major centroids (`C[term * k + cluster]`), each normalised; sizes alongside. */
export interface Centroids {
  readonly k: number
  readonly data: Float64Array
  readonly sizes: Int32Array
}

/** Centroids of an assignment (−1: not assigned): the normalised sum of members, so cosine is a dot product. */
export const centroidsOf = (
  vectors: ReadonlyArray<SparseVector>,
  assign: Int32Array,
  k: number,
  dim: number
): Centroids => {
  const data = new Float64Array(dim * k)
  const sizes = new Int32Array(k)
  vectors.forEach((vector, i) => {
    const c = assign[i] ?? -1
    if (c < 0) return
    sizes[c] = (sizes[c] ?? 0) + 1
    for (let j = 0; j < vector.index.length; j++) {
      const at = (vector.index[j] ?? 0) * k + c
      data[at] = (data[at] ?? 0) + (vector.value[j] ?? 0)
    }
  })
  const norms = new Float64Array(k)
  for (let t = 0; t < dim; t++) {
    for (let c = 0; c < k; c++) {
      const v = data[t * k + c] ?? 0
      norms[c] = (norms[c] ?? 0) + v * v
    }
  }
  for (let c = 0; c < k; c++) norms[c] = (norms[c] ?? 0) > 0 ? 1 / Math.sqrt(norms[c] ?? 1) : 0
  for (let t = 0; t < dim; t++) {
    for (let c = 0; c < k; c++) data[t * k + c] = (data[t * k + c] ?? 0) * (norms[c] ?? 0)
  }
  return { k, data, sizes }
}

/** Each vector to its most similar centroid (ties: the lower cluster); returns how many moved. */
export const assignNearest = (
  vectors: ReadonlyArray<SparseVector>,
  centroids: Centroids,
  assign: Int32Array,
  similarity: Float64Array
): number => {
  const { k, data } = centroids
  const scores = new Float64Array(k)
  let moved = 0
  vectors.forEach((vector, i) => {
    if (vector.index.length === 0) {
      assign[i] = -1
      similarity[i] = 0
      return
    }
    scores.fill(0)
    for (let j = 0; j < vector.index.length; j++) {
      const v = vector.value[j] ?? 0
      const base = (vector.index[j] ?? 0) * k
      for (let c = 0; c < k; c++) scores[c] = (scores[c] ?? 0) + v * (data[base + c] ?? 0)
    }
    let best = 0
    for (let c = 1; c < k; c++) if ((scores[c] ?? 0) > (scores[best] ?? 0)) best = c
    if (assign[i] !== best) moved++
    assign[i] = best
    similarity[i] = scores[best] ?? 0
  })
  return moved
}

/**
 * k-means++ seeding for cosine distance: each next seed is drawn with
 * probability proportional to the squared distance (1 − cosine) to the
 * nearest seed so far. Fewer than `k` seeds when the rest are duplicates.
 */
export const seedPlusPlus = (
  vectors: ReadonlyArray<SparseVector>,
  k: number,
  dim: number,
  random: () => number
): Array<number> => {
  const live: Array<number> = []
  vectors.forEach((vector, i) => {
    if (vector.index.length > 0) live.push(i)
  })
  if (live.length === 0 || k <= 0) return []
  const best = new Float64Array(vectors.length).fill(-1)
  const dense = new Float64Array(dim)
  const seeds: Array<number> = [live[Math.floor(random() * live.length)] ?? 0]
  while (seeds.length < k) {
    const center = vectors[seeds[seeds.length - 1] ?? 0]
    if (center === undefined) break
    for (let j = 0; j < center.index.length; j++) dense[center.index[j] ?? 0] = center.value[j] ?? 0
    let total = 0
    for (const i of live) {
      const vector = vectors[i]
      if (vector === undefined) continue
      let s = 0
      for (let j = 0; j < vector.index.length; j++) s += (vector.value[j] ?? 0) * (dense[vector.index[j] ?? 0] ?? 0)
      if (s > (best[i] ?? -1)) best[i] = s
      const d = Math.max(0, 1 - (best[i] ?? 0))
      total += d * d
    }
    for (let j = 0; j < center.index.length; j++) dense[center.index[j] ?? 0] = 0
    if (total <= 1e-12) break
    let r = random() * total
    let next = -1
    for (const i of live) {
      const d = Math.max(0, 1 - (best[i] ?? 0))
      r -= d * d
      if (d > 0) next = i
      if (r <= 0 && d > 0) break
    }
    if (next < 0) break
    seeds.push(next)
  }
  return seeds
}

/** The result of a clustering pass: an assignment (−1: empty vector), each thread's similarity to its centroid. */
export interface Partition {
  readonly k: number
  readonly assign: Int32Array
  readonly similarity: Float64Array
}

/**
 * Spherical k-means from a starting assignment. A cluster left empty takes
 * the thread least similar to its own centroid, so `k` clusters survive
 * whenever there are `k` distinct threads.
 */
export const refine = (
  vectors: ReadonlyArray<SparseVector>,
  start: Int32Array,
  k: number,
  dim: number,
  iterations: number
): Partition => {
  const assign = Int32Array.from(start)
  const similarity = new Float64Array(vectors.length)
  for (let round = 0; round < iterations; round++) {
    const centroids = centroidsOf(vectors, assign, k, dim)
    const moved = assignNearest(vectors, centroids, assign, similarity)
    const sizes = new Int32Array(k)
    for (const c of assign) if (c >= 0) sizes[c] = (sizes[c] ?? 0) + 1
    let reseeded = false
    for (let c = 0; c < k; c++) {
      if ((sizes[c] ?? 0) > 0) continue
      let worst = -1
      for (let i = 0; i < vectors.length; i++) {
        const from = assign[i] ?? -1
        if (from < 0 || (sizes[from] ?? 0) < 2) continue
        if (worst < 0 || (similarity[i] ?? 0) < (similarity[worst] ?? 0)) worst = i
      }
      if (worst < 0) break
      const from = assign[worst] ?? 0
      sizes[from] = (sizes[from] ?? 0) - 1
      sizes[c] = 1
      assign[worst] = c
      similarity[worst] = 1
      reseeded = true
    }
    if (moved === 0 && !reseeded && round > 0) break
  }
  return { k, assign, similarity }
}

/** k-means++ seeds, then spherical k-means; `k` may shrink when there are fewer distinct threads. */
export const kMeans = (
  vectors: ReadonlyArray<SparseVector>,
  k: number,
  dim: number,
  random: () => number,
  iterations: number
): Partition => {
  const seeds = seedPlusPlus(vectors, k, dim, random)
  const kk = seeds.length
  const assign = new Int32Array(vectors.length).fill(-1)
  if (kk === 0) return { k: 0, assign, similarity: new Float64Array(vectors.length) }
  const seedAssign = new Int32Array(vectors.length).fill(-1)
  seeds.forEach((i, c) => {
    seedAssign[i] = c
  })
  const centroids = centroidsOf(vectors, seedAssign, kk, dim)
  const similarity = new Float64Array(vectors.length)
  assignNearest(vectors, centroids, assign, similarity)
  return refine(vectors, assign, kk, dim, iterations)
}

/**
 * How concentrated each term is across the clusters of a first pass, in
 * (0, 1]: 1 − the normalised entropy of its per-cluster document rate. A
 * word every subject uses ("please", "的", "que") spreads evenly and weighs
 * almost nothing, in any language and with no stop list; a subject's own
 * words stay near 1.
 */
export const spreadWeights = (
  rows: ReadonlyArray<TermRow>,
  partition: Partition,
  dim: number,
  floor: number
): Float64Array => {
  const { k, assign } = partition
  const weights = new Float64Array(dim).fill(1)
  const sizes = new Int32Array(k)
  for (const c of assign) if (c >= 0) sizes[c] = (sizes[c] ?? 0) + 1
  const used = sizes.filter((size) => size > 0).length
  if (used < 2) return weights
  const counts = new Float32Array(dim * k)
  rows.forEach((row, i) => {
    const c = assign[i] ?? -1
    if (c < 0) return
    for (let j = 0; j < row.index.length; j++) {
      const at = (row.index[j] ?? 0) * k + c
      counts[at] = (counts[at] ?? 0) + 1
    }
  })
  const maxEntropy = Math.log(used)
  const rates = new Float64Array(k)
  for (let t = 0; t < dim; t++) {
    let total = 0
    for (let c = 0; c < k; c++) {
      const size = sizes[c] ?? 0
      const rate = size > 0 ? (counts[t * k + c] ?? 0) / size : 0
      rates[c] = rate
      total += rate
    }
    if (total === 0) continue
    let entropy = 0
    for (let c = 0; c < k; c++) {
      const p = (rates[c] ?? 0) / total
      if (p > 0) entropy -= p * Math.log(p)
    }
    weights[t] = Math.max(floor, 1 - entropy / maxEntropy)
  }
  return weights
}

/**
 * Merges clusters that are one subject, and keeps merging while there are
 * more than `ceiling`. k-means runs with more clusters than wanted (splitting
 * a subject and joining it back is safer than forcing two subjects into
 * one); two clusters are one subject when their threads are, on average, at
 * least `similarity` times as alike across the two as within each (average
 * linkage relative to cohesion, from the sums of unit vectors: no pairwise
 * thread comparisons). Returns the new assignment (clusters renumbered 0..).
 */
export const mergeClusters = (
  vectors: ReadonlyArray<SparseVector>,
  partition: Partition,
  dim: number,
  ceiling: number,
  similarity: number
): { readonly k: number; readonly assign: Int32Array } => {
  const { k, assign } = partition
  const sums: Array<Float64Array> = Array.from({ length: k }, () => new Float64Array(dim))
  const sizes = new Float64Array(k)
  vectors.forEach((vector, i) => {
    const c = assign[i] ?? -1
    const sum = sums[c]
    if (sum === undefined) return
    sizes[c] = (sizes[c] ?? 0) + 1
    for (let j = 0; j < vector.index.length; j++) {
      const t = vector.index[j] ?? 0
      sum[t] = (sum[t] ?? 0) + (vector.value[j] ?? 0)
    }
  })
  const alive: Array<boolean> = Array.from(sizes, (size) => size > 0)
  const dot = (a: Float64Array | undefined, b: Float64Array | undefined): number => {
    if (a === undefined || b === undefined) return 0
    let s = 0
    for (let t = 0; t < dim; t++) s += (a[t] ?? 0) * (b[t] ?? 0)
    return s
  }
  /** Mean similarity of two threads of the cluster (1 for a single thread). */
  const cohesion = (c: number): number => {
    const n = sizes[c] ?? 0
    return n < 2 ? 1 : Math.max(1e-6, (dot(sums[c], sums[c]) - n) / (n * (n - 1)))
  }
  const within = Float64Array.from({ length: k }, (_, c) => cohesion(c))
  const link = (a: number, b: number): number =>
    dot(sums[a], sums[b]) / ((sizes[a] ?? 1) * (sizes[b] ?? 1)) / Math.sqrt((within[a] ?? 1) * (within[b] ?? 1))
  const score = new Float64Array(k * k)
  for (let a = 0; a < k; a++) for (let b = a + 1; b < k; b++) score[a * k + b] = alive[a] && alive[b] ? link(a, b) : -1
  const target = Int32Array.from({ length: k }, (_, c) => c)
  let count = alive.filter(Boolean).length
  while (count > 1) {
    let bestA = -1
    let bestB = -1
    let best = Number.NEGATIVE_INFINITY
    for (let a = 0; a < k; a++) {
      if (!alive[a]) continue
      for (let b = a + 1; b < k; b++) {
        if (!alive[b]) continue
        const s = score[a * k + b] ?? -1
        if (s > best) {
          best = s
          bestA = a
          bestB = b
        }
      }
    }
    if (bestA < 0 || (count <= ceiling && best < similarity)) break
    const into = sums[bestA]
    const from = sums[bestB]
    if (into === undefined || from === undefined) break
    for (let t = 0; t < dim; t++) into[t] = (into[t] ?? 0) + (from[t] ?? 0)
    sizes[bestA] = (sizes[bestA] ?? 0) + (sizes[bestB] ?? 0)
    within[bestA] = cohesion(bestA)
    alive[bestB] = false
    for (let c = 0; c < k; c++) if (target[c] === bestB) target[c] = bestA
    count--
    for (let c = 0; c < k; c++) {
      if (!alive[c] || c === bestA) continue
      const s = link(bestA, c)
      if (c < bestA) score[c * k + bestA] = s
      else score[bestA * k + c] = s
    }
  }
  const renumber = new Int32Array(k).fill(-1)
  let next = 0
  for (let c = 0; c < k; c++) if (alive[c]) renumber[c] = next++
  const merged = assign.map((c) => (c < 0 ? -1 : (renumber[target[c] ?? 0] ?? -1)))
  return { k: next, assign: merged }
}

/** Orthonormalises the columns of a row-major `rows × cols` matrix in place (modified Gram–Schmidt). */
const orthonormalize = (m: Float64Array, rows: number, cols: number): void => {
  for (let c = 0; c < cols; c++) {
    for (let p = 0; p < c; p++) {
      let dot = 0
      for (let i = 0; i < rows; i++) dot += (m[i * cols + c] ?? 0) * (m[i * cols + p] ?? 0)
      for (let i = 0; i < rows; i++) m[i * cols + c] = (m[i * cols + c] ?? 0) - dot * (m[i * cols + p] ?? 0)
    }
    let norm = 0
    for (let i = 0; i < rows; i++) norm += (m[i * cols + c] ?? 0) ** 2
    const scale = norm > 1e-20 ? 1 / Math.sqrt(norm) : 0
    for (let i = 0; i < rows; i++) m[i * cols + c] = (m[i * cols + c] ?? 0) * scale
  }
}

/** Eigenvectors (columns of the returned row-major matrix) and eigenvalues of a symmetric matrix (cyclic Jacobi). */
const symmetricEigen = (a: Float64Array, r: number): { vectors: Float64Array; values: Float64Array } => {
  const m = Float64Array.from(a)
  const v = new Float64Array(r * r)
  for (let i = 0; i < r; i++) v[i * r + i] = 1
  for (let sweep = 0; sweep < 50; sweep++) {
    let off = 0
    for (let p = 0; p < r; p++) for (let q = p + 1; q < r; q++) off += (m[p * r + q] ?? 0) ** 2
    if (off < 1e-22) break
    for (let p = 0; p < r; p++) {
      for (let q = p + 1; q < r; q++) {
        const apq = m[p * r + q] ?? 0
        if (Math.abs(apq) < 1e-300) continue
        const app = m[p * r + p] ?? 0
        const aqq = m[q * r + q] ?? 0
        const theta = (aqq - app) / (2 * apq)
        const t = Math.sign(theta || 1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1))
        const c = 1 / Math.sqrt(t * t + 1)
        const s = t * c
        for (let k = 0; k < r; k++) {
          const mkp = m[k * r + p] ?? 0
          const mkq = m[k * r + q] ?? 0
          m[k * r + p] = c * mkp - s * mkq
          m[k * r + q] = s * mkp + c * mkq
        }
        for (let k = 0; k < r; k++) {
          const mpk = m[p * r + k] ?? 0
          const mqk = m[q * r + k] ?? 0
          m[p * r + k] = c * mpk - s * mqk
          m[q * r + k] = s * mpk + c * mqk
        }
        for (let k = 0; k < r; k++) {
          const vkp = v[k * r + p] ?? 0
          const vkq = v[k * r + q] ?? 0
          v[k * r + p] = c * vkp - s * vkq
          v[k * r + q] = s * vkp + c * vkq
        }
      }
    }
  }
  return { vectors: v, values: Float64Array.from({ length: r }, (_, i) => m[i * r + i] ?? 0) }
}

/**
 * Latent semantic analysis: the threads projected on the `rank` strongest
 * directions of the thread × term matrix (randomised SVD, seeded), rows
 * L2-normalised, as dense vectors in the `SparseVector` shape (index 0..rank).
 * Why: two threads of one subject often share no word ("my bread never
 * rises", "which flour for pizza dough"), but their words co-occur in other
 * threads; the projection puts such words, and so the threads, close.
 */
export const latentSemantic = (
  vectors: ReadonlyArray<SparseVector>,
  dim: number,
  rank: number,
  random: () => number,
  powerIterations = 2
): Array<SparseVector> => {
  const n = vectors.length
  const r = Math.max(1, Math.min(rank, n, dim))
  // Y = A Ω, then power iterations (Y = A Aᵀ Y) so the leading directions stand out.
  const omega = new Float64Array(dim * r)
  for (let i = 0; i < omega.length; i++) omega[i] = random() * 2 - 1
  const times = (right: Float64Array): Float64Array => {
    const y = new Float64Array(n * r)
    vectors.forEach((vector, i) => {
      for (let j = 0; j < vector.index.length; j++) {
        const v = vector.value[j] ?? 0
        const base = (vector.index[j] ?? 0) * r
        for (let c = 0; c < r; c++) y[i * r + c] = (y[i * r + c] ?? 0) + v * (right[base + c] ?? 0)
      }
    })
    return y
  }
  const timesTransposed = (left: Float64Array): Float64Array => {
    const z = new Float64Array(dim * r)
    vectors.forEach((vector, i) => {
      for (let j = 0; j < vector.index.length; j++) {
        const v = vector.value[j] ?? 0
        const base = (vector.index[j] ?? 0) * r
        for (let c = 0; c < r; c++) z[base + c] = (z[base + c] ?? 0) + v * (left[i * r + c] ?? 0)
      }
    })
    return z
  }
  let q = times(omega)
  orthonormalize(q, n, r)
  for (let round = 0; round < powerIterations; round++) {
    const z = timesTransposed(q)
    orthonormalize(z, dim, r)
    q = times(z)
    orthonormalize(q, n, r)
  }
  // B = Qᵀ A (stored transposed, dim × r); B Bᵀ = its r × r Gram matrix; A V = Q U Σ.
  const bt = timesTransposed(q)
  const gram = new Float64Array(r * r)
  for (let t = 0; t < dim; t++) {
    for (let a = 0; a < r; a++) {
      const x = bt[t * r + a] ?? 0
      if (x === 0) continue
      for (let b = a; b < r; b++) gram[a * r + b] = (gram[a * r + b] ?? 0) + x * (bt[t * r + b] ?? 0)
    }
  }
  for (let a = 0; a < r; a++) for (let b = 0; b < a; b++) gram[a * r + b] = gram[b * r + a] ?? 0
  const { vectors: u, values } = symmetricEigen(gram, r)
  const index = Int32Array.from({ length: r }, (_, c) => c)
  return vectors.map((vector, i) => {
    if (vector.index.length === 0) return vector
    const value = new Float64Array(r)
    let norm = 0
    for (let c = 0; c < r; c++) {
      let s = 0
      for (let a = 0; a < r; a++) s += (q[i * r + a] ?? 0) * (u[a * r + c] ?? 0)
      s *= Math.sqrt(Math.max(0, values[c] ?? 0))
      value[c] = s
      norm += s * s
    }
    if (norm === 0) return { index: new Int32Array(0), value: new Float64Array(0) }
    for (let c = 0; c < r; c++) value[c] = (value[c] ?? 0) / Math.sqrt(norm)
    return { index, value }
  })
}
