/**
 * OTLP trace exports, protobuf or JSON, into the spans the use cases take
 * (src/traces/SpanModel.ts). Both encodings arrive as objects of one shape (Proto.ts
 * declares lowerCamelCase field names); they differ in ids (bytes or hex),
 * 64-bit integers (Long or string/number) and defaults (protobuf leaves unset
 * fields on the prototype). OTLP/JSON may name fields in lowerCamelCase or by
 * their proto names (`resource_spans`), as the protobuf JSON mapping accepts
 * both. A body whose structure is wrong does not decode (400); a span whose
 * ids or times cannot be kept is refused on its own (partial success), like
 * the Collector's receiver. Text PostgreSQL cannot store (NUL, an unpaired
 * surrogate) is kept with U+FFFD in its place, as a UTF-8 decoder does with
 * bytes it cannot read: refusing the export for one character would lose
 * the whole batch.
 */

import { toStorableText } from "../../schema/Text.js"
import { INT64_MAX } from "../../schema/Trace.js"
import type { Attributes, AttributeValue, SpanInput } from "../../src/traces/SpanModel.js"
import type { DecodedExport } from "../../src/traces/Traces.js"

export class DecodeFailure extends Error {}

type Encoding = "protobuf" | "json"
type Node = Readonly<Record<string, unknown>>
/**
 * Where a value is, for the message of a body that does not decode: made only
 * then (a 4 MB export holds up to ~80,000 spans, and a path string for each of
 * their parts cost more than the rest of decoding them).
 */
type Path = () => string
const under =
  (path: Path, suffix: string | (() => string)): Path =>
  () =>
    `${path()}${typeof suffix === "string" ? suffix : suffix()}`
const ROOT: Path = () => "body"

/** AnyValue nesting the receiver reads (arrays and key-value lists within each other). */
const MAX_VALUE_DEPTH = 32

const fail = (path: Path, expected: string): never => {
  throw new DecodeFailure(`${path()}: expected ${expected}`)
}

