/**
 * What the topics model is asked and what of its answers is believed
 * (docs/decisions.md "Topics"): pure functions, the job (ModelAssist.ts)
 * asks. A topic is named from its keywords and a few of its threads' user
 * text; a thread no topic's words fit is placed by the model choosing among
 * the topics' names, or none. Every answer is checked against a strict
 * format (Schema); an answer that fails it counts as no answer.
 */
import { createHash } from "node:crypto"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { type PlacementIndex, placeThread, type TopicTerm } from "./Clustering.js"
import type { TopicQuestion } from "./TopicNamer.js"

/** The bounds of what the model is asked, per full run or placement pass of one project. */
export const MODEL_BOUNDS = {
  /** Characters of one sample thread's user text in a naming question. */
  sampleChars: 300,
  /** Sample threads per topic in a naming question. */
  samplesPerTopic: 5,
  /** Members measured to choose the samples (the most typical of these, evenly spread over the topic). */
  sampleCandidates: 20,
  /** Keywords per topic in a question. */
  keywords: 8,
  /** Topics named per full run (the most threads first): the highest ceiling, so every topic. */
  topicsPerRun: 60,
  /** Characters of a thread's user text in a placing question. */
  placeChars: 1_000,
  /** Threads placed by the model per full run, and per placement pass. */
  placePerPass: 20,
  /** Calls in flight at once. */
  concurrency: 4,
  /** The time naming may take per full run, and placing per run or pass; calls past it are not made. */
  namingBudgetMs: 60_000,
  placingBudgetMs: 30_000,
  /** A name is at most this long. */
  labelMaxChars: 60,
  labelMaxWords: 8,
  /** Threads the model said fit no topic, remembered (the most recent) so that a rerun does not ask again. */
  declinedMax: 2_000
} as const

/** Control characters and runs of white space, as one space. */
const clean = (text: string): string =>
  text
    .replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]+/gu, " ")
    .replace(/\s+/g, " ")
    .trim()

const cut = (text: string, chars: number): string => {
  const points = [...text]
  return points.length <= chars ? text : `${points.slice(0, chars).join("")}…`
}

/** A thread's user text, one line, at most `chars` characters. */
export const excerpt = (texts: ReadonlyArray<string>, chars: number): string => cut(clean(texts.join(" / ")), chars)

/** Which members say best what a topic is about: the most typical of up to `sampleCandidates`, evenly spread. */
export const chooseSamples = (
  topic: { readonly id: string; readonly centroid: ReadonlyArray<TopicTerm>; readonly members: ReadonlyArray<string> },
  weights: PlacementIndex["weights"],
  textsOf: (id: string) => ReadonlyArray<string> | undefined
): Array<string> => {
  const { members } = topic
  const step = Math.max(1, members.length / MODEL_BOUNDS.sampleCandidates)
  const candidates: Array<string> = []
  for (let at = 0; at < members.length && candidates.length < MODEL_BOUNDS.sampleCandidates; at += step) {
    const id = members[Math.floor(at)]
    if (id !== undefined) candidates.push(id)
  }
  const index: PlacementIndex = { weights, topics: [{ id: topic.id, centroid: topic.centroid, threshold: 0 }] }
  return candidates
    .map((id) => {
      const texts = textsOf(id) ?? []
      return { texts, similarity: placeThread(index, { texts })?.similarity ?? 0 }
    })
    .filter((sample) => sample.texts.length > 0)
    .sort((a, b) => b.similarity - a.similarity)
    .slice(0, MODEL_BOUNDS.samplesPerTopic)
    .map((sample) => excerpt(sample.texts, MODEL_BOUNDS.sampleChars))
}

const NAMING_INSTRUCTIONS =
  "You name a topic: a group of conversations that users had with an assistant, found by their words. " +
  "Answer with the name only: 1 to 6 words that say what the conversations are about, " +
  "no quotes, no markdown, no final punctuation."

