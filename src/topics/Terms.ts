/**
 * The terms topics are built from. A thread's text is split the way search
 * indexes it (src/platform/text/SearchText.ts: `indexText`, then the
 * `simple` configuration: lower-cased runs of letters and digits, no
 * stemming, no stop words), so a topic's words are words a search finds.
 * `indexText` returns a string; the token list is read from it here with the
 * same rules. Two departures, both for clustering only: tokens made of
 * digits alone (order numbers, years) and single letters of spaced scripts
 * (the `t` of "don't") are left out, and adjacent tokens of one clause also
 * form a bigram: a phrase in spaced scripts ("reset password") and a
 * two-character word in Chinese, Japanese or Thai, where single characters
 * say little on their own.
 */
import { indexText, UNSPACED as UNSPACED_CHAR } from "../platform/text/SearchText.js"

/** A token of one character of a script `indexText` splits character by character. */
const UNSPACED = new RegExp(`^${UNSPACED_CHAR.source}$`, "u")
const WORD = /[\p{L}\p{M}\p{N}]+/gu
const DIGITS = /^\p{N}+$/u
/** Bigrams do not cross these: sentence and clause ends, in the scripts' own forms too. */
const CLAUSE = /[.!?;:,()[\]{}"\n\r\t。！？；：，、（）「」『』…—]+/u

/** Text past this is not read: a thread's first 20,000 characters say what it is about. */
export const TEXT_CHARS_MAX = 20_000

/** Whether a token belongs to a script written without spaces (one character a token). */
export const isUnspaced = (token: string): boolean => UNSPACED.test(token)

/** A bigram's display form: characters of unspaced scripts join without a space. */
export const joinTerms = (a: string, b: string): string => (isUnspaced(a) && isUnspaced(b) ? a + b : `${a} ${b}`)

/** The tokens of a text, in order, as search indexes them (see the module comment for the two departures). */
export const tokensOf = (text: string): Array<string> => {
  const tokens: Array<string> = []
  for (const match of indexText(text).toLowerCase().matchAll(WORD)) {
    const token = match[0]
    if (DIGITS.test(token)) continue
    if (token.length === 1 && !isUnspaced(token)) continue
    tokens.push(token)
  }
  return tokens
}

/** How often each term (tokens and bigrams of adjacent tokens in a clause) occurs in the texts. */
export const termCounts = (texts: ReadonlyArray<string>): Map<string, number> => {
  const counts = new Map<string, number>()
  const add = (term: string) => counts.set(term, (counts.get(term) ?? 0) + 1)
  let budget = TEXT_CHARS_MAX
  for (const full of texts) {
    if (budget <= 0) break
    const text = full.length > budget ? full.slice(0, budget) : full
    budget -= text.length
    for (const clause of text.split(CLAUSE)) {
      const tokens = tokensOf(clause)
      for (let i = 0; i < tokens.length; i++) {
        const token = tokens[i] ?? ""
        add(token)
        const next = tokens[i + 1]
        if (next !== undefined && next !== token) add(joinTerms(token, next))
      }
    }
  }
  return counts
}
