import * as Schema from "effect/Schema"
import { PageLimit, QueryBoolean, Timestamp } from "./Common.js"
import { exampleOf } from "./Examples.js"
import { Limits } from "./Limits.js"
import { StorableString } from "./Text.js"
import { Thread } from "./Thread.js"

const OFFSET_MAX = Limits.search.offsetMax

/** The search query: words, "quoted phrases", -word, OR (web search syntax). */
export const SearchText = StorableString.pipe(
  Schema.filter((q) => q.trim() !== "" || "q must not be empty"),
  Schema.maxLength(Limits.search.queryMaxLength, {
    message: () => `q is at most ${Limits.search.queryMaxLength} characters`
  })
).annotations({
  description:
    'Words (all must match), "quoted phrases", -word to exclude, OR between alternatives. Case-insensitive, no stemming; words in Chinese, Japanese, Korean and Thai are found inside longer text.'
})

/** `offset` query parameter: decimal digits, 0 to OFFSET_MAX. */
const Offset = Schema.optionalWith(
  Schema.String.pipe(
    Schema.pattern(/^[0-9]{1,7}$/, { message: () => "offset must be a whole number in decimal digits" }),
    Schema.transform(Schema.Number, { strict: true, decode: Number, encode: String }),
    Schema.filter((n) => n <= OFFSET_MAX || `offset is at most ${OFFSET_MAX}`)
  ).annotations({
    jsonSchema: {
      type: "integer",
      minimum: 0,
      maximum: OFFSET_MAX,
      default: 0,
      description: `Results to skip: the next_offset of the previous page (at most ${OFFSET_MAX})`
    }
  }),
  { default: () => 0 }
)

export const SearchQuery = Schema.Struct({
  q: SearchText.annotations(exampleOf("Lisbon")),
  is_archived: Schema.optional(QueryBoolean),
  /** The thread's last message at or after this time. */
  from: Schema.optional(Timestamp),
  /** The thread's last message before this time. */
  to: Schema.optional(Timestamp),
  limit: PageLimit(Limits.search.listDefault, Limits.search.listMax),
  offset: Offset
})
export type SearchQuery = typeof SearchQuery.Type

export const Highlight = Schema.Tuple(Schema.Number, Schema.Number).annotations({
  description: "Where a matched term is in the snippet's text: [start, end), in UTF-16 code units"
})

export const Snippet = Schema.Struct({
  text: Schema.String,
  highlights: Schema.Array(Highlight)
}).annotations({ description: "About 200 characters around the first match, with every match marked" })

export const SearchHit = Schema.Struct({
  thread: Thread,
  /** Higher is better: the title's rank plus the best message's. */
  score: Schema.Number,
  /** The best matching message; null when only the title matched. */
  message_id: Schema.NullOr(Schema.String),
  /** From that message, or from the title when only it matched. */
  snippet: Snippet
})

export const SearchResults = Schema.Struct({
  results: Schema.Array(SearchHit),
  /** Pass as `offset` for the next page; null on the last one. */
  next_offset: Schema.NullOr(Schema.Number)
})
