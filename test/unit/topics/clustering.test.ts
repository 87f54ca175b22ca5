/**
 * Topic clustering (src/topics): the ceiling, stable and deterministic ids,
 * placement of new threads, distinctive labels, Chinese text, tiny inputs
 * and the change measure. The corpus is the benchmark's labelled one
 * (bench/lib/topics-corpus.ts), small.
 */
import { describe, expect, it } from "vitest"
import { makeCorpus, type Subject } from "../../../bench/lib/topics-corpus.js"
import {
  clusterTopics,
  measureChange,
  placeThread,
  type Topic,
  type TopicModel,
  type TopicThread
} from "../../../src/topics/Clustering.js"
import { termCounts, tokensOf } from "../../../src/topics/Terms.js"

const english = makeCorpus({ perCell: 40, languages: ["en"], seed: 1 })
const chinese = makeCorpus({ perCell: 40, languages: ["zh"], seed: 2, idPrefix: "zh" })
const subjectOf = new Map([...english, ...chinese].map((t) => [t.id, t.subject] as const))

/** The subject most of a topic's members have, and their share. */
const majority = (topic: Topic): { subject: Subject | undefined; share: number } => {
  const tally = new Map<Subject, number>()
  for (const member of topic.members) {
    const subject = subjectOf.get(member)
    if (subject !== undefined) tally.set(subject, (tally.get(subject) ?? 0) + 1)
  }
  const [subject, count = 0] = [...tally].sort((a, b) => b[1] - a[1])[0] ?? []
  return { subject, share: count / Math.max(1, topic.members.length) }
}

const purityOf = (model: TopicModel): number => {
  const right = model.topics.reduce((sum, t) => sum + majority(t).share * t.members.length, 0)
  return right / model.topics.reduce((sum, t) => sum + t.members.length, 0)
}

const thread = (id: string, ...texts: Array<string>): TopicThread => ({
  id,
  texts,
  createdAt: 1_000,
  lastMessageAt: 2_000
})

/** Threads over many disjoint vocabularies: more natural groups than any ceiling. */
const manyGroups = (groups: number, perGroup: number): Array<TopicThread> => {
  const word = (g: number, w: number) =>
    `${String.fromCharCode(97 + (g % 26))}${String.fromCharCode(97 + Math.floor(g / 26))}word${w}`
  const threads: Array<TopicThread> = []
  for (let g = 0; g < groups; g++) {
    for (let i = 0; i < perGroup; i++) {
      threads.push(thread(`g${g}_${i}`, [0, 1, 2, 3].map((w) => word(g, (w + i) % 6)).join(" ")))
    }
  }
  return threads
}

describe("topic terms", () => {
  it("split like search: lower-cased words, Chinese one character a token, plus bigrams", () => {
    expect(tokensOf("Reset my PASSWORD, order 12345!")).toEqual(["reset", "my", "password", "order"])
    expect(tokensOf("重置密码")).toEqual(["重", "置", "密", "码"])
    const counts = termCounts(["重置密码", "reset password. Password"])
    expect(counts.get("密码")).toBe(1)
    expect(counts.get("reset password")).toBe(1)
    expect(counts.get("password")).toBe(2)
    // No bigram across a sentence end.
    expect(counts.has("password password")).toBe(false)
  })
})

