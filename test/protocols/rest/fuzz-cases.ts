/**
 * Request generators for the OpenAPI-driven fuzz suite (fuzz.test.ts): the
 * operations of the gateway's own document, plausible values from their
 * schemas, and malformed or borderline variants of every part of a request.
 * Everything random comes from one seeded generator, so a run reproduces.
 */

/** mulberry32: small, fast, and the same sequence on every platform. */
export class Rng {
  private state: number
  constructor(seed: number) {
    this.state = seed >>> 0
  }
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0
    let t = this.state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  int(bound: number): number {
    return Math.floor(this.next() * bound)
  }
  pick<T>(items: ReadonlyArray<T>): T {
    const item = items[this.int(items.length)]
    if (item === undefined) throw new Error("pick from an empty list")
    return item
  }
  chance(probability: number): boolean {
    return this.next() < probability
  }
  /** Up to `count` items in their original order, chosen without replacement. */
  sample<T>(items: ReadonlyArray<T>, count: number): Array<T> {
    if (items.length <= count) return [...items]
    const indexes = items.map((_, index) => index)
    for (let i = indexes.length - 1; i > 0; i--) {
      const j = this.int(i + 1)
      const swap = indexes[i] as number
      indexes[i] = indexes[j] as number
      indexes[j] = swap
    }
    return indexes
      .slice(0, count)
      .sort((a, b) => a - b)
      .map((index) => items[index] as T)
  }
}

// ---------------------------------------------------------------------------
// The OpenAPI document, as far as the fuzzer reads it

export interface JsonSchema {
  readonly $ref?: string
  readonly type?: string
  readonly enum?: ReadonlyArray<unknown>
  readonly properties?: Readonly<Record<string, JsonSchema>>
  readonly required?: ReadonlyArray<string>
  readonly additionalProperties?: boolean | JsonSchema
  readonly items?: JsonSchema
  readonly anyOf?: ReadonlyArray<JsonSchema>
  readonly minLength?: number
  readonly maxLength?: number
  readonly minItems?: number
  readonly maxItems?: number
  readonly minimum?: number
  readonly maximum?: number
  readonly pattern?: string
  readonly description?: string
}

interface Parameter {
  readonly name: string
  readonly in: "path" | "query" | "header" | "cookie"
  readonly schema?: JsonSchema
  readonly required?: boolean
}

interface OperationObject {
  readonly parameters?: ReadonlyArray<Parameter>
  readonly requestBody?: { readonly content?: Readonly<Record<string, { readonly schema?: JsonSchema }>> }
}

export interface OpenApiDocument {
  readonly paths: Readonly<Record<string, Readonly<Record<string, OperationObject>>>>
  readonly components?: { readonly schemas?: Readonly<Record<string, JsonSchema>> }
}

export interface NamedSchema {
  readonly name: string
  readonly schema: JsonSchema
}

export interface Operation {
  readonly method: string
  /** The document's path, e.g. `/v1/threads/{thread_id}`. */
  readonly route: string
  readonly pathParams: ReadonlyArray<string>
  readonly query: ReadonlyArray<NamedSchema>
  readonly headers: ReadonlyArray<NamedSchema>
  /** The JSON request body's schema, `$ref`s resolved at the top. */
  readonly body: JsonSchema | undefined
  /** Takes a body at all (POST, PUT), whether or not the document describes one. */
  readonly sendsBody: boolean
  /** Deletes what other cases rely on: run after everything else. */
  readonly destructive: boolean
}

const METHODS = ["get", "post", "put", "patch", "delete"]

/** Follows `$ref`s into `components.schemas` until a schema of its own. */
export const resolve = (doc: OpenApiDocument, schema: JsonSchema): JsonSchema => {
  let current = schema
  for (let hops = 0; current.$ref !== undefined && hops < 16; hops++) {
    const name = current.$ref.replace(/^#\/components\/schemas\//, "")
    const target = doc.components?.schemas?.[name]
    if (target === undefined) throw new Error(`unresolved $ref ${current.$ref}`)
    current = target
  }
  return current
}

export const operationsOf = (doc: OpenApiDocument): Array<Operation> => {
  const operations: Array<Operation> = []
  for (const [route, item] of Object.entries(doc.paths)) {
    // The frontend copies (/p/{project_id}/v1/...): the modes already send every route to both hosts.
    if (route.startsWith("/p/")) continue
    for (const [method, operation] of Object.entries(item)) {
      if (!METHODS.includes(method)) continue
      const parameters = operation.parameters ?? []
      const named = (where: Parameter["in"]) =>
        parameters
          .filter((parameter) => parameter.in === where)
          .map((parameter) => ({ name: parameter.name, schema: resolve(doc, parameter.schema ?? {}) }))
      const bodySchema = operation.requestBody?.content?.["application/json"]?.schema
      const upper = method.toUpperCase()
      operations.push({
        method: upper,
        route,
        pathParams: named("path").map((parameter) => parameter.name),
        query: named("query"),
        headers: named("header"),
        body: bodySchema === undefined ? undefined : resolve(doc, bodySchema),
        sendsBody: upper === "POST" || upper === "PUT" || upper === "PATCH",
        destructive: upper === "DELETE" || route.endsWith("/delete")
      })
    }
  }
  return operations
}

// ---------------------------------------------------------------------------
// JSON with values JSON.stringify cannot write

/** Literal JSON text spliced in as is: `1e309`, or nesting too deep to build as objects. */
export class Raw {
  constructor(readonly text: string) {}
}

type Path = ReadonlyArray<string | number>

/** JSON.stringify, except that `Raw` values are written verbatim (and own `__proto__` keys survive). */
export const toJson = (value: unknown): string => {
  if (value instanceof Raw) return value.text
  if (Array.isArray(value)) return `[${value.map((item) => toJson(item)).join(",")}]`
  if (value !== null && typeof value === "object") {
    const members = Object.entries(value).map(([key, item]) => `${JSON.stringify(key)}:${toJson(item)}`)
    return `{${members.join(",")}}`
  }
  return JSON.stringify(value) ?? "null"
}

/** An object with an own property of any name, `__proto__` included. */
const withKey = (target: object, key: string, value: unknown): object =>
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true })

