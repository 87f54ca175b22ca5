/**
 * npm run bench:topics — the quality and speed of topic clustering
 * (src/topics, issue 26) on a labelled corpus (bench/lib/topics-corpus.ts:
 * eight subjects in English, Spanish and Chinese). For ceilings 10 and 30,
 * on each language alone and on the three mixed: purity and NMI against the
 * subjects, beside a plain TF-IDF + k-means reference run on the same
 * threads (bench/lib/topics-reference.ts), and the ratio. Then: the time to
 * cluster 10,000 threads; an unchanged rerun (ids kept); new threads placed
 * between full runs (placed in a topic of their own subject) and the change
 * measure, for more of the same and for a shift of subject.
 * Env: TOPICS_PER_CELL (threads per subject and language, 60: 1,440 threads),
 * TOPICS_BIG (threads in the timing run, 10000). Results: stdout, and JSON in
 * bench/results/topics-quality-<run>.json.
 */
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { clusterTopics, measureChange, placementIndex, placeThread, type TopicModel } from "../src/topics/Clustering.js"
import { intEnv, log, RESULTS, runId } from "./lib/settings.js"
import { LANGUAGES, type LabelledThread, makeCorpus } from "./lib/topics-corpus.js"
import { nmi, purity, referenceClusters } from "./lib/topics-reference.js"

const AIMS = { singleNmi: 0.75, mixedPurity: 0.75, mixedNmi: 0.65, bigSeconds: 60 } as const
const CEILINGS = [10, 30] as const

const perCell = Math.max(2, intEnv("TOPICS_PER_CELL", 60))
const bigN = Math.max(100, intEnv("TOPICS_BIG", 10_000))

const clustersOf = (model: TopicModel, threads: ReadonlyArray<LabelledThread>): Array<string> => {
  const topicOf = new Map<string, string>()
  for (const topic of model.topics) for (const member of topic.members) topicOf.set(member, topic.id)
  return threads.map((t) => topicOf.get(t.id) ?? "(none)")
}

const timed = <A>(run: () => A): { value: A; ms: number } => {
  const start = performance.now()
  const value = run()
  return { value, ms: performance.now() - start }
}

const f2 = (x: number) => x.toFixed(2)
const f3 = (x: number) => x.toFixed(3)

const corpus = makeCorpus({ perCell })
const sets = [
  ...LANGUAGES.map((language) => ({ name: language, threads: corpus.filter((t) => t.language === language) })),
  { name: "mixed", threads: corpus }
]
log(`corpus: ${corpus.length} threads (${perCell} per subject and language), 8 subjects × ${LANGUAGES.join(", ")}`)

interface Row {
  readonly set: string
  readonly ceiling: number
  readonly threads: number
  readonly topics: number
  readonly purity: number
  readonly nmi: number
  readonly ms: number
  readonly reference: { readonly topics: number; readonly purity: number; readonly nmi: number; readonly ms: number }
}

const rows: Array<Row> = []
const models = new Map<string, TopicModel>()
for (const ceiling of CEILINGS) {
  for (const set of sets) {
    const labels = set.threads.map((t) => t.subject)
    const ours = timed(() => clusterTopics(set.threads, { ceiling }))
    const clusters = clustersOf(ours.value, set.threads)
    // The reference reads the threads in the same (id) order the clustering does.
    const ordered = [...set.threads].sort((a, b) => (a.id < b.id ? -1 : 1))
    const reference = timed(() =>
      referenceClusters(
        ordered.map((t) => t.texts),
        ceiling
      )
    )
    const refClusters = reference.value.map(String)
    const refLabels = ordered.map((t) => t.subject)
    models.set(`${set.name}@${ceiling}`, ours.value)
    rows.push({
      set: set.name,
      ceiling,
      threads: set.threads.length,
      topics: ours.value.topics.length,
      purity: purity(clusters, labels),
      nmi: nmi(clusters, labels),
      ms: ours.ms,
      reference: {
        topics: new Set(refClusters).size,
        purity: purity(refClusters, refLabels),
        nmi: nmi(refClusters, refLabels),
        ms: reference.ms
      }
    })
  }
}

