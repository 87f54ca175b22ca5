/**
 * What the topics model is asked and which of its answers are believed
 * (src/topics/Naming.ts): names and choices checked strictly, questions
 * bounded in size whatever the input, samples taken from the topic's most
 * typical members, and the members' fingerprint.
 */
import * as Option from "effect/Option"
import { describe, expect, it } from "vitest"
import { makeCorpus } from "../../../bench/lib/topics-corpus.js"
import { clusterTopics, placementIndex } from "../../../src/topics/Clustering.js"
import {
  choiceOf,
  chooseSamples,
  MODEL_BOUNDS,
  membersFingerprint,
  nameOf,
  namingQuestion,
  placingQuestion
} from "../../../src/topics/Naming.js"

describe("a naming answer", () => {
  it("is believed as a name of one line, its quotes and final punctuation dropped", () => {
    expect(nameOf("Billing and payments")).toEqual(Option.some("Billing and payments"))
    expect(nameOf('  "Billing and payments."  ')).toEqual(Option.some("Billing and payments"))
    expect(nameOf("**Account access**")).toEqual(Option.some("Account access"))
    expect(nameOf("「退款问题」")).toEqual(Option.some("退款问题"))
  })

  it("is not a name when empty, none, prose, several lines, too many words or too long", () => {
    expect(nameOf("")).toEqual(Option.none())
    expect(nameOf("  ''  ")).toEqual(Option.none())
    expect(nameOf("None")).toEqual(Option.none())
    expect(nameOf("Sure! Here are some ideas:\n1. Billing")).toEqual(Option.none())
    expect(nameOf("one two three four five six seven eight nine")).toEqual(Option.none())
    expect(nameOf("a".repeat(MODEL_BOUNDS.labelMaxChars + 1))).toEqual(Option.none())
    expect(nameOf("a".repeat(MODEL_BOUNDS.labelMaxChars))).toEqual(Option.some("a".repeat(MODEL_BOUNDS.labelMaxChars)))
    expect(nameOf("Billing\u0000payments")).toEqual(Option.none())
  })
})

describe("a placing answer", () => {
  it("chooses a listed topic by its short id, or none", () => {
    expect(choiceOf("T2", 3)).toEqual(Option.some(1))
    expect(choiceOf(" t3. ", 3)).toEqual(Option.some(2))
    expect(choiceOf('"T1"', 3)).toEqual(Option.some(0))
    expect(choiceOf("none", 3)).toEqual(Option.some(undefined))
    expect(choiceOf("None.", 3)).toEqual(Option.some(undefined))
  })

  it("counts an id not in the list as none", () => {
    expect(choiceOf("T4", 3)).toEqual(Option.some(undefined))
    expect(choiceOf("T60", 3)).toEqual(Option.some(undefined))
  })

  it("is no answer when it is not an id or none", () => {
    for (const answer of ["", "T0", "T", "T1.5", "T-1", "T1234", "topic_abc", "The answer is T2", "T2 or T3", "2"]) {
      expect(choiceOf(answer, 3), answer).toEqual(Option.none())
    }
  })
})

describe("the questions", () => {
  it("bound a naming question whatever the samples and keywords", () => {
    const samples = Array.from({ length: 40 }, (_, i) => `${i}:${"x".repeat(10_000)}`)
    const keywords = Array.from({ length: 40 }, () => "k".repeat(1000))
    const question = namingQuestion(keywords, samples)
    expect(question.user.split("\n").filter((line) => /^\d+\. /.test(line))).toHaveLength(MODEL_BOUNDS.samplesPerTopic)
    expect(question.user.length).toBeLessThan(MODEL_BOUNDS.samplesPerTopic * 10_010 + MODEL_BOUNDS.keywords * 70 + 200)
  })

  it("bound a placing question: at most topicsPerRun topics, the thread's text cut, one line each", () => {
    const topics = Array.from({ length: 100 }, (_, i) => ({
      label: `Topic ${i}\nwith a second line`,
      keywords: Array.from({ length: 20 }, () => "w".repeat(500))
    }))
    const question = placingQuestion(topics, ["a\nb".repeat(5_000)])
    const offered = question.user.split("\n").filter((line) => /^T\d+: /.test(line))
    expect(offered).toHaveLength(MODEL_BOUNDS.topicsPerRun)
    expect(offered[0]).toMatch(/^T1: Topic 0 with a second line \(keywords: w+…, /)
    const conversation = /what its user wrote\):\n(.*)\n\nTopic:$/s.exec(question.user)?.[1] ?? ""
    expect([...conversation]).toHaveLength(MODEL_BOUNDS.placeChars + 1)
    expect(conversation).not.toContain("\n")
  })
})

describe("samples and fingerprints", () => {
  it("takes a topic's samples from its own members, at most samplesPerTopic, each cut", () => {
    const corpus = makeCorpus({ perCell: 20, languages: ["en"], seed: 5 })
    const model = clusterTopics(corpus, { ceiling: 10 })
    const texts = new Map(corpus.map((thread) => [thread.id, thread.texts] as const))
    const { weights } = placementIndex(model)
    for (const topic of model.topics) {
      const samples = chooseSamples(topic, weights, (id) => texts.get(id))
      expect(samples.length).toBe(Math.min(MODEL_BOUNDS.samplesPerTopic, topic.members.length))
      const own = topic.members.map((id) => (texts.get(id) ?? []).join(" / "))
      for (const sample of samples) {
        expect([...sample].length).toBeLessThanOrEqual(MODEL_BOUNDS.sampleChars + 1)
        expect(own.some((text) => text.startsWith(sample.replace(/…$/, "")))).toBe(true)
      }
    }
  })

  it("fingerprints a topic's members whatever their order, and tells other members apart", () => {
    expect(membersFingerprint(["b", "a", "c"])).toBe(membersFingerprint(["a", "b", "c"]))
    expect(membersFingerprint(["a", "b"])).not.toBe(membersFingerprint(["a", "b", "c"]))
    expect(membersFingerprint(["ab"])).not.toBe(membersFingerprint(["a", "b"]))
  })
})