const clone = (value: unknown): unknown => {
  if (value instanceof Raw) return value
  if (Array.isArray(value)) return value.map(clone)
  if (value !== null && typeof value === "object") {
    const copy = {}
    for (const [key, item] of Object.entries(value)) withKey(copy, key, clone(item))
    return copy
  }
  return value
}

const MISSING = Symbol("missing")

/** A copy of `root` with the value at `path` replaced, or removed when `value` is MISSING. */
const replaceAt = (root: unknown, path: Path, value: unknown): unknown => {
  if (path.length === 0) return value
  const copy = clone(root)
  let parent = copy as Record<string | number, unknown>
  for (const step of path.slice(0, -1)) parent = parent[step] as Record<string | number, unknown>
  const last = path[path.length - 1] as string | number
  if (value === MISSING) {
    if (Array.isArray(parent)) parent.splice(Number(last), 1)
    else delete parent[last]
  } else withKey(parent, String(last), value)
  return copy
}

const valueAt = (root: unknown, path: Path): unknown => {
  let current = root
  for (const step of path) current = (current as Record<string | number, unknown>)[step]
  return current
}

// ---------------------------------------------------------------------------
// Plausible values

/** Ids that exist, by kind, for one caller (its own) or for the other project. */
export interface Ids {
  readonly thread: string
  readonly message: string
  readonly run: string
  readonly score: string
  readonly scoreName: string
  readonly project: string
  readonly key: string
  /** An uploaded attachment's storage key and public URL. */
  readonly attachmentKey: string
  readonly attachmentUrl: string
}

export interface Fixtures {
  readonly own: Ids
  readonly other: Ids
  /** A refresh token of an anonymous session the cases may claim and refresh. */
  readonly refreshToken: string
  /** Credentials to put in the wrong place (`Authorization` cases). */
  readonly credentials: {
    readonly apiKey: string
    readonly jwt: string
    readonly foreignJwt: string
    readonly adminToken: string
  }
}

export const NOW = "2026-11-22T10:15:30.123Z"

/** The id of the kind a field or parameter name says, relative to the route. */
export const idFor = (ids: Ids, name: string, route: string): string | undefined => {
  switch (name) {
    case "thread_id":
      return ids.thread
    case "message_id":
    case "parent_id":
      return ids.message
    case "run_id":
      return ids.run
    case "score_id":
      return ids.score
    case "project_id":
      return ids.project
    case "key_id":
      return ids.key
    case "key":
      return ids.attachmentKey
    case "url":
      return ids.attachmentUrl
    case "name":
      return route.includes("/scores") ? ids.scoreName : undefined
    case "after":
      if (route.includes("/messages")) return ids.message
      if (route.includes("/runs")) return ids.run
      if (route.includes("/scores")) return ids.score
      return ids.thread
    default:
      return undefined
  }
}

/** Strings tried, in order, against a schema's pattern: the first that matches is the plausible value. */
const PATTERN_CANDIDATES = [
  NOW,
  "2026-11-01",
  "0123456789abcdef0123456789abcdef",
  // A port nothing listens on: an issuer set by a case fails fast, never reaches out.
  "http://127.0.0.1:9",
  "fuzz-key-1",
  "fuzz"
]

/** Strings the document cannot say are plausible (an accepted file type). */
const STRING_HINTS: Readonly<Record<string, string>> = { filename: "Quarterly report.pdf" }

/** Hints for fields the document types as `unknown`: what a client would really send. */
const unknownHint = (name: string, ids: Ids, serial: () => number): unknown => {
  switch (name) {
    case "content":
      return { role: "user", content: [{ type: "text", text: "How do I reset my password?" }] }
    case "metadata":
    case "attributes":
      return { source: "fuzz", n: 1 }
    case "events":
      return {
        kind: "message_copied",
        id: `evt-${serial()}`,
        thread_id: ids.thread,
        message_id: ids.message,
        value: 1,
        props: { from: "fuzz" }
      }
    case "messages":
      return { role: "user", content: "How do I reset my password?" }
    case "tool_args":
      return { q: "weather" }
    default:
      return "text"
  }
}

export interface Field {
  readonly path: Path
  readonly schema: JsonSchema
  readonly required: boolean
}

export interface Plausible {
  readonly value: unknown
  /** Every property the value has, at any depth, with its schema. */
  readonly fields: ReadonlyArray<Field>
}

/** A value the schema accepts (as far as the document says), with all optional properties filled in. */
export const plausible = (
  doc: OpenApiDocument,
  schema: JsonSchema,
  context: {
    readonly ids: Ids
    readonly route: string
    readonly serial: () => number
    /** The refresh token fields name (claim, refresh). */
    readonly refreshToken: string
  }
): Plausible => {
  const fields: Array<Field> = []
  const make = (raw: JsonSchema, name: string, path: Path, depth: number): unknown => {
    const s = resolve(doc, raw)
    if (s.anyOf !== undefined) {
      const choice = s.anyOf.map((option) => resolve(doc, option)).find((option) => option.type !== "null")
      return choice === undefined ? null : make(choice, name, path, depth)
    }
    if (s.enum !== undefined && s.enum.length > 0) return s.enum[0]
    switch (s.type) {
      case "string": {
        const id = idFor(context.ids, name, context.route)
        if (id !== undefined) return id
        if (name === "refresh_token") return context.refreshToken
        const hint = STRING_HINTS[name]
        if (hint !== undefined) return hint
        if (s.pattern !== undefined) {
          const pattern = new RegExp(s.pattern)
          const match = PATTERN_CANDIDATES.find((candidate) => pattern.test(candidate))
          if (match !== undefined) return match
        }
        const text = `fuzz ${name}`
        return text.slice(0, s.maxLength ?? text.length)
      }
      case "integer":
        return Math.max(s.minimum ?? 0, Math.min(s.maximum ?? 42, 42))
      case "number":
        return 0.5
      case "boolean":
        return true
      case "array": {
        const singular = name.endsWith("_ids") ? name.slice(0, -1) : name
        if (depth > 3) return []
        return [make(s.items ?? {}, singular, [...path, 0], depth + 1)]
      }
      case "object": {
        const out = {}
        const required = new Set(s.required ?? [])
        for (const [key, propertySchema] of Object.entries(s.properties ?? {})) {
          if (depth > 3 && !required.has(key)) continue
          const propertyPath = [...path, key]
          fields.push({ path: propertyPath, schema: resolve(doc, propertySchema), required: required.has(key) })
          withKey(out, key, make(propertySchema, key, propertyPath, depth + 1))
        }
        if (Object.keys(s.properties ?? {}).length === 0 && typeof s.additionalProperties === "object") {
          return unknownHint(name, context.ids, context.serial)
        }
        return out
      }
      default:
        return unknownHint(name, context.ids, context.serial)
    }
  }
  const value = make(schema, "body", [], 0)
  // What the hints filled in (an event's kind, a message's role) is mutated too, untyped.
  const known = new Set(fields.map((field) => label(field.path)))
  const walk = (node: unknown, path: Path) => {
    if (path.length > 0 && !known.has(label(path))) fields.push({ path, schema: {}, required: false })
    if (node === null || typeof node !== "object" || node instanceof Raw) return
    const entries: Array<[string | number, unknown]> = Array.isArray(node)
      ? node.map((item, i) => [i, item])
      : Object.entries(node)
    for (const [key, item] of entries) walk(item, [...path, key])
  }
  walk(value, [])
  return { value, fields }
}