/** The question that names a topic: its keywords and a few of its threads' user text. */
export const namingQuestion = (keywords: ReadonlyArray<string>, samples: ReadonlyArray<string>): TopicQuestion => ({
  system: NAMING_INSTRUCTIONS,
  user:
    `Keywords: ${keywords
      .slice(0, MODEL_BOUNDS.keywords)
      .map((k) => cut(clean(k), 60))
      .join(", ")}\n\n` +
    "What users wrote in some of its conversations:\n" +
    samples
      .slice(0, MODEL_BOUNDS.samplesPerTopic)
      .map((sample, i) => `${i + 1}. ${sample}`)
      .join("\n") +
    "\n\nName:"
})

/** Quotes, backticks, emphasis and final punctuation a model may wrap an answer in. */
const unwrap = (answer: string): string =>
  answer
    .trim()
    .replace(/^(["'`*_“”‘’«»「」]+)|(["'`*_“”‘’«»「」]+)$/gu, "")
    .replace(/[.!?。！？]+$/u, "")
    .trim()

/** A name: one line of 1 to labelMaxWords words and at most labelMaxChars characters, not "none". */
const Name = Schema.String.pipe(
  Schema.filter((text) => !/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u.test(text), { message: () => "one line of text" }),
  Schema.minLength(1),
  Schema.maxLength(MODEL_BOUNDS.labelMaxChars),
  Schema.filter((text) => text.split(/\s+/).length <= MODEL_BOUNDS.labelMaxWords, {
    message: () => `at most ${MODEL_BOUNDS.labelMaxWords} words`
  }),
  Schema.filter((text) => text.toLowerCase() !== "none", { message: () => "a name" })
)
const decodeName = Schema.decodeUnknownOption(Name)

/** The name in a naming answer, or none when the answer is not one. */
export const nameOf = (answer: string): Option.Option<string> => decodeName(unwrap(answer))

/** The short ids topics have in a placing question: T1, T2... */
const shortId = (i: number) => `T${i + 1}`

const PLACING_INSTRUCTIONS =
  "You sort a conversation into one of a project's topics, whatever language it is written in. " +
  "Answer with the id of the topic it belongs to (such as T2) and nothing else, or none if no topic fits."

/** The question that places a thread: the project's topics (name and keywords) and the thread's user text. */
export const placingQuestion = (
  topics: ReadonlyArray<{ readonly label: string; readonly keywords: ReadonlyArray<string> }>,
  texts: ReadonlyArray<string>
): TopicQuestion => ({
  system: PLACING_INSTRUCTIONS,
  user:
    "Topics:\n" +
    topics
      .slice(0, MODEL_BOUNDS.topicsPerRun)
      .map(
        (topic, i) =>
          `${shortId(i)}: ${cut(clean(topic.label), 100)} (keywords: ${topic.keywords
            .slice(0, 5)
            .map((k) => cut(clean(k), 60))
            .join(", ")})`
      )
      .join("\n") +
    `\n\nConversation (what its user wrote):\n${excerpt(texts, MODEL_BOUNDS.placeChars)}\n\nTopic:`
})

/** A placing answer: `none`, or T and a number. */
const Choice = Schema.Union(Schema.Literal("none"), Schema.TemplateLiteral("T", Schema.Number)).pipe(
  Schema.filter((text) => /^(none|T[1-9][0-9]{0,2})$/.test(text), { message: () => "none or T<n>" })
)
const decodeChoice = Schema.decodeUnknownOption(Choice)

/**
 * The topic (its index in the question's list) a placing answer chose:
 * Some(undefined) for "none" or an id not in the list, None for an answer
 * that is not one (no id, or prose around it).
 */
export const choiceOf = (answer: string, topics: number): Option.Option<number | undefined> => {
  const trimmed = unwrap(answer)
  return Option.map(decodeChoice(trimmed.toLowerCase() === "none" ? "none" : trimmed.toUpperCase()), (choice) => {
    if (choice === "none") return undefined
    const index = Number(choice.slice(1)) - 1
    return index < topics ? index : undefined
  })
}

/** What stands for a topic's members when its name is kept: the same members, the same name, no new call. */
export const membersFingerprint = (members: ReadonlyArray<string>): string =>
  createHash("sha256")
    .update([...members].sort().join("\n"))
    .digest("hex")
    .slice(0, 32)
