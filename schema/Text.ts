/**
 * Text a PostgreSQL database can store as sent: no NUL (text and jsonb refuse
 * it) and no unpaired UTF-16 surrogate (jsonb refuses its escape; text would
 * silently turn it into U+FFFD). JSON values are walked without recursion, so
 * nesting depth is checked before anything recursive (JSON.stringify) runs.
 */
import * as Schema from "effect/Schema"
import { Limits } from "./Limits.js"

const UNPAIRED_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/

export const isStorableText = (text: string): boolean => !text.includes("\u0000") && !UNPAIRED_SURROGATE.test(text)

// biome-ignore lint/suspicious/noControlCharactersInRegex: NUL is what this looks for
const MAYBE_UNSTORABLE = /[\u0000\ud800-\udfff]/
// biome-ignore lint/suspicious/noControlCharactersInRegex: NUL is what this replaces
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g

/**
 * The text with each NUL and unpaired surrogate replaced by U+FFFD, as a
 * UTF-8 decoder replaces bytes it cannot read: for batches (OTLP exports)
 * where refusing a whole batch for one character would lose the rest.
 */
export const toStorableText = (text: string): string =>
  MAYBE_UNSTORABLE.test(text) ? text.replace(UNSTORABLE, "\ufffd") : text

const UNSTORABLE_MESSAGE = "must not contain NUL characters or unpaired surrogates"

/** A string schema refined to storable text. */
export const StorableString = Schema.String.pipe(Schema.filter((text) => isStorableText(text) || UNSTORABLE_MESSAGE))

/**
 * The first problem of a JSON value (as decoded from a request body), or
 * undefined: depth over `Limits.jsonMaxDepth`, or unstorable text in a key or
 * a string.
 */
export const jsonProblem = (
  value: unknown
): { readonly path: ReadonlyArray<string>; readonly message: string } | undefined => {
  // Each entry keeps its parent, so a path is only built for the value at fault.
  interface Entry {
    readonly value: unknown
    readonly depth: number
    readonly key: string
    readonly parent: Entry | undefined
  }
  const pathOf = (entry: Entry | undefined): Array<string> => {
    const path: Array<string> = []
    for (let at = entry; at?.parent !== undefined; at = at.parent) path.unshift(at.key)
    return path
  }
  const stack: Array<Entry> = [{ value, depth: 0, key: "", parent: undefined }]
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    const current = item.value
    if (typeof current === "string") {
      if (!isStorableText(current)) return { path: pathOf(item), message: UNSTORABLE_MESSAGE }
      continue
    }
    if (typeof current !== "object" || current === null) continue
    if (item.depth >= Limits.jsonMaxDepth) {
      return { path: pathOf(item), message: `nested deeper than ${Limits.jsonMaxDepth} levels` }
    }
    if (Array.isArray(current)) {
      for (let index = 0; index < current.length; index++) {
        stack.push({ value: current[index], depth: item.depth + 1, key: String(index), parent: item })
      }
      continue
    }
    for (const key in current) {
      if (!Object.hasOwn(current, key)) continue
      if (!isStorableText(key)) return { path: [...pathOf(item), key], message: `key ${UNSTORABLE_MESSAGE}` }
      stack.push({ value: (current as Record<string, unknown>)[key], depth: item.depth + 1, key, parent: item })
    }
  }
  return undefined
}