// ---------------------------------------------------------------------------
// Requests

export interface FuzzCase {
  /** What was done, e.g. `body.nest.array.5000` or `field[metadata].null`: the dedupe key with the route. */
  readonly mutation: string
  /** Path and query, from `/v1`. */
  readonly path: string
  /** Another method than the operation's. */
  readonly method?: string
  /** Added to (null: removed from) the mode's headers. */
  readonly headers?: Readonly<Record<string, string | null>>
  readonly body?: string | Buffer
  /** No Content-Length: the body goes out chunked. */
  readonly chunked?: boolean
  /** The server may close before answering (fuzz.test.ts also allows it for a body past twice its cap). */
  readonly mayClose?: boolean
}

const JSON_TYPE = { "content-type": "application/json" } as const

/** `value` percent-encoded as UTF-8, for a path segment or query value. */
const enc = (value: string) => encodeURIComponent(value)

/** A header value carrying UTF-8 bytes (Node writes header strings as latin1). */
export const utf8Header = (value: string) => Buffer.from(value, "utf8").toString("latin1")

const repeat = (length: number, unit = "a") => unit.repeat(Math.ceil(length / unit.length)).slice(0, length)

const nestedArrays = (depth: number) => new Raw(`${"[".repeat(depth)}${"]".repeat(depth)}`)
const nestedObjects = (depth: number) => new Raw(`${'{"a":'.repeat(depth)}{}${"}".repeat(depth)}`)
const NEST_DEPTHS = [70, 100, 1_000, 5_000]

/** A path segment as sent (already encoded where it needs to be). */
interface Segment {
  readonly label: string
  readonly raw: string
}

const pathSegmentVariants = (valid: string, other: string): Array<Segment> => [
  { label: "other-project", raw: enc(other) },
  { label: "empty", raw: "" },
  { label: "space", raw: "%20" },
  { label: "zero", raw: "0" },
  { label: "null", raw: "null" },
  { label: "49-chars", raw: repeat(49) },
  { label: "valid+1", raw: `${valid}x` },
  { label: "prefix-only", raw: `${valid.split("_")[0] ?? "x"}_` },
  { label: "lowercase", raw: valid.toLowerCase() },
  { label: "unicode", raw: enc("日本語-é-🙂") },
  { label: "pct-00", raw: "%00" },
  { label: "pct-FF", raw: "%FF" },
  { label: "pct-2F", raw: `${valid}%2F..` },
  { label: "dotdot", raw: ".." },
  { label: "pct-dotdot", raw: "%2e%2e" },
  { label: "bad-pct", raw: "%" },
  { label: "bad-pct-zz", raw: "%ZZ" },
  { label: "overlong-utf8", raw: "%C0%AF" },
  { label: "surrogate-utf8", raw: "%ED%A0%80" },
  { label: "latin1-byte", raw: "\u00ff" },
  { label: "sql-ish", raw: enc("' OR 1=1 --") },
  { label: "10kb", raw: repeat(10 * 1024) }
]

/** The route with its path parameters filled in, one of them possibly replaced by `override`. */
const fillRoute = (op: Operation, ids: Ids, override?: { readonly name: string; readonly raw: string }): string =>
  op.route.replace(/\{([^}]+)\}/g, (_, name: string) => {
    if (override !== undefined && override.name === name) return override.raw
    return enc(idFor(ids, name, op.route) ?? "fuzz")
  })

const LIMIT_VALUES = [
  "0",
  "-1",
  "1.5",
  "0x10",
  "1e3",
  "99999999999999999999",
  "",
  "NaN",
  "Infinity",
  "-Infinity",
  "1",
  "100000",
  "%201",
  "1%00",
  "+5",
  "05",
  "1_000",
  "١٢",
  "9007199254740993"
]

const TIMESTAMP_VALUES = [
  "2026-02-30T00:00:00.000Z",
  "2026-13-01T00:00:00.000Z",
  "0001-01-01T00:00:00.000Z",
  "9999-12-31T23:59:59.999Z",
  "275760-09-13T00:00:00.000Z",
  "+275760-09-13T00:00:00.000Z",
  "-000001-01-01T00:00:00.000Z",
  "2026-11-22T10:15:30.123456789Z",
  "2026-11-22T10:15:30.123456Z",
  "2026-11-22T24:00:00.000Z",
  "2026-11-22 10:15:30Z",
  "1970-01-01T00:00:00+23:59",
  "9999-12-31T23:59:59.999-23:59",
  "0001-01-01T00:00:00.000+23:59",
  "now",
  "0",
  "1e10",
  ""
]

const DATE_VALUES = [
  "0001-01-01",
  "9999-12-31",
  "2026-02-29",
  "2024-02-29",
  "2026-04-31",
  "10000-01-01",
  "2026-1-1",
  "20261122",
  "2026-11-22T00:00:00Z",
  "0000-01-01",
  ""
]