console.log("\nquality (purity / NMI against the 8 subjects; reference: plain TF-IDF + k-means, k = ceiling)")
console.log(
  "set    ceiling threads topics  purity   NMI   | ref topics purity   NMI  | ratio purity  NMI  |   ms  ref ms"
)
for (const r of rows) {
  console.log(
    `${r.set.padEnd(6)} ${String(r.ceiling).padStart(7)} ${String(r.threads).padStart(7)} ${String(r.topics).padStart(6)}` +
      `  ${f3(r.purity).padStart(6)} ${f3(r.nmi).padStart(6)} | ${String(r.reference.topics).padStart(10)} ${f3(r.reference.purity).padStart(6)} ${f3(r.reference.nmi).padStart(6)}` +
      ` | ${f2(r.purity / r.reference.purity).padStart(12)} ${f2(r.nmi / r.reference.nmi).padStart(5)}` +
      ` | ${r.ms.toFixed(0).padStart(5)} ${r.reference.ms.toFixed(0).padStart(6)}`
  )
}

const mixed30 = models.get("mixed@30")
if (mixed30 !== undefined) {
  console.log("\nmixed @ 30: topics (size, majority subject and language, label)")
  const byId = new Map(corpus.map((t) => [t.id, t] as const))
  for (const topic of mixed30.topics) {
    const tally = new Map<string, number>()
    for (const member of topic.members) {
      const t = byId.get(member)
      if (t !== undefined) tally.set(`${t.subject}/${t.language}`, (tally.get(`${t.subject}/${t.language}`) ?? 0) + 1)
    }
    const [major = "", count = 0] = [...tally].sort((a, b) => b[1] - a[1])[0] ?? []
    console.log(
      `  ${String(topic.members.length).padStart(4)}  ${major.padEnd(16)} ${f2(count / topic.members.length)}  ${topic.label}`
    )
  }
}

// Stability: the same threads again, with the first run as the previous one.
let stability = { carried: 0, topics: 0, sameMembers: true }
if (mixed30 !== undefined) {
  const again = clusterTopics(corpus, {
    ceiling: 30,
    previous: mixed30.topics.map((t) => ({ id: t.id, members: t.members }))
  })
  const before = new Map(mixed30.topics.map((t) => [t.id, t.members.join(",")] as const))
  stability = {
    carried: again.topics.filter((t) => t.carried).length,
    topics: again.topics.length,
    sameMembers: again.topics.every((t) => before.get(t.id) === t.members.join(","))
  }
  console.log(
    `\nunchanged rerun: ${stability.carried}/${stability.topics} ids carried, members identical: ${stability.sameMembers}`
  )
}

// Between full runs: cluster 90 % of the mixed corpus, place the other 10 %; then a shift of subject.
const held = corpus.filter((_, i) => i % 10 === 0)
const base = corpus.filter((_, i) => i % 10 !== 0)
const baseModel = clusterTopics(base, { ceiling: 30 })
const subjectOf = new Map(corpus.map((t) => [t.id, t.subject] as const))
const majority = new Map(
  baseModel.topics.map((topic) => {
    const tally = new Map<string, number>()
    for (const m of topic.members) tally.set(subjectOf.get(m) ?? "", (tally.get(subjectOf.get(m) ?? "") ?? 0) + 1)
    return [topic.id, [...tally].sort((a, b) => b[1] - a[1])[0]?.[0] ?? ""] as const
  })
)
const index = placementIndex(baseModel)
const placements = held.map((t) => placeThread(index, t))
const placed = placements.filter((p) => p !== undefined)
const placedRight = held.filter((t, i) => {
  const p = placements[i]
  return p !== undefined && majority.get(p.topicId) === t.subject
}).length
const same = measureChange(baseModel, placements)
const shiftedThreads = makeCorpus({ perCell: 60, subjects: ["cooking", "travel"], seed: 99, idPrefix: "new" })
const shifted = measureChange(
  baseModel,
  shiftedThreads.map((t) => placeThread(index, t))
)
const offCorpus = [
  { texts: ["The weather in my garden is perfect for tomatoes"] },
  { texts: ["Quelle est la meilleure saison pour planter des tulipes ?"] },
  { texts: ["量子计算机的原理是什么？"] }
].map((t) => placeThread(index, t))
console.log(
  `placement: ${held.length} held-out threads, ${placed.length} placed (${f3(placed.length / held.length)}), ` +
    `${placedRight} in a topic of their own subject (${f3(placedRight / Math.max(1, placed.length))} of placed)`
)
console.log(
  `change, more of the same: new ${f3(same.newShare)}, unplaced ${f3(same.unplacedShare)}, shift ${f3(same.shift)}, rerun ${same.rerun}`
)
console.log(
  `change, two subjects only (${shiftedThreads.length} threads): new ${f3(shifted.newShare)}, unplaced ${f3(shifted.unplacedShare)}, shift ${f3(shifted.shift)}, rerun ${shifted.rerun}`
)
console.log(`off-corpus threads placed: ${offCorpus.filter((p) => p !== undefined).length}/3`)

