/**
 * OTLP trace exports, protobuf or JSON, into the spans the use cases take
 * (src/SpanModel.ts). Both encodings arrive as objects of one shape (Proto.ts
 * declares lowerCamelCase field names); they differ in ids (bytes or hex),
 * 64-bit integers (Long or string/number) and defaults (protobuf leaves unset
 * fields on the prototype). A body whose structure is wrong does not decode
 * (400); a span whose ids or times cannot be kept is refused on its own
 * (partial success), like the Collector's receiver.
 */

import { INT64_MAX } from "../../schema/Trace.js"
import type { Attributes, AttributeValue, SpanInput } from "../../src/SpanModel.js"
import type { DecodedExport } from "../../src/Traces.js"

export class DecodeFailure extends Error {}

type Encoding = "protobuf" | "json"
type Node = Readonly<Record<string, unknown>>

/** AnyValue nesting the receiver reads (arrays and key-value lists within each other). */
const MAX_VALUE_DEPTH = 32

const fail = (path: string, expected: string): never => {
  throw new DecodeFailure(`${path}: expected ${expected}`)
}

const has = (node: Node, key: string) => Object.hasOwn(node, key)

const objectAt = (value: unknown, path: string): Node =>
  typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Node) : fail(path, "an object")

const listAt = (node: Node, key: string, path: string): ReadonlyArray<unknown> => {
  if (!has(node, key) || node[key] === null) return []
  const value = node[key]
  return Array.isArray(value) ? value : fail(`${path}.${key}`, "an array")
}

const stringAt = (node: Node, key: string, path: string): string => {
  if (!has(node, key) || node[key] === null) return ""
  const value = node[key]
  return typeof value === "string" ? value : fail(`${path}.${key}`, "a string")
}

interface LongLike {
  readonly low: number
  readonly high: number
  readonly unsigned: boolean
  toString(): string
}

const isLong = (value: unknown): value is LongLike =>
  typeof value === "object" && value !== null && "low" in value && "high" in value && "unsigned" in value

/** An int64/fixed64 as a decimal string: a Long (protobuf), or a decimal string or integer (JSON). */
const integerText = (value: unknown, path: string): string => {
  if (isLong(value)) return value.toString()
  if (typeof value === "number" && Number.isInteger(value)) return BigInt(value).toString()
  if (typeof value === "string" && /^-?[0-9]{1,20}$/.test(value)) return BigInt(value).toString()
  return fail(path, "an integer (a number or a decimal string)")
}

const smallInteger = (node: Node, key: string, path: string): number => {
  if (!has(node, key) || node[key] === null) return 0
  const value = node[key]
  return typeof value === "number" && Number.isInteger(value) ? value : fail(`${path}.${key}`, "an integer")
}

const HEX = /^[0-9a-fA-F]*$/

/** An id as lowercase hex; "" when absent; undefined when it is not an id of `bytes` bytes. */
const idOf = (node: Node, key: string, bytes: number, encoding: Encoding, path: string): string | undefined => {
  if (!has(node, key) || node[key] === null) return ""
  const value = node[key]
  let hex: string
  if (encoding === "protobuf") {
    if (!(value instanceof Uint8Array)) return fail(`${path}.${key}`, "bytes")
    if (value.length === 0) return ""
    hex = Buffer.from(value.buffer, value.byteOffset, value.length).toString("hex")
  } else {
    if (typeof value !== "string" || !HEX.test(value)) return fail(`${path}.${key}`, "a hex string")
    hex = value.toLowerCase()
  }
  if (hex === "") return ""
  return hex.length === bytes * 2 && !/^0+$/.test(hex) ? hex : undefined
}

const anyValue = (value: unknown, encoding: Encoding, path: string, depth: number): AttributeValue => {
  if (depth > MAX_VALUE_DEPTH) throw new DecodeFailure(`${path}: values nested deeper than ${MAX_VALUE_DEPTH}`)
  if (value === undefined || value === null) return null
  const node = objectAt(value, path)
  if (has(node, "stringValue")) return stringAt(node, "stringValue", path)
  if (has(node, "boolValue")) {
    const bool = node.boolValue
    return typeof bool === "boolean" ? bool : fail(`${path}.boolValue`, "a boolean")
  }
  if (has(node, "intValue")) {
    const text = integerText(node.intValue, `${path}.intValue`)
    const number = Number(text)
    return Number.isSafeInteger(number) ? number : text
  }
  if (has(node, "doubleValue")) {
    const double = node.doubleValue
    // OTLP/JSON writes NaN and the infinities as strings; JSON (and jsonb) has no number for them.
    if (typeof double === "number") return Number.isFinite(double) ? double : String(double)
    if (typeof double === "string" && ["NaN", "Infinity", "-Infinity"].includes(double)) return double
    if (typeof double === "string" && double.trim() !== "" && Number.isFinite(Number(double))) return Number(double)
    return fail(`${path}.doubleValue`, "a number")
  }
  if (has(node, "arrayValue")) {
    const array = objectAt(node.arrayValue, `${path}.arrayValue`)
    return listAt(array, "values", `${path}.arrayValue`).map((item, index) =>
      anyValue(item, encoding, `${path}.arrayValue.values[${index}]`, depth + 1)
    )
  }
  if (has(node, "kvlistValue")) {
    const list = objectAt(node.kvlistValue, `${path}.kvlistValue`)
    return attributesOf(list, "values", encoding, `${path}.kvlistValue`, depth + 1)
  }
  if (has(node, "bytesValue")) {
    const bytes = node.bytesValue
    if (bytes instanceof Uint8Array) return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString("base64")
    return typeof bytes === "string" ? bytes : fail(`${path}.bytesValue`, "base64 text")
  }
  // An empty AnyValue: OTLP's way of saying null.
  return null
}