/** Bad and borderline dates for a schema whose pattern is a timestamp's or a calendar date's. */
const datesFor = (pattern: string): ReadonlyArray<string> => {
  if (!pattern.includes("\\d{4}")) return []
  return pattern.includes("T") ? TIMESTAMP_VALUES : DATE_VALUES
}

/** A query value as sent: encoded, unless it carries percent escapes of its own. */
const queryText = (value: string) => (value.includes("%") ? value : enc(value))

/** Borderline values for one query parameter, from its schema and name. */
const queryValues = (param: NamedSchema, op: Operation, fixtures: Fixtures): Array<[string, string]> => {
  const { name, schema } = param
  const values: Array<[string, string]> = [
    ["empty", ""],
    ["10kb", repeat(10 * 1024)],
    ["unicode", enc("日本語-🙂")],
    ["pct-00", "%00"],
    ["bad-pct", "%"],
    ["bad-pct-zz", "%ZZ"],
    ["pct-FF", "%FF"],
    ["surrogate-utf8", "%ED%A0%80"],
    ["plus", "+"],
    ["lone-surrogate-escape", "%5Cud800"]
  ]
  if (name === "limit" || /decoded into a number/.test(schema.description ?? "")) {
    for (const value of LIMIT_VALUES) values.push([`number:${value}`, queryText(value)])
  }
  if (schema.enum !== undefined) {
    for (const value of ["yes", "TRUE", "1", "0", "True ", "null", "undefined"])
      values.push([`enum:${value}`, enc(value)])
  }
  for (const value of datesFor(schema.pattern ?? "")) values.push([`date:${value}`, enc(value)])
  const valid = idFor(fixtures.own, name, op.route)
  const other = idFor(fixtures.other, name, op.route)
  if (valid !== undefined && other !== undefined) {
    values.push(["valid-id", enc(valid)], ["other-project-id", enc(other)], ["49-chars", repeat(49)])
  }
  if (schema.maxLength !== undefined) values.push(["max+1", repeat(schema.maxLength + 1)])
  return values
}

const plausibleQuery = (op: Operation, fixtures: Fixtures): string =>
  op.query
    .map(({ name, schema }) => {
      const id = idFor(fixtures.own, name, op.route)
      if (name === "after" || id === undefined) {
        if (schema.enum !== undefined) return `${name}=${enc(String(schema.enum[0]))}`
        if (name === "limit") return "limit=5"
        return undefined
      }
      return `${name}=${enc(id)}`
    })
    .filter((part) => part !== undefined)
    .join("&")

/** The plausible body, for cases that vary something else, so that they get as far as the handler. */
const carrying = (body: Plausible | undefined) =>
  body === undefined ? {} : { headers: JSON_TYPE, body: toJson(body.value) }

export const queryCases = (
  op: Operation,
  fixtures: Fixtures,
  body: Plausible | undefined,
  rng: Rng
): Array<FuzzCase> => {
  const base = fillRoute(op, fixtures.own)
  const at = (mutation: string, query: string): FuzzCase => ({ mutation, path: `${base}?${query}`, ...carrying(body) })
  const cases: Array<FuzzCase> = [
    at("query.plausible", plausibleQuery(op, fixtures)),
    at("query.unknown", "foo=bar"),
    at("query.proto", "__proto__=1&constructor=x&__proto__[x]=1"),
    at("query.brackets", "limit[]=1&after[a]=b"),
    at("query.empty-name", "=x&&&=&"),
    at("query.semicolons", "a=1;b=2"),
    at("query.bare-question-mark", ""),
    at("query.200-params", Array.from({ length: 200 }, (_, i) => `p${i}=${i}`).join("&")),
    at("query.10kb", `q=${repeat(10 * 1024)}`),
    at("query.bad-pct-name", "%ZZ=1&%=2")
  ]
  for (const param of op.query) {
    for (const [label, value] of queryValues(param, op, fixtures)) {
      cases.push(at(`query[${param.name}].${label}`, `${param.name}=${value}`))
    }
    cases.push(at(`query[${param.name}].repeated`, `${param.name}=1&${param.name}=2&${param.name}=`))
    cases.push(at(`query[${param.name}].no-value`, param.name))
  }
  // Pairs across parameters (a range from far past to far future, and the like).
  const dateParams = op.query.filter((param) => datesFor(param.schema.pattern ?? "").length > 0)
  if (dateParams.length >= 2) {
    for (let i = 0; i < 12; i++) {
      const parts = dateParams.map((param) => `${param.name}=${enc(rng.pick(datesFor(param.schema.pattern ?? "")))}`)
      cases.push(at("query.date-range", parts.join("&")))
    }
  }
  return cases
}

export const pathCases = (op: Operation, fixtures: Fixtures, body: Plausible | undefined): Array<FuzzCase> => {
  const valid = fillRoute(op, fixtures.own)
  const at = (mutation: string, path: string): FuzzCase => ({ mutation, path, ...carrying(body) })
  const cases: Array<FuzzCase> = [at("path.valid", valid)]
  for (const name of op.pathParams) {
    const own = idFor(fixtures.own, name, op.route) ?? "fuzz"
    const other = idFor(fixtures.other, name, op.route) ?? "fuzz"
    for (const { label, raw } of pathSegmentVariants(own, other)) {
      cases.push(at(`path[${name}].${label}`, fillRoute(op, fixtures.own, { name, raw })))
    }
    // An id of another kind (a message where a thread belongs, ...).
    for (const kind of ["thread_id", "message_id", "run_id", "project_id"].filter((kind) => kind !== name)) {
      const wrong = idFor(fixtures.own, kind, op.route) ?? "fuzz"
      cases.push(at(`path[${name}].${kind}`, fillRoute(op, fixtures.own, { name, raw: enc(wrong) })))
    }
  }
  cases.push(at("path.trailing-slash", `${valid}/`))
  cases.push(at("path.double-slash", valid.replace("/v1/", "/v1//")))
  cases.push(at("path.extra-segment", `${valid}/extra`))
  cases.push(at("path.uppercase", valid.toUpperCase()))
  cases.push(at("path.fragment", `${valid}#frag`))
  cases.push(at("path.dot-segments", valid.replace("/v1/", "/v1/./x/../")))
  return cases
}

