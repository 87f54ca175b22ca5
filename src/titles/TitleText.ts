/**
 * Title text rules shared by the generators: one line, no quotes or markdown
 * marks, no leading or trailing punctuation, 2 to 12 words, at most the
 * thread title length. The shaper works on deltas as they come, so a model's
 * output streams through it without waiting for the end.
 */
import * as Stream from "effect/Stream"
import { Limits } from "../../schema/Limits.js"

const WORD_CHAR = /[\p{L}\p{N}]/u
const SPACE = /\s/u
/** Marks dropped wherever they are: quotes and markdown emphasis, code and heading marks. */
const DROPPED = new Set(['"', "“", "”", "„", "«", "»", "`", "*", "#", "_", "~"])
// Control characters and unpaired surrogates: a title must be storable (PostgreSQL refuses NUL).
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this removes
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g
const UNPAIRED_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g

export const sanitize = (text: string): string => text.replace(CONTROL, " ").replace(UNPAIRED_SURROGATE, "")

/**
 * Deltas in, title text out. Text before the first letter or digit is
 * dropped; whitespace is collapsed to single spaces; punctuation after the
 * last letter or digit is held until more of the title follows it, so a
 * trailing "." or quote never goes out. The 13th word is not started:
 * `full` turns true and the rest is ignored.
 */
export class TitleShaper {
  words = 0
  length = 0
  full = false
  private started = false
  private inWord = false
  private pending = ""

  push(delta: string): string {
    let out = ""
    for (const raw of sanitize(delta)) {
      if (this.full) break
      if (DROPPED.has(raw)) continue
      if (SPACE.test(raw)) {
        this.inWord = false
        if (this.started && !this.pending.endsWith(" ")) this.pending += " "
        continue
      }
      if (!WORD_CHAR.test(raw)) {
        // Inside or after a word ("don't", "3.5", "well-known"); it goes out only if a word character follows.
        if (this.started) this.pending += raw
        continue
      }
      if (!this.inWord) {
        if (this.words === Limits.title.maxWords) {
          this.full = true
          break
        }
        this.words += 1
        this.inWord = true
      }
      const piece = this.pending + raw
      if (this.length + out.length + piece.length > Limits.thread.titleMaxLength) {
        this.full = true
        break
      }
      out += piece
      this.pending = ""
      this.started = true
    }
    this.length += out.length
    return out
  }
}

/**
 * A title stream shaped by the rules above. Nothing goes out until the
 * second word has started, so a shorter answer can be replaced: when the
 * source ends with fewer than 2 words, `fallback` is streamed instead. Once
 * 12 words are out the source is not read further (a model stream is cut).
 */
export const shapeTitle = <E, R, E2, R2>(
  source: Stream.Stream<string, E, R>,
  fallback: Stream.Stream<string, E2, R2>
): Stream.Stream<string, E | E2, R | R2> =>
  Stream.suspend(() => {
    const shaper = new TitleShaper()
    let held = ""
    const shaped = source.pipe(
      Stream.map((delta) => {
        const out = shaper.push(delta)
        if (shaper.words < Limits.title.minWords) {
          held += out
          return ""
        }
        const piece = held + out
        held = ""
        return piece
      }),
      Stream.takeUntil(() => shaper.full),
      Stream.filter((piece) => piece !== "")
    )
    return Stream.concat(
      shaped,
      Stream.suspend(() => (shaper.words < Limits.title.minWords ? fallback : Stream.empty))
    )
  })

const FENCED_CODE = /```[\s\S]*?(```|$)/g
// Bounded repetitions: an unclosed "[" or "<" must not make a scan to the end from every position.
const MARKDOWN_IMAGE = /!\[[^\]\n]{0,200}\]\([^)\s]{0,500}\)/g
const MARKDOWN_LINK = /\[([^\]\n]{0,200})\]\([^)\s]{0,500}\)/g
const URL = /\b(?:https?:\/\/|www\.)\S+/giu
const HTML_TAG = /<\/?[a-z][^<>\n]{0,200}>/giu
const LINE_MARKS = /^\s{0,3}(?:#{1,6}\s+|>\s?|[-*+]\s+|\d+[.)]\s+)/gmu
/** Longer "words" are ids, hashes or base64, not title material. */
const WORD_MAX_LENGTH = 40

/** The words of a message as a reader sees them: no code blocks, links' text kept, URLs and markup gone. */
export const wordsOf = (text: string): Array<string> =>
  // A title needs the start of a message only; the rest is never scanned.
  sanitize(text.slice(0, Limits.title.wordsSourceMaxChars))
    .replace(FENCED_CODE, " ")
    .replace(MARKDOWN_IMAGE, " ")
    .replace(MARKDOWN_LINK, "$1")
    .replace(URL, " ")
    .replace(HTML_TAG, " ")
    .replace(LINE_MARKS, "")
    .split(/\s+/u)
    .map((word) => [...word].filter((char) => !DROPPED.has(char)).join(""))
    .filter((word) => WORD_CHAR.test(word) && word.length <= WORD_MAX_LENGTH)

const SENTENCE_END = /[.!?…]$/u
const CLAUSE_END = /[,;:]$/u

/**
 * At most 12 words cut at a sensible place: the end of the first sentence
 * when it has at least 2 words, else the last clause mark among the first 12
 * words when one leaves at least 4, else the 12th word.
 */
export const cutTitle = (words: ReadonlyArray<string>): Array<string> => {
  const { minWords, maxWords } = Limits.title
  const sentenceEnd = words.findIndex((word) => SENTENCE_END.test(word))
  if (sentenceEnd + 1 >= minWords && sentenceEnd < maxWords) return words.slice(0, sentenceEnd + 1)
  const head = words.slice(0, maxWords)
  if (words.length <= maxWords) return head
  for (let end = head.length - 1; end >= 3; end--) {
    if (CLAUSE_END.test(head[end] ?? "")) return head.slice(0, end + 1)
  }
  return head
}
