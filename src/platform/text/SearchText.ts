/**
 * What full-text search reads (docs/decisions.md, "Search"): the text of a
 * message, the indexed form of a text, a user's query in PostgreSQL's
 * `websearch_to_tsquery` syntax, and a snippet with its highlights.
 *
 * Text search splits words at spaces and punctuation, so a Chinese or
 * Japanese sentence (no spaces) would be one word and a word inside it would
 * never be found; trigrams (pg_trgm) depend on the database's LC_CTYPE to
 * tell letters apart, which differs between the embedded store and a
 * PostgreSQL in the C locale. So characters of the scripts written without
 * spaces are indexed one by one, and a run of them in a query becomes a
 * phrase of those characters (adjacent, in order): the same on both stores,
 * whatever their locale. Everything else goes through the `simple`
 * configuration: lower-cased words, no stemming and no stop words, so it
 * behaves the same in every language.
 */
import { isPlainObject } from "../../../schema/Common.js"

/** The text search configuration every indexed text and query goes through. */
export const SEARCH_CONFIG = "simple"

/** Characters past this are not indexed (a tsvector holds at most 1 MB). */
const INDEXED_CHARS_MAX = 100_000

/** Scripts written without spaces between words: indexed and queried character by character (topics read it too). */
export const UNSPACED = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Script=Thai}]/u
const UNSPACED_ALL = new RegExp(UNSPACED.source, "gu")
const UNSPACED_RUN = new RegExp(`${UNSPACED.source}+`, "gu")

const partsText = (parts: unknown): string => {
  if (typeof parts === "string") return parts
  if (!Array.isArray(parts)) return ""
  const texts: Array<string> = []
  for (const part of parts) {
    if (typeof part === "string") texts.push(part)
    else if (isPlainObject(part) && part.type === "text" && typeof part.text === "string") texts.push(part.text)
  }
  return texts.join("\n")
}

/**
 * The searchable text of a stored message: the text parts of `svc/v0`
 * (`content` a string or parts) and `ai-sdk/v6` (`parts`) content. Other
 * formats are opaque JSON to the gateway and are not indexed.
 */
export const messageText = (format: string, content: unknown): string => {
  if (!isPlainObject(content)) return ""
  if (format === "svc/v0") return partsText(content.content)
  if (format === "ai-sdk/v6") return partsText(content.parts)
  return ""
}

/** The formats whose text is indexed. */
export const INDEXED_FORMATS = ["svc/v0", "ai-sdk/v6"] as const
export type IndexedFormat = (typeof INDEXED_FORMATS)[number]

/** The searchable text of a content under each indexed format (an update does not say the stored one). */
export const textsByFormat = (content: unknown): Record<IndexedFormat, string> => ({
  "svc/v0": messageText("svc/v0", content),
  "ai-sdk/v6": messageText("ai-sdk/v6", content)
})

/** A text as it is indexed: unspaced scripts one character a word. */
export const indexText = (text: string): string =>
  (text.length > INDEXED_CHARS_MAX ? text.slice(0, INDEXED_CHARS_MAX) : text).replace(UNSPACED_ALL, " $& ")

/**
 * A parsed query: the text handed to `websearch_to_tsquery` to match, the
 * one to rank by, and the terms a snippet highlights. Ranking uses the
 * wanted terms only (any of them): PostgreSQL's `ts_rank` gives a query with
 * a negation (`-word`) a rank of about 1e-20 whatever the document, which
 * would make every exclusion flatten the order.
 */
export interface SearchQuery {
  readonly tsquery: string
  readonly rankquery: string
  readonly terms: ReadonlyArray<string>
}

const spaced = (run: string) => [...run].join(" ")

/**
 * Reads a query in web search syntax (words, "quoted phrases", -word, OR),
 * as `websearch_to_tsquery` does, and rewrites runs of unspaced scripts as
 * phrases of their characters. The terms are the words and phrases that must
 * or may match (not the excluded ones), for highlighting.
 */
export const parseQuery = (q: string): SearchQuery => {
  const out: Array<string> = []
  const terms: Array<string> = []
  // Segments alternate outside and inside double quotes; an unclosed quote runs to the end.
  const segments = q.split('"')
  segments.forEach((segment, index) => {
    const quoted = index % 2 === 1
    if (quoted) {
      const excluded = /-\s*$/.test(segments[index - 1] ?? "")
      const phrase = segment.trim()
      if (phrase !== "" && !excluded) terms.push(phrase)
      out.push(`"${segment.replace(UNSPACED_RUN, (run) => ` ${spaced(run)} `)}"`)
      return
    }
    for (const word of segment.split(/\s+/)) {
      if (word === "" || word === "OR" || word.startsWith("-")) continue
      // A word mixing scripts (`iPhone手机`) is highlighted by its parts.
      for (const part of word.split(new RegExp(`(${UNSPACED.source}+)`, "u"))) {
        const bare = part.replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}]+$/gu, "")
        if (bare !== "") terms.push(bare)
      }
    }
    out.push(
      segment.replace(UNSPACED_RUN, (run, offset: number) =>
        // `-北京` stays one excluded phrase: no space between the minus and the quote.
        segment[offset - 1] === "-" ? `"${spaced(run)}" ` : ` "${spaced(run)}" `
      )
    )
  })
  const wanted = [...new Set(terms)]
  return {
    tsquery: out.join(""),
    rankquery: wanted.map((term) => `"${term.replace(UNSPACED_RUN, (run) => ` ${spaced(run)} `)}"`).join(" OR "),
    terms: wanted
  }
}

/** A stretch of text around the first match, and where the terms are in it ([start, end) in UTF-16 units). */
export interface Snippet {
  readonly text: string
  readonly highlights: ReadonlyArray<readonly [number, number]>
}

const SNIPPET_CHARS = 200
const SNIPPET_BEFORE = 60

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

/** Matches any term, case-insensitively; a term in a spaced script only as a whole word. */
const termsPattern = (terms: ReadonlyArray<string>): RegExp | undefined => {
  if (terms.length === 0) return undefined
  const alternatives = [...terms]
    .sort((a, b) => b.length - a.length)
    .map((term) => {
      const body = escapeRegExp(term).replace(/\s+/g, "\\s+")
      return UNSPACED.test(term) ? body : `(?<![\\p{L}\\p{N}])${body}(?![\\p{L}\\p{N}])`
    })
  return new RegExp(alternatives.join("|"), "giu")
}

/** Up to about 200 characters of `text` around the first match of a term, the matches in it highlighted. */
export const snippetOf = (text: string, terms: ReadonlyArray<string>): Snippet => {
  const flat = text.replace(/\s+/g, " ").trim()
  const pattern = termsPattern(terms)
  const first = pattern === undefined ? -1 : flat.search(pattern)
  let start = first <= SNIPPET_BEFORE ? 0 : first - SNIPPET_BEFORE
  // Start on a word's first letter where one is near.
  if (start > 0) {
    const space = flat.indexOf(" ", start)
    if (space !== -1 && space < first && space - start < 20) start = space + 1
  }
  const end = Math.min(flat.length, start + SNIPPET_CHARS)
  const prefix = start > 0 ? "…" : ""
  const body = flat.slice(start, end)
  const snippet = `${prefix}${body}${end < flat.length ? "…" : ""}`
  const highlights: Array<readonly [number, number]> = []
  if (pattern !== undefined) {
    for (const match of body.matchAll(pattern)) {
      const at = (match.index ?? 0) + prefix.length
      highlights.push([at, at + match[0].length])
    }
  }
  return { text: snippet, highlights }
}