describe("clusterTopics", () => {
  it("keeps to the ceiling, at 10 and at 60", () => {
    const threads = manyGroups(90, 6)
    const at60 = clusterTopics(threads, { ceiling: 60, minTopicShare: 0 })
    expect(at60.topics.length).toBeLessThanOrEqual(60)
    expect(at60.topics.length).toBeGreaterThan(30)
    const at10 = clusterTopics(threads, { ceiling: 10, minTopicShare: 0 })
    expect(at10.topics.length).toBeLessThanOrEqual(10)
    expect(at10.topics.length).toBeGreaterThan(1)
    const english10 = clusterTopics(english, { ceiling: 10 })
    expect(english10.topics.length).toBeLessThanOrEqual(10)
    // Every thread with words is in exactly one topic.
    const members = english10.topics.flatMap((t) => t.members)
    expect(new Set(members).size).toBe(members.length)
    expect(members.length + english10.unassigned.length).toBe(english.length)
  })

  it("finds the subjects of one language", () => {
    expect(purityOf(clusterTopics(english, { ceiling: 10 }))).toBeGreaterThan(0.7)
    expect(purityOf(clusterTopics(english, { ceiling: 30 }))).toBeGreaterThan(0.85)
  })

  it("is deterministic: the same threads in another order give the same model", () => {
    const a = clusterTopics(english, { ceiling: 10 })
    const b = clusterTopics([...english].reverse(), { ceiling: 10 })
    expect(b).toEqual(a)
  })

  it("keeps every id on an unchanged rerun", () => {
    const first = clusterTopics(english, { ceiling: 10 })
    const previous = first.topics.map((t) => ({ id: t.id, members: t.members }))
    const second = clusterTopics(english, { ceiling: 10, previous })
    expect(second.topics.map((t) => [t.id, t.members])).toEqual(first.topics.map((t) => [t.id, t.members]))
    expect(second.topics.every((t) => t.carried)).toBe(true)
  })

  it("keeps a topic's id when most of its members stay, and gives fresh ids otherwise", () => {
    const first = clusterTopics(english, { ceiling: 10 })
    const previous = first.topics.map((t) => ({ id: t.id, members: t.members }))
    // A tenth of the threads gone, some new ones of the same subjects.
    const kept = english.filter((_, i) => i % 10 !== 0)
    const keptIds = new Set(kept.map((t) => t.id))
    const added = makeCorpus({ perCell: 3, languages: ["en"], seed: 3, idPrefix: "new" })
    for (const t of added) subjectOf.set(t.id, t.subject)
    const second = clusterTopics([...kept, ...added], { ceiling: 10, previous })
    const byId = new Map(first.topics.map((t) => [t.id, t] as const))
    const carried = second.topics.filter((t) => t.carried)
    expect(carried.length).toBeGreaterThanOrEqual(Math.ceil(second.topics.length / 2))
    for (const topic of carried) {
      const before = byId.get(topic.id)
      if (before === undefined) throw new Error(`carried id ${topic.id} was not a previous topic`)
      // Carried only with more than half of the previous members that are still there.
      const stayed = new Set(before.members.filter((m) => keptIds.has(m)))
      const shared = topic.members.filter((m) => stayed.has(m)).length
      expect(shared * 2).toBeGreaterThan(stayed.size)
    }
    for (const topic of second.topics.filter((t) => !t.carried)) expect(byId.has(topic.id)).toBe(false)
    // A previous "topic" holding every thread matches none of the new ones: all fresh, all distinct.
    const everything = clusterTopics(english, {
      ceiling: 10,
      previous: [{ id: "topic_old", members: english.map((t) => t.id) }]
    })
    expect(everything.topics.some((t) => t.carried || t.id === "topic_old")).toBe(false)
    expect(new Set(everything.topics.map((t) => t.id)).size).toBe(everything.topics.length)
  })

  it("labels topics with their distinctive words", () => {
    const model = clusterTopics(english, { ceiling: 10 })
    const texts = new Map(english.map((t) => [t.id, termCounts(t.texts)] as const))
    for (const topic of model.topics) {
      expect(topic.label).not.toBe("")
      const inside = new Set(topic.members)
      const [top] = topic.terms
      if (top === undefined) throw new Error("no terms")
      const rate = (ids: ReadonlyArray<string>) =>
        ids.filter((id) => texts.get(id)?.has(top.term)).length / Math.max(1, ids.length)
      const outside = english.map((t) => t.id).filter((id) => !inside.has(id))
      expect(rate(topic.members)).toBeGreaterThan(2 * rate(outside))
    }
    const account = model.topics.find((t) => majority(t).subject === "account")
    expect(account?.terms.slice(0, 5).some((t) => /password|log|sign|account|login/.test(t.term))).toBe(true)
    const cooking = model.topics.find((t) => majority(t).subject === "cooking")
    expect(cooking).toBeDefined()
    expect(cooking?.label).not.toMatch(/\b(the|my|how|what|can)\b/)
  })

  it("clusters Chinese text and labels it with words, not single characters", () => {
    const model = clusterTopics(chinese, { ceiling: 10 })
    expect(purityOf(model)).toBeGreaterThan(0.8)
    for (const topic of model.topics) {
      for (const part of topic.label.split(", ")) expect([...part].length).toBeGreaterThanOrEqual(2)
    }
  })

  it("handles no threads, one thread, fewer threads than the ceiling, and threads without words", () => {
    expect(clusterTopics([], { ceiling: 10 }).topics).toEqual([])
    const one = clusterTopics([thread("a", "How do I reset my password?")], { ceiling: 10 })
    expect(one.topics).toHaveLength(1)
    expect(one.topics[0]?.members).toEqual(["a"])
    const few = [
      thread("a", "reset my password please"),
      thread("b", "password reset email never arrives"),
      thread("c", "refund for my invoice"),
      thread("d", "invoice refund request"),
      thread("e", "!!! 123")
    ]
    const model = clusterTopics(few, { ceiling: 10 })
    expect(model.topics.length).toBeGreaterThanOrEqual(1)
    expect(model.topics.length).toBeLessThanOrEqual(4)
    expect(model.unassigned).toEqual(["e"])
    expect(model.topics.flatMap((t) => t.members).sort()).toEqual(["a", "b", "c", "d"])
    expect(clusterTopics([thread("x", "")], { ceiling: 10 })).toMatchObject({ topics: [], unassigned: ["x"] })
  })
})