// ---------------------------------------------------------------------------
// Bodies

/** A value made only when a case is drawn that uses it. */
class Lazy {
  constructor(readonly make: () => unknown) {}
}

/**
 * Values for fields of a given name that an audit found mishandled: webhook
 * destinations in the IPv6 forms that reach loopback or private addresses
 * (refused, 400), and evaluator patterns whose backtracking was exponential
 * or which RE2 cannot compile (linear, or refused: never a stall or a 500).
 */
const NAMED_VALUES: Readonly<Record<string, ReadonlyArray<string>>> = {
  url: [
    "https://[::127.0.0.1]/hook",
    "https://[::ffff:0:127.0.0.1]/hook",
    "https://[64:ff9b:1::a9fe:a9fe]/hook",
    "https://[2001::1]/hook",
    "https://[100::1]/hook",
    "https://[::ffff:169.254.169.254]/hook"
  ],
  pattern: ["(a|a)+$", "(a|aa)+$", "(\\w|\\d)+$", "(?:a|a)*b", "(a)\\1", "(?=a)b", "[\\s\\S]{1000}", "(a+)+$"]
}

/** Variants of one field's value, from its schema (and its name, for the fields in NAMED_VALUES). */
const fieldValues = (schema: JsonSchema, current: unknown, name?: string): Array<[string, unknown]> => {
  const named = NAMED_VALUES[name === "webhook_url" ? "url" : (name ?? "")] ?? []
  const values: Array<[string, unknown]> = [
    ...named.map((value, index): [string, unknown] => [`named-${index}`, value]),
    ["null", null],
    ["array-instead", [current]],
    ["object-instead", { value: current }],
    ["nul-char", "a\u0000b"],
    ["lone-surrogate", "\ud800"],
    ["lone-low-surrogate", "x\udc00y"],
    ["emoji", "🙂".repeat(40)],
    ["empty-string", ""],
    ["whitespace", " \t\n "],
    ["1e309", new Raw("1e309")],
    ["-1e309", new Raw("-1e309")],
    ["huge-int-text", new Raw("99999999999999999999999999999")],
    ["2^53+1", new Raw("9007199254740993")],
    ["negative", -1],
    ["fraction", 1.5],
    ["neg-zero", new Raw("-0")],
    ["1e21", 1e21],
    ["true", true],
    ["10kb-string", new Lazy(() => repeat(10 * 1024))],
    ["array-of-nulls", [null, null]]
  ]
  if (schema.maxLength !== undefined) {
    values.push(["max-length+1", repeat(schema.maxLength + 1)])
    values.push(["max-length+lots", new Lazy(() => repeat((schema.maxLength ?? 0) + 100_000))])
    values.push(["max-length-emoji", "🙂".repeat(schema.maxLength)])
    values.push(["max-length-nul", `${repeat(schema.maxLength - 1)}\u0000`])
  }
  if (schema.minLength !== undefined && schema.minLength > 0) values.push(["below-min-length", ""])
  if (schema.maximum !== undefined) {
    values.push(["maximum+1", schema.maximum + 1])
    values.push(["maximum*1000", schema.maximum * 1000])
  }
  if (schema.minimum !== undefined) values.push(["minimum-1", schema.minimum - 1])
  if (schema.enum !== undefined) {
    values.push(["enum-other", "not-a-member"])
    const first = schema.enum[0]
    if (typeof first === "string") values.push(["enum-uppercase", first.toUpperCase()], ["enum-padded", ` ${first} `])
  }
  if (schema.pattern !== undefined) {
    for (const date of datesFor(schema.pattern)) values.push([`date:${date}`, date])
    values.push(["pattern-miss", "not matching"])
  }
  if (schema.type === "array" || Array.isArray(current)) {
    const item = Array.isArray(current) ? current[0] : "x"
    if (schema.maxItems !== undefined) {
      const items = (length: number) => new Lazy(() => Array.from({ length }, () => clone(item)))
      values.push(["max-items+1", items(schema.maxItems + 1)], ["max-items*10", items(schema.maxItems * 10)])
    }
    values.push(["empty-array", []])
    values.push(["items-wrong-type", [123, true, {}]])
    values.push(["items-nested-arrays", [[[item]]]])
  }
  if (schema.type === "object" || (current !== null && typeof current === "object" && !Array.isArray(current))) {
    values.push(["unknown-key", { ...(current as object), fuzz_unknown: 1 }])
    values.push(["proto-key", withKey(clone(current) as object, "__proto__", { polluted: true })])
    values.push(["constructor-key", withKey(clone(current) as object, "constructor", { prototype: { polluted: 1 } })])
    values.push([
      "many-keys",
      new Lazy(() => Object.fromEntries(Array.from({ length: 2_000 }, (_, i) => [`k${i}`, i])))
    ])
    values.push(["long-key", new Lazy(() => ({ [repeat(10_000)]: 1 }))])
    values.push(["nul-key", { "a\u0000b": 1 }])
    values.push(["surrogate-key", { "\ud800": 1 }])
  }
  return values
}

/** Object-valued and array-valued places in a body, where nesting and extra keys go. */
const containers = (value: unknown, path: Path = []): Array<Path> => {
  if (value instanceof Raw || value === null || typeof value !== "object") return []
  const inner = Array.isArray(value)
    ? value.flatMap((item, index) => containers(item, [...path, index]))
    : Object.entries(value).flatMap(([key, item]) => containers(item, [...path, key]))
  return [path, ...inner]
}

const label = (path: Path) => (path.length === 0 ? "body" : path.join("."))

/** Splices raw bytes into the JSON text in place of a marker string. */
const spliceBytes = (text: string, marker: string, bytes: ReadonlyArray<number>): Buffer => {
  const [before, after] = text.split(marker, 2)
  return Buffer.concat([Buffer.from(before ?? ""), Buffer.from(bytes), Buffer.from(after ?? "")])
}