const SNAKE = new Map<string, string>()
/** A lowerCamelCase field's proto name: `resourceSpans` -> `resource_spans`. */
const snake = (key: string): string => {
  let name = SNAKE.get(key)
  if (name === undefined) {
    name = key.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`)
    SNAKE.set(key, name)
  }
  return name
}

/** The name a field goes by in this node (lowerCamelCase, else the proto name), or undefined when absent. */
const nameIn = (node: Node, key: string): string | undefined =>
  Object.hasOwn(node, key) ? key : Object.hasOwn(node, snake(key)) ? snake(key) : undefined

const has = (node: Node, key: string) => nameIn(node, key) !== undefined

/** A field's value by either name; undefined when absent. */
const valueAt = (node: Node, key: string): unknown => {
  const name = nameIn(node, key)
  return name === undefined ? undefined : node[name]
}

const objectAt = (value: unknown, path: Path): Node =>
  typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Node) : fail(path, "an object")

const listAt = (node: Node, key: string, path: Path): ReadonlyArray<unknown> => {
  const value = valueAt(node, key)
  if (value === undefined || value === null) return []
  return Array.isArray(value) ? value : fail(under(path, `.${key}`), "an array")
}

const stringAt = (node: Node, key: string, path: Path): string => {
  const value = valueAt(node, key)
  if (value === undefined || value === null) return ""
  return typeof value === "string" ? toStorableText(value) : fail(under(path, `.${key}`), "a string")
}

interface LongLike {
  readonly low: number
  readonly high: number
  readonly unsigned: boolean
  toString(): string
}

const isLong = (value: unknown): value is LongLike =>
  typeof value === "object" && value !== null && "low" in value && "high" in value && "unsigned" in value

/** An int64/fixed64: a Long (protobuf; its halves, faster than Long's own decimal text), or a decimal string or integer (JSON). */
const integerOf = (value: unknown, path: Path): bigint => {
  if (isLong(value)) {
    const high = value.unsigned ? BigInt(value.high >>> 0) : BigInt(value.high)
    return (high << 32n) + BigInt(value.low >>> 0)
  }
  if (typeof value === "number" && Number.isInteger(value)) return BigInt(value)
  if (typeof value === "string" && /^-?[0-9]{1,20}$/.test(value)) return BigInt(value)
  return fail(path, "an integer (a number or a decimal string)")
}

const smallInteger = (node: Node, key: string, path: Path): number => {
  const value = valueAt(node, key)
  if (value === undefined || value === null) return 0
  return typeof value === "number" && Number.isInteger(value) ? value : fail(under(path, `.${key}`), "an integer")
}

const HEX = /^[0-9a-fA-F]*$/

/** An id as lowercase hex; "" when absent; undefined when it is not an id of `bytes` bytes. */
const idOf = (node: Node, key: string, bytes: number, encoding: Encoding, path: Path): string | undefined => {
  const value = valueAt(node, key)
  if (value === undefined || value === null) return ""
  let hex: string
  if (encoding === "protobuf") {
    if (!(value instanceof Uint8Array)) return fail(under(path, `.${key}`), "bytes")
    if (value.length === 0) return ""
    hex = Buffer.from(value.buffer, value.byteOffset, value.length).toString("hex")
  } else {
    if (typeof value !== "string" || !HEX.test(value)) return fail(under(path, `.${key}`), "a hex string")
    hex = value.toLowerCase()
  }
  if (hex === "") return ""
  return hex.length === bytes * 2 && !/^0+$/.test(hex) ? hex : undefined
}

const anyValue = (value: unknown, encoding: Encoding, path: Path, depth: number): AttributeValue => {
  if (depth > MAX_VALUE_DEPTH) throw new DecodeFailure(`${path()}: values nested deeper than ${MAX_VALUE_DEPTH}`)
  if (value === undefined || value === null) return null
  const node = objectAt(value, path)
  if (has(node, "stringValue")) return stringAt(node, "stringValue", path)
  if (has(node, "boolValue")) {
    const bool = valueAt(node, "boolValue")
    return typeof bool === "boolean" ? bool : fail(under(path, ".boolValue"), "a boolean")
  }
  if (has(node, "intValue")) {
    const integer = integerOf(valueAt(node, "intValue"), under(path, ".intValue"))
    const number = Number(integer)
    return Number.isSafeInteger(number) ? number : integer.toString()
  }
  if (has(node, "doubleValue")) {
    const double = valueAt(node, "doubleValue")
    // OTLP/JSON writes NaN and the infinities as strings; JSON (and jsonb) has no number for them.
    if (typeof double === "number") return Number.isFinite(double) ? double : String(double)
    if (typeof double === "string" && ["NaN", "Infinity", "-Infinity"].includes(double)) return double
    if (typeof double === "string" && double.trim() !== "" && Number.isFinite(Number(double))) return Number(double)
    return fail(under(path, ".doubleValue"), "a number")
  }
  if (has(node, "arrayValue")) {
    const arrayPath = under(path, ".arrayValue")
    const array = objectAt(valueAt(node, "arrayValue"), arrayPath)
    return listAt(array, "values", arrayPath).map((item, index) =>
      anyValue(
        item,
        encoding,
        under(arrayPath, () => `.values[${index}]`),
        depth + 1
      )
    )
  }
  if (has(node, "kvlistValue")) {
    const listPath = under(path, ".kvlistValue")
    const list = objectAt(valueAt(node, "kvlistValue"), listPath)
    return attributesOf(list, "values", encoding, listPath, depth + 1)
  }
  if (has(node, "bytesValue")) {
    const bytes = valueAt(node, "bytesValue")
    if (bytes instanceof Uint8Array) return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString("base64")
    return typeof bytes === "string" ? bytes : fail(under(path, ".bytesValue"), "base64 text")
  }
  // An empty AnyValue: OTLP's way of saying null.
  return null
}

/** A KeyValue list as a JSON object (a null prototype: a key "__proto__" is a key like any other). */
const attributesOf = (node: Node, key: string, encoding: Encoding, path: Path, depth = 0): Attributes => {
  const out: Record<string, AttributeValue> = Object.create(null)
  listAt(node, key, path).forEach((item, index) => {
    const at = under(path, () => `.${key}[${index}]`)
    const pair = objectAt(item, at)
    const name = typeof pair.key === "string" ? pair.key : fail(under(at, ".key"), "a string")
    out[toStorableText(name)] = anyValue(pair.value, encoding, under(at, ".value"), depth)
  })
  return out
}

/** Decimal nanoseconds within int64 (what the store keeps), or undefined. */
const timeOf = (node: Node, key: string, path: Path): string | undefined => {
  const raw = valueAt(node, key)
  if (raw === undefined || raw === null) return "0"
  const value = integerOf(raw, under(path, `.${key}`))
  return value >= 0n && value <= INT64_MAX ? value.toString() : undefined
}

/** Decodes a whole export; throws DecodeFailure when its structure is not OTLP's. */
export const decodeExport = (message: unknown, encoding: Encoding): DecodedExport => {
  const spans: Array<SpanInput> = []
  let invalid = 0
  const request = objectAt(message, ROOT)
  listAt(request, "resourceSpans", ROOT).forEach((resourceItem, r) => {
    const resourcePath: Path = () => `resourceSpans[${r}]`
    const resourceSpans = objectAt(resourceItem, resourcePath)
    const resourceNode = has(resourceSpans, "resource")
      ? objectAt(valueAt(resourceSpans, "resource"), under(resourcePath, ".resource"))
      : {}
    const resource = attributesOf(resourceNode, "attributes", encoding, under(resourcePath, ".resource"))
    listAt(resourceSpans, "scopeSpans", resourcePath).forEach((scopeItem, s) => {
      const scopePath = under(resourcePath, () => `.scopeSpans[${s}]`)
      const scopeSpans = objectAt(scopeItem, scopePath)
      const scopeNodePath = under(scopePath, ".scope")
      const scopeNode = has(scopeSpans, "scope") ? objectAt(valueAt(scopeSpans, "scope"), scopeNodePath) : {}
      const scope = {
        name: stringAt(scopeNode, "name", scopeNodePath),
        version: stringAt(scopeNode, "version", scopeNodePath),
        attributes: attributesOf(scopeNode, "attributes", encoding, scopeNodePath)
      }
      listAt(scopeSpans, "spans", scopePath).forEach((spanItem, i) => {
        const path = under(scopePath, () => `.spans[${i}]`)
        const span = objectAt(spanItem, path)
        const traceId = idOf(span, "traceId", 16, encoding, path)
        const spanId = idOf(span, "spanId", 8, encoding, path)
        const parent = idOf(span, "parentSpanId", 8, encoding, path)
        const start = timeOf(span, "startTimeUnixNano", path)
        const end = timeOf(span, "endTimeUnixNano", path)
        const status = valueAt(span, "status")
        const statusPath = under(path, ".status")
        const statusNode = status === undefined || status === null ? {} : objectAt(status, statusPath)
        const kind = smallInteger(span, "kind", path)
        const statusCode = smallInteger(statusNode, "code", statusPath)
        const events = listAt(span, "events", path).map((eventItem, e) => {
          const eventPath = under(path, () => `.events[${e}]`)
          const event = objectAt(eventItem, eventPath)
          return {
            name: stringAt(event, "name", eventPath),
            time_unix_nano: timeOf(event, "timeUnixNano", eventPath) ?? "0",
            attributes: attributesOf(event, "attributes", encoding, eventPath)
          }
        })
        const links = listAt(span, "links", path).map((linkItem, l) => {
          const linkPath = under(path, () => `.links[${l}]`)
          const link = objectAt(linkItem, linkPath)
          return {
            trace_id: idOf(link, "traceId", 16, encoding, linkPath) ?? "",
            span_id: idOf(link, "spanId", 8, encoding, linkPath) ?? "",
            trace_state: stringAt(link, "traceState", linkPath),
            attributes: attributesOf(link, "attributes", encoding, linkPath)
          }
        })
        const attributes = attributesOf(span, "attributes", encoding, path)
        if (
          !traceId ||
          !spanId ||
          parent === undefined ||
          start === undefined ||
          end === undefined ||
          kind < 0 ||
          kind > 5 ||
          statusCode < 0 ||
          statusCode > 2
        ) {
          invalid += 1
          return
        }
        spans.push({
          trace_id: traceId,
          span_id: spanId,
          parent_span_id: parent === "" ? null : parent,
          trace_state: stringAt(span, "traceState", path),
          name: stringAt(span, "name", path),
          kind,
          start_time_unix_nano: start,
          end_time_unix_nano: end,
          attributes,
          events,
          links,
          status_code: statusCode,
          status_message: stringAt(statusNode, "message", statusPath),
          resource,
          scope
        })
      })
    })
  })
  return {
    spans,
    invalid,
    invalidReason: `${invalid} ${invalid === 1 ? "span has" : "spans have"} a missing or malformed trace id, span id, parent span id, time, kind or status code`
  }
}
