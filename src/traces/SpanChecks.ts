/**
 * What of a decoded export may be stored (docs/decisions.md "Traces
 * (OTLP/HTTP)"): every part of a span, and of its resource and scope, within
 * its bound; the same span once; each distinct resource and scope once. A
 * span over a bound, or under a resource or scope over one, is refused on its
 * own with the reason counted (OTLP's partial success), never shortened. The
 * sizes are measured once per resource and scope object (the decoder shares
 * one object among the spans it covers), so a large resource costs its size
 * once, not once per span.
 */
import { Limits } from "../../schema/Limits.js"
import { ulid } from "../platform/Ids.js"
import { recognise } from "./GenAiSpans.js"
import type { SpanInput } from "./SpanModel.js"
import type { ResourceRow, SpanRow } from "./SpansRepo.js"

const L = Limits.trace

/** UTF-8 bytes of a text, or of a value serialized as JSON. */
const textBytes = (text: string) => Buffer.byteLength(text, "utf8")
const jsonBytes = (value: unknown) => textBytes(JSON.stringify(value))

/**
 * The rules, in the order a span is checked (a refusal counts under the first
 * rule it breaks): what the span is or has, said of one span and of several.
 */
const RULES = {
  resource: [
    "is under a resource or scope",
    "are under a resource or scope",
    `over its bounds (attributes over ${L.resourceMaxBytes} bytes serialized, or a scope name or version over ${L.nameMaxBytes} bytes)`
  ],
  name: ["has a name", "have a name", `over ${L.nameMaxBytes} bytes`],
  traceState: ["has a trace state", "have a trace state", `over ${L.traceStateMaxBytes} bytes`],
  statusMessage: ["has a status message", "have a status message", `over ${L.statusMessageMaxBytes} bytes`],
  attributes: ["has attributes", "have attributes", `over ${L.attributesMaxBytes} bytes serialized`],
  events: ["has events", "have events", `over ${L.eventsMaxBytes} bytes serialized`],
  links: ["has links", "have links", `over ${L.linksMaxBytes} bytes serialized`]
} as const
export type Rule = keyof typeof RULES

export interface CheckedExport {
  readonly rows: ReadonlyArray<SpanRow>
  readonly resources: ReadonlyArray<ResourceRow>
  /** Spans refused by a bound, by rule. */
  readonly refused: ReadonlyMap<Rule, number>
}

/** The clause that says why `count` spans were refused under `rule`. */
export const refusalReason = (rule: Rule, count: number) => {
  const [one, many, bound] = RULES[rule]
  return `${count} ${count === 1 ? `span ${one}` : `spans ${many}`} ${bound} (refused, not shortened)`
}

const serviceOf = (span: SpanInput): string | null => {
  const name = span.resource["service.name"]
  return typeof name === "string" ? name : null
}

export const checkSpans = (spans: ReadonlyArray<SpanInput>): CheckedExport => {
  const refused = new Map<Rule, number>()
  const refuse = (rule: Rule) => refused.set(rule, (refused.get(rule) ?? 0) + 1)

  // A resource's and a scope's JSON text and whether it is within bounds, once per object.
  const resourceTexts = new Map<SpanInput["resource"], string | undefined>()
  const scopeTexts = new Map<SpanInput["scope"], string | undefined>()
  const resourceText = (resource: SpanInput["resource"]) => {
    if (resourceTexts.has(resource)) return resourceTexts.get(resource)
    const text = JSON.stringify(resource)
    const ok = textBytes(text) <= L.resourceMaxBytes ? text : undefined
    resourceTexts.set(resource, ok)
    return ok
  }
  const scopeText = (scope: SpanInput["scope"]) => {
    if (scopeTexts.has(scope)) return scopeTexts.get(scope)
    const ok =
      textBytes(scope.name) <= L.nameMaxBytes &&
      textBytes(scope.version) <= L.nameMaxBytes &&
      jsonBytes(scope.attributes) <= L.resourceMaxBytes
        ? JSON.stringify(scope)
        : undefined
    scopeTexts.set(scope, ok)
    return ok
  }
  // Distinct (resource, scope) values: one row each, whatever objects carried them. The texts are compared
  // once per pair of objects (the decoder shares them among their spans), not once per span.
  const idsByText = new Map<string, string>()
  const idsByObject = new Map<SpanInput["resource"], Map<SpanInput["scope"], string>>()
  const resources: Array<ResourceRow> = []
  const resourceIdOf = (span: SpanInput, resource: string, scope: string) => {
    let byScope = idsByObject.get(span.resource)
    if (byScope === undefined) {
      byScope = new Map()
      idsByObject.set(span.resource, byScope)
    }
    const known = byScope.get(span.scope)
    if (known !== undefined) return known
    const key = `${resource}\u0000${scope}`
    let id = idsByText.get(key)
    if (id === undefined) {
      id = ulid()
      idsByText.set(key, id)
      resources.push({ id, resource: span.resource, scope: span.scope })
    }
    byScope.set(span.scope, id)
    return id
  }

  const seen = new Set<string>()
  const rows: Array<SpanRow> = []
  for (const span of spans) {
    const key = `${span.trace_id}/${span.span_id}`
    // The same span twice in one export is one span.
    if (seen.has(key)) continue
    seen.add(key)
    const resource = resourceText(span.resource)
    const scope = scopeText(span.scope)
    if (resource === undefined || scope === undefined) {
      refuse("resource")
      continue
    }
    const name = textBytes(span.name)
    if (name > L.nameMaxBytes) {
      refuse("name")
      continue
    }
    if (textBytes(span.trace_state) > L.traceStateMaxBytes) {
      refuse("traceState")
      continue
    }
    if (textBytes(span.status_message) > L.statusMessageMaxBytes) {
      refuse("statusMessage")
      continue
    }
    const attributesJson = JSON.stringify(span.attributes)
    const attributes = textBytes(attributesJson)
    if (attributes > L.attributesMaxBytes) {
      refuse("attributes")
      continue
    }
    const events = span.events.length === 0 ? 2 : jsonBytes(span.events)
    if (events > L.eventsMaxBytes) {
      refuse("events")
      continue
    }
    const links = span.links.length === 0 ? 2 : jsonBytes(span.links)
    if (links > L.linksMaxBytes) {
      refuse("links")
      continue
    }
    const { convention, role } = recognise(span)
    rows.push({
      span,
      serviceName: serviceOf(span),
      convention,
      role,
      resourceId: resourceIdOf(span, resource, scope),
      bytes: attributes + events + links + name + 200,
      attributesJson
    })
  }
  return { rows, resources, refused }
}
