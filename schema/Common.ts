import * as Schema from "effect/Schema"
import { Limits } from "./Limits.js"
import { jsonProblem } from "./Text.js"

/** Opaque, time-sortable id (docs/decisions.md "Wire"). */
export const Id = Schema.String.pipe(Schema.minLength(1), Schema.maxLength(Limits.idMaxLength))

/**
 * The day of a text starting YYYY-MM-DD exists in its month (a pattern lets
 * 2026-02-31 through), or the problem.
 */
export const dayExists = (text: string): true | string => {
  const [year, month, day] = text.slice(0, 10).split("-").map(Number)
  const daysInMonth = new Date(Date.UTC(year ?? 0, month ?? 0, 0)).getUTCDate()
  return (day ?? 0) <= daysInMonth || `no day ${day} in ${text.slice(0, 7)}`
}

/**
 * ISO 8601 date-time on the wire, a Date inside. Answers carry UTC with
 * milliseconds (`2026-11-22T10:15:30.123Z`); requests may give up to 6
 * fractional digits and `Z` or an offset, years 0001 to 9999. Anything else
 * (a bare date, a local time, an out-of-range year) is 400: it would be read
 * in the server's zone or refused by the database.
 */
const ISO_DATE_TIME =
  /^(?!0000)\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])T([01]\d|2[0-3]):[0-5]\d:[0-5]\d(\.\d{1,6})?(Z|[+-]([01]\d|2[0-3]):[0-5]\d)$/

export const Timestamp = Schema.String.pipe(
  Schema.pattern(ISO_DATE_TIME, {
    message: () => "expected an ISO 8601 date-time such as 2026-11-22T10:15:30.123Z"
  }),
  // Date would roll 2026-02-31 over to March 3rd.
  Schema.filter(dayExists),
  Schema.compose(Schema.Date)
).annotations({
  identifier: "Timestamp",
  description: "ISO 8601 UTC timestamp with milliseconds, e.g. 2026-11-22T10:15:30.123Z"
})

/** Longer digit strings are past every maximum (and past exact doubles): they clamp without being read. */
const LIMIT_DIGITS_READ = 15

/**
 * `limit` query parameter: decimal digits only (not `0x10`, `1e3`, `+5` or
 * `1.0`), at least 1; above `max`, however large, it is clamped
 * (docs/decisions.md "Wire"); absent it is `fallback`.
 */
export const PageLimit = (fallback: number, max: number) =>
  Schema.optionalWith(
    Schema.String.pipe(
      Schema.pattern(/^[0-9]+$/, { message: () => "limit must be a whole number in decimal digits" }),
      Schema.filter((digits) => /[1-9]/.test(digits) || "limit must be at least 1"),
      Schema.transform(Schema.Number, {
        strict: true,
        decode: (digits) => (digits.length > LIMIT_DIGITS_READ ? max : Math.min(Number(digits), max)),
        encode: (n) => String(n)
      })
    ).annotations({
      description: `1 or more; above ${max} it is read as ${max}`,
      // The wire takes decimal digits only; documented as the integer they are, with its bounds.
      jsonSchema: {
        type: "integer",
        minimum: 1,
        maximum: max,
        default: fallback,
        description: `Page size: 1 to ${max} (a larger value is read as ${max}); default ${fallback}`
      }
    }),
    { default: () => fallback }
  )

/** Query booleans are the strings `true` and `false`. */
export const QueryBoolean = Schema.transformLiterals(["true", true], ["false", false])

/** UTF-8 byte length without allocating (schema/ stays free of Node APIs). */
export const utf8Length = (text: string): number => {
  let bytes = 0
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i)
    if (code < 0x80) bytes += 1
    else if (code < 0x800) bytes += 2
    else if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) {
      bytes += 4
      i++
    } else bytes += 3
  }
  return bytes
}

/** Characters of a JSON value once serialized. */
export const serializedLength = (value: unknown): number => JSON.stringify(value)?.length ?? 0

/** A JSON object (not null, not an array). */
export const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/**
 * Thread metadata: any JSON value; when an object, at most 16 keys of at most 64
 * characters, each value at most 512 characters once serialized; any other
 * value at most 512 characters serialized. At most 64 levels deep.
 */
export const Metadata = Schema.Unknown.pipe(
  Schema.filter((value) => {
    const problem = jsonProblem(value)
    if (problem) return problem
    const { metadataKeyMaxLength, metadataMaxKeys, metadataValueMaxLength } = Limits.thread
    if (!isPlainObject(value)) {
      // Not an object: the whole value is held to the per-value limit.
      return (
        serializedLength(value) <= metadataValueMaxLength ||
        `metadata longer than ${metadataValueMaxLength} characters serialized`
      )
    }
    const keys = Object.keys(value)
    if (keys.length > metadataMaxKeys) return `metadata has more than ${metadataMaxKeys} keys`
    for (const key of keys) {
      if (key.length > metadataKeyMaxLength) {
        return { path: [key], message: `metadata key longer than ${metadataKeyMaxLength} characters` }
      }
      if (serializedLength(value[key]) > metadataValueMaxLength) {
        return { path: [key], message: `metadata value longer than ${metadataValueMaxLength} characters serialized` }
      }
    }
    return true
  })
).annotations({ identifier: "Metadata", description: "Any JSON value; an object has at most 16 keys" })

/**
 * Message content: a JSON object of at most 64 KB serialized (UTF-8 bytes).
 * Validated in place rather than decoded as a Record, which would copy it
 * (and lose a `__proto__` key on the way).
 */
export const MessageContent = Schema.Unknown.pipe(
  Schema.filter((value): value is Readonly<Record<string, unknown>> => isPlainObject(value), {
    message: () => "content must be a JSON object"
  }),
  Schema.filter(
    (value) =>
      jsonProblem(value) ??
      (utf8Length(JSON.stringify(value)) <= Limits.message.contentMaxBytes ||
        `content is larger than ${Limits.message.contentMaxBytes} bytes serialized`)
  )
).annotations({ identifier: "MessageContent", description: "A JSON object, at most 64 KB serialized" })