/** A KeyValue list as a JSON object (a null prototype: a key "__proto__" is a key like any other). */
const attributesOf = (node: Node, key: string, encoding: Encoding, path: string, depth = 0): Attributes => {
  const out: Record<string, AttributeValue> = Object.create(null)
  listAt(node, key, path).forEach((item, index) => {
    const at = `${path}.${key}[${index}]`
    const pair = objectAt(item, at)
    const name = pair.key
    if (typeof name !== "string") fail(`${at}.key`, "a string")
    out[name as string] = anyValue(pair.value, encoding, `${at}.value`, depth)
  })
  return out
}

/** Decimal nanoseconds within int64 (what the store keeps), or undefined. */
const timeOf = (node: Node, key: string, path: string): string | undefined => {
  if (!has(node, key) || node[key] === null) return "0"
  const text = integerText(node[key], `${path}.${key}`)
  const value = BigInt(text)
  return value >= 0n && value <= INT64_MAX ? text : undefined
}

/** Decodes a whole export; throws DecodeFailure when its structure is not OTLP's. */
export const decodeExport = (message: unknown, encoding: Encoding): DecodedExport => {
  const spans: Array<SpanInput> = []
  let invalid = 0
  const request = objectAt(message, "body")
  listAt(request, "resourceSpans", "body").forEach((resourceItem, r) => {
    const resourcePath = `resourceSpans[${r}]`
    const resourceSpans = objectAt(resourceItem, resourcePath)
    const resourceNode = has(resourceSpans, "resource")
      ? objectAt(resourceSpans.resource, `${resourcePath}.resource`)
      : {}
    const resource = attributesOf(resourceNode, "attributes", encoding, `${resourcePath}.resource`)
    listAt(resourceSpans, "scopeSpans", resourcePath).forEach((scopeItem, s) => {
      const scopePath = `${resourcePath}.scopeSpans[${s}]`
      const scopeSpans = objectAt(scopeItem, scopePath)
      const scopeNode = has(scopeSpans, "scope") ? objectAt(scopeSpans.scope, `${scopePath}.scope`) : {}
      const scope = {
        name: stringAt(scopeNode, "name", `${scopePath}.scope`),
        version: stringAt(scopeNode, "version", `${scopePath}.scope`),
        attributes: attributesOf(scopeNode, "attributes", encoding, `${scopePath}.scope`)
      }
      listAt(scopeSpans, "spans", scopePath).forEach((spanItem, i) => {
        const path = `${scopePath}.spans[${i}]`
        const span = objectAt(spanItem, path)
        const traceId = idOf(span, "traceId", 16, encoding, path)
        const spanId = idOf(span, "spanId", 8, encoding, path)
        const parent = idOf(span, "parentSpanId", 8, encoding, path)
        const start = timeOf(span, "startTimeUnixNano", path)
        const end = timeOf(span, "endTimeUnixNano", path)
        const statusNode = has(span, "status") && span.status !== null ? objectAt(span.status, `${path}.status`) : {}
        const kind = smallInteger(span, "kind", path)
        const statusCode = smallInteger(statusNode, "code", `${path}.status`)
        const events = listAt(span, "events", path).map((eventItem, e) => {
          const eventPath = `${path}.events[${e}]`
          const event = objectAt(eventItem, eventPath)
          return {
            name: stringAt(event, "name", eventPath),
            time_unix_nano: timeOf(event, "timeUnixNano", eventPath) ?? "0",
            attributes: attributesOf(event, "attributes", encoding, eventPath)
          }
        })
        const links = listAt(span, "links", path).map((linkItem, l) => {
          const linkPath = `${path}.links[${l}]`
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
          status_message: stringAt(statusNode, "message", `${path}.status`),
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