const firstStringField = (fields: ReadonlyArray<Field>, value: unknown) =>
  fields.find((field) => typeof valueAt(value, field.path) === "string")

/** Whole-body mutations: what any JSON route gets, whatever its schema. */
const wholeBodyCases = (path: string, body: Plausible): Array<FuzzCase> => {
  const text = toJson(body.value)
  const json = (mutation: string, raw: string | Buffer, headers: Record<string, string | null> = JSON_TYPE) => ({
    mutation,
    path,
    headers,
    body: raw
  })
  const cases: Array<FuzzCase> = [
    json("body.plausible", text),
    json("body.empty", ""),
    json("body.null", "null"),
    json("body.array", "[]"),
    json("body.array-of-plausible", `[${text}]`),
    json("body.string", '"x"'),
    json("body.number", "3"),
    json("body.1e309", "1e309"),
    json("body.true", "true"),
    json("body.empty-object", "{}"),
    json("body.invalid-json", "{'a': 1}"),
    json("body.unquoted-keys", "{a:1}"),
    json("body.nan", '{"a": NaN}'),
    json("body.trailing-comma", text.replace(/}$/, ",}")),
    json("body.truncated", text.slice(0, Math.max(1, Math.floor(text.length / 2)))),
    json("body.only-open-brace", "{"),
    json("body.bom", `\ufeff${text}`),
    json("body.bom-bytes", Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)])),
    json("body.utf16", Buffer.from(text, "utf16le")),
    json("body.invalid-utf8-key", Buffer.concat([Buffer.from('{"'), Buffer.from([0xff, 0xfe]), Buffer.from('":1}')])),
    json("body.trailing-garbage", `${text} x`),
    json("body.two-documents", `${text}${text}`),
    json("body.whitespace-only", "   \n\t "),
    json("body.nul-byte", `${text}\u0000`),
    json("body.proto", toJson(withKey(clone(body.value) as object, "__proto__", { polluted: true }))),
    json("body.constructor", toJson(withKey(clone(body.value) as object, "constructor", { prototype: { x: 1 } }))),
    json("body.unknown-key", text.replace(/^\{/, '{"fuzz_unknown":1,').replace(/,}$/, "}"))
  ]
  const stringField = firstStringField(body.fields, body.value)
  if (stringField !== undefined) {
    const marked = toJson(replaceAt(body.value, stringField.path, "FUZZMARK"))
    const at = label(stringField.path)
    cases.push(json(`body.invalid-utf8[${at}]`, spliceBytes(marked, "FUZZMARK", [0xff, 0xfe, 0x41])))
    cases.push(json(`body.overlong-utf8[${at}]`, spliceBytes(marked, "FUZZMARK", [0xc0, 0xaf])))
    cases.push(json(`body.surrogate-utf8[${at}]`, spliceBytes(marked, "FUZZMARK", [0xed, 0xa0, 0x80])))
    cases.push(json(`body.truncated-utf8[${at}]`, spliceBytes(marked, "FUZZMARK", [0xe6, 0x97])))
  }
  for (const field of body.fields.filter((field) => field.path.length === 1).slice(0, 3)) {
    const key = JSON.stringify(field.path[0])
    // The same key twice: once wrong, once right, in both orders.
    cases.push(json(`body.duplicate-key-first[${label(field.path)}]`, text.replace(/^\{/, `{${key}:[[1]],`)))
    cases.push(json(`body.duplicate-key-last[${label(field.path)}]`, text.replace(/\}$/, `,${key}:{"x":null}}`)))
  }
  // Deeper than any recursive parser's stack, as the whole body only (100 KB of brackets).
  for (const depth of [...NEST_DEPTHS, 50_000]) {
    cases.push(json(`body.nest.array.${depth}`, nestedArrays(depth).text))
    cases.push(json(`body.nest.object.${depth}`, nestedObjects(depth).text))
  }
  return cases
}

/** Deep nesting inside the body, at each object or array place of the plausible value. */
const nestedFieldCases = (path: string, body: Plausible, rng: Rng): Array<FuzzCase> => {
  const places = containers(body.value).filter((place) => place.length > 0)
  // Fields the document types loosely are the likeliest to take any JSON: always include them.
  for (const field of body.fields) {
    if (field.schema.type === undefined && !places.some((place) => label(place) === label(field.path))) {
      places.push(field.path)
    }
  }
  const cases: Array<FuzzCase> = []
  for (const place of places) {
    for (const depth of NEST_DEPTHS) {
      const kind = rng.chance(0.5) ? "array" : "object"
      const nested = kind === "array" ? nestedArrays(depth) : nestedObjects(depth)
      cases.push({
        mutation: `field[${label(place)}].nest.${kind}.${depth}`,
        path,
        headers: JSON_TYPE,
        body: toJson(replaceAt(body.value, place, nested))
      })
    }
  }
  return cases
}

/**
 * `count` mutations of single fields of the plausible body, drawn from every
 * field and every variant (built only once drawn: some are megabytes).
 */
export const fieldCases = (
  op: Operation,
  fixtures: Fixtures,
  body: Plausible,
  rng: Rng,
  count: number
): Array<FuzzCase> => {
  const path = fillRoute(op, fixtures.own)
  const candidates = body.fields.flatMap((field) => {
    const current = valueAt(body.value, field.path)
    const name = field.path.at(-1)
    const variants: Array<[string, unknown]> = [
      ["missing", MISSING],
      ...fieldValues(field.schema, current, typeof name === "string" ? name : undefined)
    ]
    return variants.map(([kind, value]) => ({ field, kind, value }))
  })
  return rng.sample(candidates, count).map(({ field, kind, value }) => ({
    mutation: `field[${label(field.path)}].${kind}`,
    path,
    headers: JSON_TYPE,
    body: toJson(replaceAt(body.value, field.path, value instanceof Lazy ? value.make() : value))
  }))
}

/** Whole-body mutations, and deep nesting in each of its fields. */
export const bodyCases = (op: Operation, fixtures: Fixtures, body: Plausible, rng: Rng): Array<FuzzCase> => {
  const path = fillRoute(op, fixtures.own)
  return [...wholeBodyCases(path, body), ...nestedFieldCases(path, body, rng)]
}

