/**
 * The title generator port (docs/decisions.md "Titles"): the conversation
 * in, the title out as a stream of text deltas (2 to 12 words once joined
 * and trimmed). Two layers: Extractive (the default, no model) and Model (an
 * OpenAI-compatible endpoint, src/titles/ModelTitles.ts).
 */
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import type { Turn } from "./Conversation.js"
import { cutTitle, shapeTitle, wordsOf } from "./TitleText.js"

/** The generator could not produce a title (the model failed or timed out); `cause` is for the log only. */
export class TitleGenerationFailed extends Data.TaggedError("TitleGenerationFailed")<{
  readonly reason: string
  readonly cause?: unknown
}> {}

export interface TitleGeneratorShape {
  readonly kind: "extractive" | "model"
  /** Deltas of the title; `turns` has at least one turn with text. */
  readonly generate: (turns: ReadonlyArray<Turn>) => Stream.Stream<string, TitleGenerationFailed>
}

export class TitleGenerator extends Context.Tag("svc/TitleGenerator")<TitleGenerator, TitleGeneratorShape>() {
  static readonly Extractive: Layer.Layer<TitleGenerator> = Layer.succeed(
    TitleGenerator,
    TitleGenerator.of({ kind: "extractive", generate: (turns) => extractiveTitle(turns) })
  )
}

const TRAILING_MARKS = /[^\p{L}\p{N}]+$/u

const capitalize = (word: string): string => word.charAt(0).toLocaleUpperCase() + word.slice(1)

/**
 * The words of the title, no model: the first user message with words in it
 * (any message when no user message has any), cut at a sensible place. Under
 * 2 words, the next words of the conversation complete it; a conversation of
 * one word gives "Conversation: <word>", one of none (only links or code)
 * "New conversation".
 */
export const extractiveWords = (turns: ReadonlyArray<Turn>): Array<string> => {
  const firstUser = turns.findIndex((turn) => turn.role === "user" && wordsOf(turn.text).length > 0)
  const sources = firstUser >= 0 ? turns.slice(firstUser) : turns
  const words: Array<string> = []
  for (const turn of sources) {
    const found = wordsOf(turn.text)
    if (words.length === 0) words.push(...cutTitle(found))
    else if (found.length > 0) {
      // The first message ended ("Hello!"): its closing punctuation does not go in the middle of the title.
      words[words.length - 1] = (words[words.length - 1] ?? "").replace(TRAILING_MARKS, "")
      words.push(...found.slice(0, 2 - words.length))
    }
    if (words.length >= 2) break
  }
  if (words.length === 0) return ["New", "conversation"]
  if (words.length === 1) return ["Conversation:", words[0] ?? ""]
  return [capitalize(words[0] ?? ""), ...words.slice(1)]
}

/** The extractive title, streamed word by word through the shared title rules. */
export const extractiveTitle = (turns: ReadonlyArray<Turn>): Stream.Stream<string> =>
  Stream.suspend(() => {
    const words = extractiveWords(turns)
    return shapeTitle(
      Stream.fromIterable(words.map((word, index) => (index === 0 ? word : ` ${word}`))),
      Stream.make("New conversation")
    )
  })