describe("placeThread and measureChange", () => {
  const model = clusterTopics(english, { ceiling: 10 })
  const subjectOfTopic = new Map(model.topics.map((t) => [t.id, majority(t).subject] as const))

  it("places a new thread in the topic of its subject, and an unrelated one nowhere", () => {
    const password = placeThread(model, { texts: ["I forgot my password and the reset email never came"] })
    expect(password === undefined ? undefined : subjectOfTopic.get(password.topicId)).toBe("account")
    const flight = placeThread(model, { texts: ["Is there a cheap flight to Rome with a hotel near the airport?"] })
    expect(flight === undefined ? undefined : subjectOfTopic.get(flight.topicId)).toBe("travel")
    expect(placeThread(model, { texts: ["Quantum chromodynamics lattice gauge symmetry"] })).toBeUndefined()
    expect(placeThread(model, { texts: [""] })).toBeUndefined()
  })

  it("places most held-out threads right", () => {
    const held = makeCorpus({ perCell: 5, languages: ["en"], seed: 4, idPrefix: "held" })
    const right = held.filter((t) => {
      const placed = placeThread(model, t)
      return placed !== undefined && subjectOfTopic.get(placed.topicId) === t.subject
    })
    expect(right.length / held.length).toBeGreaterThan(0.7)
  })

  it("sees little change for more of the same, and a rerun for a shift of subject", () => {
    const same = makeCorpus({ perCell: 5, languages: ["en"], seed: 5, idPrefix: "same" })
    const little = measureChange(
      model,
      same.map((t) => placeThread(model, t))
    )
    expect(little.newThreads).toBe(same.length)
    expect(little.shift).toBeLessThan(0.15)
    expect(little.rerun).toBe(false)
    const shifted = makeCorpus({ perCell: 30, languages: ["en"], subjects: ["cooking"], seed: 6, idPrefix: "sh" })
    const much = measureChange(
      model,
      shifted.map((t) => placeThread(model, t))
    )
    expect(much.shift).toBeGreaterThan(little.shift)
    expect(much.rerun).toBe(true)
    expect(measureChange(model, []).rerun).toBe(false)
  })
})