/**
 * Bodies over the route's cap `cap`: just over it and near twice it, with a
 * Content-Length and chunked (the server must answer 413 and read the rest,
 * docs/decisions.md "Wire"), and 5 MiB (past twice most caps: it may cut
 * the connection after its 413, which fuzz.test.ts allows by size).
 */
export const oversizedCases = (op: Operation, fixtures: Fixtures, body: Plausible, cap: number): Array<FuzzCase> => {
  const path = fillRoute(op, fixtures.own)
  const text = toJson(body.value)
  const padded = (bytes: number) => text + " ".repeat(Math.max(0, bytes - text.length))
  const sizes: Array<[string, number]> = [
    ["cap+1", cap + 1],
    ["twice-cap-1kib", 2 * cap - 1024],
    ["5mib", 5 * 1024 * 1024]
  ]
  return sizes.flatMap(([name, bytes]) => [
    { mutation: `body.over-cap.${name}`, path, headers: JSON_TYPE, body: padded(bytes) },
    { mutation: `body.over-cap.${name}-chunked`, path, headers: JSON_TYPE, body: padded(bytes), chunked: true }
  ])
}

// ---------------------------------------------------------------------------
// Headers and framing

const malformedJwts = (jwt: string): Array<[string, string]> => {
  const [header = "", payload = "", signature = ""] = jwt.split(".")
  const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url")
  const claims = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as Record<string, unknown>
  return [
    ["jwt-three-dots", "a.b.c"],
    ["jwt-two-parts", `${header}.${payload}`],
    ["jwt-alg-none", `${b64({ alg: "none", typ: "JWT" })}.${payload}.`],
    ["jwt-alg-hs256", `${b64({ alg: "HS256", typ: "JWT" })}.${payload}.${signature}`],
    ["jwt-unknown-kid", `${b64({ alg: "ES256", kid: "nope" })}.${payload}.${signature}`],
    ["jwt-kid-traversal", `${b64({ alg: "ES256", kid: "../../etc/passwd" })}.${payload}.${signature}`],
    ["jwt-bad-signature", `${header}.${payload}.${signature.slice(0, -4)}AAAA`],
    ["jwt-resigned-claims", `${header}.${b64({ ...claims, sub: "mallory", exp: 9_999_999_999 })}.${signature}`],
    ["jwt-claims-not-json", `${header}.${Buffer.from("not json").toString("base64url")}.${signature}`],
    ["jwt-claims-array", `${header}.${b64([1, 2])}.${signature}`],
    ["jwt-header-not-json", `${Buffer.from("{").toString("base64url")}.${payload}.${signature}`],
    ["jwt-bad-base64", "eyJ!!!.eyJ???.***"],
    ["jwt-huge", `${header}.${Buffer.from(repeat(8 * 1024)).toString("base64url")}.${signature}`],
    ["jwt-unicode", utf8Header("ünï.cødé.🙂")]
  ]
}

const authorizationValues = (fixtures: Fixtures): Array<[string, string | null]> => {
  const { apiKey, jwt, foreignJwt, adminToken } = fixtures.credentials
  return [
    ["missing", null],
    ["empty", ""],
    ["bearer-only", "Bearer"],
    ["bearer-space", "Bearer "],
    ["bearer-spaces", "Bearer      "],
    ["basic", `Basic ${Buffer.from("user:pass").toString("base64")}`],
    ["digest", 'Digest username="x", nonce="y"'],
    ["lowercase-scheme-api-key", `bearer ${apiKey}`],
    ["api-key", `Bearer ${apiKey}`],
    ["api-key-truncated", `Bearer ${apiKey.slice(0, -1)}`],
    ["api-key-padded", `Bearer  ${apiKey} `],
    ["api-key-twice", `Bearer ${apiKey} ${apiKey}`],
    ["sk-prefix-only", "Bearer sk_"],
    ["jwt", `Bearer ${jwt}`],
    ["jwt-other-project", `Bearer ${foreignJwt}`],
    ["admin-token", `Bearer ${adminToken}`],
    ["20kb", `Bearer ${repeat(20 * 1024)}`],
    ...malformedJwts(jwt).map(([kind, token]): [string, string] => [kind, `Bearer ${token}`])
  ]
}

