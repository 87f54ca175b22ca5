/**
 * Text a PostgreSQL database can store as sent: no NUL (text and jsonb refuse
 * it) and no unpaired UTF-16 surrogate (jsonb refuses its escape; text would
 * silently turn it into U+FFFD). JSON values are walked without recursion, so
 * nesting depth is checked before anything recursive (JSON.stringify) runs.
 */
import * as Schema from "effect/Schema"
import { Limits } from "./Limits.js"

const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/

export const isStorableText = (text: string): boolean => !UNSTORABLE.test(text)

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
  const stack: Array<{ value: unknown; depth: number; path: ReadonlyArray<string> }> = [{ value, depth: 0, path: [] }]
  while (stack.length > 0) {
    const item = stack.pop()
    if (item === undefined) break
    const current = item.value
    if (typeof current === "string") {
      if (!isStorableText(current)) return { path: item.path, message: UNSTORABLE_MESSAGE }
      continue
    }
    if (typeof current !== "object" || current === null) continue
    if (item.depth >= Limits.jsonMaxDepth) {
      return { path: item.path, message: `nested deeper than ${Limits.jsonMaxDepth} levels` }
    }
    if (Array.isArray(current)) {
      current.forEach((element, index) => {
        stack.push({ value: element, depth: item.depth + 1, path: [...item.path, String(index)] })
      })
      continue
    }
    for (const [key, element] of Object.entries(current)) {
      if (!isStorableText(key)) return { path: [...item.path, key], message: `key ${UNSTORABLE_MESSAGE}` }
      stack.push({ value: element, depth: item.depth + 1, path: [...item.path, key] })
    }
  }
  return undefined
}