// Time: 10,000 threads (mixed), at ceilings 30 and 60; the reference at 30 beside it.
const big = makeCorpus({ perCell: Math.ceil(bigN / 24), seed: 7, idPrefix: "big" }).slice(0, bigN)
const bigRuns = [30, 60].map((ceiling) => {
  const run = timed(() => clusterTopics(big, { ceiling }))
  const labels = big.map((t) => t.subject)
  const clusters = clustersOf(run.value, big)
  return {
    ceiling,
    seconds: run.ms / 1000,
    topics: run.value.topics.length,
    purity: purity(clusters, labels),
    nmi: nmi(clusters, labels),
    modelBytes: JSON.stringify(run.value).length
  }
})
const bigReference = timed(() =>
  referenceClusters(
    [...big].sort((a, b) => (a.id < b.id ? -1 : 1)).map((t) => t.texts),
    30
  )
)
console.log(`\n${big.length} threads:`)
for (const r of bigRuns) {
  console.log(
    `  ceiling ${r.ceiling}: ${r.seconds.toFixed(1)} s, ${r.topics} topics, purity ${f3(r.purity)}, NMI ${f3(r.nmi)}, model JSON ${(r.modelBytes / 1024).toFixed(0)} KB`
  )
}
console.log(`  reference (ceiling 30): ${(bigReference.ms / 1000).toFixed(1)} s`)

const find = (set: string, ceiling: number) => rows.find((r) => r.set === set && r.ceiling === ceiling)
// Every language, at the ceiling nearest the corpus's eight subjects (at 30 each language is split finer: lower NMI).
const singleWorst = Math.min(...rows.filter((r) => r.set !== "mixed" && r.ceiling === 10).map((r) => r.nmi))
const m30 = find("mixed", 30)
const slowest = Math.max(...bigRuns.map((r) => r.seconds))
const aims = {
  singleLanguageNmi: { aim: AIMS.singleNmi, value: singleWorst, met: singleWorst >= AIMS.singleNmi },
  mixed30Purity: { aim: AIMS.mixedPurity, value: m30?.purity ?? 0, met: (m30?.purity ?? 0) >= AIMS.mixedPurity },
  mixed30Nmi: { aim: AIMS.mixedNmi, value: m30?.nmi ?? 0, met: (m30?.nmi ?? 0) >= AIMS.mixedNmi },
  bigSeconds: { aim: AIMS.bigSeconds, value: slowest, met: slowest < AIMS.bigSeconds }
}
console.log("\naims:")
for (const [name, a] of Object.entries(aims))
  console.log(`  ${name}: ${f3(a.value)} (aim ${a.aim}) ${a.met ? "met" : "MISSED"}`)

mkdirSync(RESULTS, { recursive: true })
const file = join(RESULTS, `topics-quality-${runId}.json`)
writeFileSync(
  file,
  `${JSON.stringify(
    {
      corpus: { threads: corpus.length, perCell, languages: LANGUAGES, subjects: 8 },
      rows,
      stability,
      placement: { held: held.length, placed: placed.length, placedRight, same, shifted },
      big: { threads: big.length, runs: bigRuns, referenceSeconds: bigReference.ms / 1000 },
      aims
    },
    null,
    2
  )}\n`
)
log(`results: ${file}`)