export const headerCases = (op: Operation, fixtures: Fixtures, body: Plausible | undefined): Array<FuzzCase> => {
  const path = fillRoute(op, fixtures.own)
  const payload = body === undefined ? undefined : toJson(body.value)
  const withBody = (mutation: string, headers: Record<string, string | null>): FuzzCase =>
    payload === undefined
      ? { mutation, path, headers }
      : { mutation, path, headers: { ...JSON_TYPE, ...headers }, body: payload }
  const cases: Array<FuzzCase> = []
  for (const [kind, value] of authorizationValues(fixtures))
    cases.push(withBody(`header.authorization.${kind}`, { authorization: value }))
  for (const name of ["svc-user-id", "svc-workspace-id"]) {
    for (const [kind, value] of [
      ["missing", null],
      ["empty", ""],
      ["whitespace", "   "],
      ["255-chars", repeat(255)],
      ["256-chars", repeat(256)],
      ["8kb", repeat(8 * 1024)],
      ["unicode", utf8Header("ユーザー-🙂")],
      ["latin1", "\u00e9\u00ff"],
      ["nul-escape", "a\\u0000b"],
      ["padded", "  alice  "]
    ] as const) {
      cases.push(withBody(`header.${name}.${kind}`, { [name]: value }))
    }
  }
  for (const [kind, value] of [
    ["9-tokens", Array.from({ length: 9 }, (_, i) => `sdk${i}/1.0.${i}`).join(" ")],
    ["8-tokens", Array.from({ length: 8 }, (_, i) => `sdk${i}/1.0.${i}`).join(" ")],
    ["1000-tokens", Array.from({ length: 1000 }, () => "a/1").join(" ")],
    ["junk", "////"],
    ["slashes", "a/ /b a//b"],
    ["empty", ""],
    ["long-parts", `${repeat(65)}/${repeat(65)}`],
    ["unicode", utf8Header("клиент/1.0 🙂/2")],
    ["8kb", repeat(8 * 1024)],
    ["tabs", "a/1\tb/2\t\tc/3"]
  ] as const) {
    cases.push(withBody(`header.svc-sdk.${kind}`, { "svc-sdk": value }))
  }
  for (const [kind, value] of [
    ["other-origin", "https://evil.example"],
    ["null", "null"],
    ["unicode", utf8Header("https://exämple.com")]
  ] as const) {
    cases.push(withBody(`header.origin.${kind}`, { origin: value }))
  }
  cases.push(withBody("header.x-forwarded-for.junk", { "x-forwarded-for": "not-an-ip, 999.1.1.1, ::ffff:zz" }))
  cases.push(withBody("header.accept.text", { accept: "text/plain" }))
  for (const header of op.headers) {
    for (const [kind, value] of [
      ["valid", `fuzz-${header.name}-1`],
      ["empty", ""],
      ["space-inside", "a b"],
      ["max+1", repeat((header.schema.maxLength ?? 255) + 1)],
      ["unicode", utf8Header("ключ-🙂")],
      ["8kb", repeat(8 * 1024)]
    ] as const) {
      cases.push(withBody(`header[${header.name}].${kind}`, { [header.name]: value }))
    }
    // The valid value again with another body (an idempotency key reused for another request).
    const stringField = body === undefined ? undefined : firstStringField(body.fields, body.value)
    if (body !== undefined && stringField !== undefined) {
      cases.push({
        mutation: `header[${header.name}].valid-other-body`,
        path,
        headers: { ...JSON_TYPE, [header.name]: `fuzz-${header.name}-1` },
        body: toJson(replaceAt(body.value, stringField.path, "another value"))
      })
    }
  }
  if (payload !== undefined) {
    for (const [kind, value] of [
      ["missing", null],
      ["text-plain", "text/plain"],
      ["charset-latin1", "application/json; charset=latin1"],
      ["charset-utf16", "application/json; charset=utf-16"],
      ["form", "application/x-www-form-urlencoded"],
      ["multipart", "multipart/form-data; boundary=x"],
      ["vendor-json", "application/vnd.fuzz+json"],
      ["uppercase", "APPLICATION/JSON"],
      ["params-junk", "application/json;;;=;charset"],
      ["empty", ""]
    ] as const) {
      cases.push({ mutation: `header.content-type.${kind}`, path, headers: { "content-type": value }, body: payload })
    }
    cases.push({
      mutation: "header.content-encoding.gzip",
      path,
      headers: { ...JSON_TYPE, "content-encoding": "gzip" },
      body: payload
    })
    cases.push({
      mutation: "header.content-encoding.junk",
      path,
      headers: { ...JSON_TYPE, "content-encoding": "br, x-unknown" },
      body: payload
    })
  }
  return cases
}

/** Framing through node:http: chunked bodies, and bodies where none is expected. */
export const framingCases = (op: Operation, fixtures: Fixtures, body: Plausible | undefined): Array<FuzzCase> => {
  const path = fillRoute(op, fixtures.own)
  const payload = body === undefined ? '{"a":1}' : toJson(body.value)
  const cases: Array<FuzzCase> = [
    { mutation: "framing.chunked", path, headers: JSON_TYPE, body: payload, chunked: true },
    { mutation: "framing.chunked-empty", path, headers: JSON_TYPE, body: "", chunked: true },
    { mutation: "framing.chunked-nest-5000", path, headers: JSON_TYPE, body: nestedArrays(5_000).text, chunked: true },
    {
      mutation: "framing.chunked-invalid-utf8",
      path,
      headers: JSON_TYPE,
      body: Buffer.from([0x7b, 0xff, 0x7d]),
      chunked: true
    },
    { mutation: "framing.chunked-no-type", path, headers: { "content-type": null }, body: payload, chunked: true }
  ]
  const carried = op.sendsBody ? { headers: JSON_TYPE, body: payload } : {}
  cases.push(
    { mutation: "framing.method.PATCH", method: "PATCH", path, ...carried },
    { mutation: "framing.method.unknown", method: "FUZZ", path, ...carried },
    {
      mutation: "framing.method.OPTIONS",
      method: "OPTIONS",
      path,
      headers: { origin: "https://app.example.com", "access-control-request-method": op.method }
    },
    { mutation: "framing.expect-100-continue", path, headers: { ...JSON_TYPE, expect: "100-continue" }, body: payload },
    { mutation: "framing.expect-junk", path, headers: { ...JSON_TYPE, expect: "fuzz" }, body: payload },
    // Both framings at once: the way to smuggle a request past a proxy.
    {
      mutation: "framing.transfer-encoding-and-length",
      path,
      headers: { ...JSON_TYPE, "transfer-encoding": "chunked" },
      body: payload
    },
    {
      mutation: "framing.transfer-encoding-junk",
      path,
      headers: { ...JSON_TYPE, "transfer-encoding": "gzip, chunked" },
      body: payload,
      chunked: true
    }
  )
  if (op.method === "GET") cases.push({ mutation: "framing.method.HEAD", method: "HEAD", path })
  if (!op.sendsBody) {
    cases.push({ mutation: "framing.body-on-bodiless", path, headers: JSON_TYPE, body: payload })
    cases.push({
      mutation: "framing.text-body-on-bodiless",
      path,
      headers: { "content-type": "text/plain" },
      body: "x"
    })
  }
  return cases
}

/** Frontend base URL prefixes other than the caller's own project (`/p/{project_id}`). */
export const frontendPrefixVariants = (own: string, other: string): Array<Segment> => [
  { label: "other-project", raw: enc(other) },
  { label: "unknown-project", raw: "proj_00000000000000000000000000" },
  { label: "49-chars", raw: repeat(49) },
  { label: "pct-00", raw: "%00" },
  { label: "bad-pct", raw: "%ZZ" },
  { label: "pct-2F", raw: `${own}%2F` },
  { label: "unicode", raw: enc("проект") },
  { label: "dotdot", raw: ".." },
  { label: "own-uppercase", raw: own.toUpperCase() }
]
