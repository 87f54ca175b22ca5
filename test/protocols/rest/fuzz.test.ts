/**
 * Fuzzing every route of the gateway's own OpenAPI document, in every auth
 * mode, with malformed and borderline paths, queries, bodies, headers and
 * framing (generators in fuzz-cases.ts). Whatever the request, the answer is
 * below 500 and it comes: a dropped connection counts as a failure too, except
 * for a body over its cap, which the server may cut after its 413.
 *
 * Deterministic: one seed (FUZZ_SEED to try another) drives every choice, so a
 * failure reproduces with the seed it prints. FUZZ_SHARE (0.1 to 1, default
 * 1) takes that share of the sample: CI's second Node takes half of it with
 * another seed, so the two passes together try more distinct cases than
 * one whole sample twice, in less time.
 */
import { writeFileSync } from "node:fs"
import { request } from "node:http"
import { beforeAll, describe, expect, it } from "vitest"
import { asFrontend, newMessage, newThread } from "../../support/helpers.js"
import {
  ADMIN_TOKEN,
  admin,
  allStores,
  asUser,
  call,
  createProject,
  type Gateway,
  stores,
  type UserClient,
  useGateway
} from "../../support/layers.js"
import {
  bodyCases,
  type Fixtures,
  type FuzzCase,
  fieldCases,
  framingCases,
  frontendPrefixVariants,
  headerCases,
  type Ids,
  type OpenApiDocument,
  type Operation,
  operationsOf,
  oversizedCases,
  type Plausible,
  pathCases,
  plausible,
  queryCases,
  Rng
} from "./fuzz-cases.js"

const SEED = Number(process.env.FUZZ_SEED ?? 20261122)
const SHARE = Math.min(1, Math.max(0.1, Number(process.env.FUZZ_SHARE ?? 1) || 1))
const CONCURRENCY = 8
const REQUEST_TIMEOUT_MS = 10_000
/** Below this many requests per store the fuzzer has stopped doing its job. */
const MIN_REQUESTS_PER_STORE = 5_000
const MAX_REPORTED_FAILURES = 50

type ModeName = "api_key" | "jwt" | "anonymous" | "none" | "admin"

interface Mode {
  readonly name: ModeName
  /** Which base URL: the backend host, the project's frontend URL, or either (chosen per request). */
  readonly base: "backend" | "frontend" | "either"
  readonly headers: Readonly<Record<string, string>>
  readonly ids: Ids
  readonly covers: (op: Operation) => boolean
}

/** Cases per kind for one operation in one mode: all of them fit in a CI minute only sampled. */
const BUDGET = { path: 16, query: 30, body: 60, nest: 24, field: 50, header: 30, framing: 7, oversized: 2, prefix: 3 }
/** The share of that budget for a mode the operation refuses (401/403): only the way to the refusal is tested. */
const REFUSED_SHARE = 0.2

interface Planned {
  readonly mode: ModeName
  readonly op: Operation
  readonly prefix: string
  readonly fuzzCase: FuzzCase
}

interface Outcome {
  readonly status: number
  readonly text: string
  /** Why there was no complete answer: a socket error or the timeout. */
  readonly error?: string
}

interface Failure {
  readonly method: string
  readonly route: string
  /** The mutation with any field path left out: one entry per kind of request and route. */
  readonly kind: string
  readonly modes: Array<ModeName>
  /** The first few mutations of this kind that failed, and how many requests in all. */
  readonly examples: Array<string>
  count: number
  readonly status: string
  readonly url: string
  readonly body: string
}

const kindOf = (mutation: string) => mutation.replace(/^field\[[^\]]*\]/, "field[*]")

/** Requests per mode, answers per status, and the failures, deduplicated. */
class Tally {
  readonly sent: Record<string, number> = {}
  readonly statuses: Record<string, number> = {}
  readonly failures = new Map<string, Failure>()

  add(planned: Planned, outcome: Outcome) {
    this.sent[planned.mode] = (this.sent[planned.mode] ?? 0) + 1
    const bucket = outcome.error === undefined ? String(outcome.status) : "no answer"
    this.statuses[bucket] = (this.statuses[bucket] ?? 0) + 1
    const dropped = outcome.error !== undefined && !mayClose(planned)
    if (outcome.status < 500 && !dropped) return
    const method = planned.fuzzCase.method ?? planned.op.method
    const kind = kindOf(planned.fuzzCase.mutation)
    const key = `${method} ${planned.op.route} ${kind}`
    const known = this.failures.get(key)
    if (known !== undefined) {
      known.count++
      if (!known.modes.includes(planned.mode)) known.modes.push(planned.mode)
      if (known.examples.length < 3 && !known.examples.includes(planned.fuzzCase.mutation)) {
        known.examples.push(planned.fuzzCase.mutation)
      }
      return
    }
    this.failures.set(key, {
      method,
      route: planned.op.route,
      kind,
      modes: [planned.mode],
      examples: [planned.fuzzCase.mutation],
      count: 1,
      status: outcome.error === undefined ? String(outcome.status) : `${outcome.status} (${outcome.error})`,
      url: `${planned.prefix}${planned.fuzzCase.path}`.slice(0, 200),
      body: outcome.text.slice(0, 300)
    })
  }
}

/** One request over a fresh connection (no reuse, so a server-side close cannot hit the next request). */
const send = (baseUrl: string, planned: Planned, headers: Record<string, string>): Promise<Outcome> =>
  new Promise((resolve) => {
    const { fuzzCase } = planned
    const body = fuzzCase.body
    const sendHeaders = { ...headers }
    if (body !== undefined && !fuzzCase.chunked) sendHeaders["content-length"] = String(Buffer.byteLength(body))
    let settled = false
    let timer: NodeJS.Timeout | undefined
    const finish = (outcome: Outcome) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      resolve(outcome)
    }
    const url = new URL(baseUrl)
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        method: fuzzCase.method ?? planned.op.method,
        path: `${planned.prefix}${fuzzCase.path}`,
        headers: sendHeaders,
        agent: false
      },
      (res) => {
        const chunks: Array<Buffer> = []
        let size = 0
        res.on("data", (chunk: Buffer) => {
          size += chunk.length
          if (size < 4096) chunks.push(chunk)
        })
        res.on("end", () => finish({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString("utf8") }))
        res.on("error", (error) => finish({ status: res.statusCode ?? 0, text: "", error: error.message }))
        res.on("aborted", () => finish({ status: res.statusCode ?? 0, text: "", error: "response aborted" }))
      }
    )
    timer = setTimeout(() => {
      finish({ status: 0, text: "", error: `no answer within ${REQUEST_TIMEOUT_MS} ms` })
      req.destroy()
    }, REQUEST_TIMEOUT_MS)
    req.on("error", (error) => finish({ status: 0, text: "", error: `connection error: ${error.message}` }))
    if (body === undefined) req.end()
    else if (fuzzCase.chunked) {
      const buffer = Buffer.from(body)
      for (let offset = 0; offset < buffer.length; offset += 16 * 1024)
        req.write(buffer.subarray(offset, offset + 16 * 1024))
      req.end()
    } else req.end(body)
  })

/** Runs the tasks with at most `limit` in flight. */
const pool = async <T>(items: ReadonlyArray<T>, limit: number, run: (item: T) => Promise<void>) => {
  let next = 0
  const worker = async () => {
    while (next < items.length) {
      const item = items[next++] as T
      await run(item)
    }
  }
  await Promise.all(Array.from({ length: limit }, worker))
}

/**
 * The body caps of the README (128 KiB on message routes, 256 KiB for titles,
 * 4 MiB for run reports, 1 MiB elsewhere). A body over its cap is answered
 * 413 and, up to twice the cap, read to its end so the client reads the 413
 * (docs/decisions.md "Wire"): only past twice the cap may the server cut the
 * connection, so only there is a dropped connection no failure.
 */
const capOf = (route: string) => {
  if (route === "/v1/runs/stream") return 256 * 1024
  if (/\/threads\/[^/]+\/messages(\/[^/]+)?$/.test(route)) return 128 * 1024
  if (route === "/v1/runs") return 4 * 1024 * 1024
  return 1024 * 1024
}

const mayClose = (planned: Planned) =>
  planned.fuzzCase.mayClose === true ||
  (planned.fuzzCase.body !== undefined && Buffer.byteLength(planned.fuzzCase.body) > 2 * capOf(planned.op.route))

const mergeHeaders = (mode: Readonly<Record<string, string>>, overrides: FuzzCase["headers"]) => {
  const merged: Record<string, string> = { ...mode }
  for (const [name, value] of Object.entries(overrides ?? {})) {
    if (value === null) delete merged[name]
    else merged[name] = value
  }
  return merged
}

describe.each(stores)("OpenAPI fuzz ($name)", (storeUnderTest) => {
  // What the gateway logs at ERROR: the cause of a 500, shown when the test fails.
  const gatewayErrors: Array<string> = []
  const handle = useGateway(storeUnderTest, {}, { errors: gatewayErrors })
  let gateway: Gateway
  let doc: OpenApiDocument
  let projectId: string
  let modes: Array<Mode>
  let fixturesOf: (mode: Mode) => Fixtures

  /** A thread, a message, a run and a score of one caller, so that valid ids exist. */
  const seed = async (client: UserClient) => {
    const thread = await newThread(client, { title: "fuzz seed", metadata: { seed: true } })
    const message = await newMessage(client, thread, { content: { role: "user", content: "seed" } })
    const run = await client("POST", "/runs", { body: { thread_id: thread, status: "completed", message_id: message } })
    expect(run.status, run.text).toBe(201)
    const score = await client("POST", "/scores", {
      body: { name: "fuzz-score", data_type: "numeric", value: 1, thread_id: thread, run_id: run.body.run_id }
    })
    expect(score.status, score.text).toBe(201)
    const upload = await client("POST", "/files/attachments/generate-presigned-upload-url", {
      body: { filename: "seed.txt" }
    })
    expect(upload.status, upload.text).toBe(200)
    // The signed URL names PUBLIC_URL (the default port); the gateway under test listens elsewhere.
    const signed = new URL(upload.body.signedUrl as string)
    const put = await fetch(`${gateway.baseUrl}${signed.pathname}${signed.search}`, {
      method: "PUT",
      headers: { "content-type": "text/plain" },
      body: "seed"
    })
    expect(put.status, await put.text()).toBeLessThan(300)
    return {
      thread,
      message,
      run: run.body.run_id as string,
      score: score.body.score_id as string,
      attachmentKey: upload.body.key as string,
      attachmentUrl: upload.body.publicUrl as string
    }
  }

  const newKey = async (project: string) => {
    const reply = await admin(gateway)("POST", `/projects/${project}/api-keys`, { name: "fuzz" })
    expect(reply.status, reply.text).toBe(201)
    return reply.body.key_id as string
  }

  const serviceToken = async (apiKey: string) => {
    const reply = await asUser(gateway, apiKey, "alice", "ws-fuzz")("POST", "/auth/tokens")
    expect(reply.status, reply.text).toBe(200)
    return reply.body.token as string
  }

  const anonymousSession = async () => {
    const reply = await call(gateway.baseUrl, "POST", `/p/${projectId}/v1/auth/tokens/anonymous`)
    expect(reply.status, reply.text).toBe(200)
    return { token: reply.body.access_token as string, refreshToken: reply.body.refresh_token.token as string }
  }

  beforeAll(async () => {
    gateway = handle.current
    const project = await createProject(gateway, "fuzz")
    const other = await createProject(gateway, "fuzz-other")
    // Admin cases revoke keys and rewrite settings: they get a project of their own.
    const sandbox = await createProject(gateway, "fuzz-admin-sandbox")
    projectId = project.project_id

    const alice = asUser(gateway, project.api_key, "alice", "ws-fuzz")
    const aliceIds = await seed(alice)
    const otherIds = await seed(asUser(gateway, other.api_key, "alice", "ws-fuzz"))
    const sandboxKey = await newKey(sandbox.project_id)
    const otherKey = await newKey(other.project_id)
    const jwt = await serviceToken(project.api_key)
    const foreignJwt = await serviceToken(other.api_key)
    const anonymous = await anonymousSession()
    const anonymousIds = await seed(asFrontend(gateway, projectId, anonymous.token))
    // Claim and refresh cases use this one, so the anonymous caller above keeps its threads.
    const victim = await anonymousSession()

    const ids = (seeded: typeof aliceIds, project: string, key: string): Ids => ({
      ...seeded,
      scoreName: "fuzz-score",
      project,
      key
    })
    const own = ids(aliceIds, sandbox.project_id, sandboxKey)
    const foreign = ids(otherIds, other.project_id, otherKey)
    const identity = { "svc-user-id": "alice", "svc-workspace-id": "ws-fuzz" }
    const everything = () => true
    modes = [
      {
        name: "api_key",
        base: "backend",
        headers: { authorization: `Bearer ${project.api_key}`, ...identity },
        ids: own,
        covers: everything
      },
      { name: "jwt", base: "frontend", headers: { authorization: `Bearer ${jwt}` }, ids: own, covers: everything },
      {
        name: "anonymous",
        base: "frontend",
        headers: { authorization: `Bearer ${anonymous.token}` },
        ids: ids(anonymousIds, sandbox.project_id, sandboxKey),
        covers: everything
      },
      { name: "none", base: "either", headers: {}, ids: own, covers: everything },
      {
        name: "admin",
        base: "backend",
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
        ids: own,
        covers: (op) => op.route.startsWith("/v1/admin/")
      }
    ]
    fixturesOf = (mode) => ({
      own: mode.ids,
      other: foreign,
      refreshToken: victim.refreshToken,
      credentials: { apiKey: project.api_key, jwt, foreignJwt, adminToken: ADMIN_TOKEN }
    })

    const reply = await call(gateway.baseUrl, "GET", "/v1/openapi.json")
    expect(reply.status, reply.text).toBe(200)
    doc = reply.body as OpenApiDocument
  })

  const prefixOf = (mode: Mode, rng: Rng) => {
    const frontend = mode.base === "frontend" || (mode.base === "either" && rng.chance(0.5))
    return frontend ? `/p/${projectId}` : ""
  }

  const modeOf = (name: ModeName) => {
    const mode = modes.find((candidate) => candidate.name === name)
    if (mode === undefined) throw new Error(`no mode ${name}`)
    return mode
  }

  const plausibleBody = (mode: Mode, op: Operation, serial: () => number): Plausible | undefined => {
    if (op.body === undefined) return op.sendsBody ? { value: {}, fields: [] } : undefined
    return plausible(doc, op.body, {
      ids: mode.ids,
      route: op.route,
      serial,
      refreshToken: fixturesOf(mode).refreshToken
    })
  }

  /**
   * Tells whether the mode gets past authentication on the operation (401 or
   * 403 if not): ids that match nothing and an empty object, so that nothing
   * is deleted or claimed.
   */
  const probeOf = (mode: Mode, op: Operation): Planned => ({
    mode: mode.name,
    op,
    prefix: mode.base === "frontend" ? `/p/${projectId}` : "",
    fuzzCase: {
      mutation: "probe",
      path: op.route.replace(/\{[^}]+\}/g, "fuzz-probe"),
      ...(op.sendsBody ? { headers: { "content-type": "application/json" }, body: "{}" } : {})
    }
  })

  /** The first store takes the whole budget; the others 30 % of it (the same routes), all with TEST_ALL_STORES=1 (as CI runs). */
  const storeShare = (storeUnderTest === stores[0] || allStores ? 1 : 0.3) * SHARE

  /** Every case of one operation in one mode, sampled to the budget. */
  const plan = (mode: Mode, op: Operation, refused: boolean, body: Plausible | undefined, rng: Rng): Array<Planned> => {
    const fixtures = fixturesOf(mode)
    const share = (count: number) => Math.max(1, Math.round(count * storeShare * (refused ? REFUSED_SHARE : 1)))
    const carried = op.sendsBody ? body : undefined
    const bodyAll = op.sendsBody && body !== undefined ? bodyCases(op, fixtures, body, rng) : []
    const groups: Array<[keyof typeof BUDGET, Array<FuzzCase>]> = [
      ["path", pathCases(op, fixtures, carried)],
      // An operation without query parameters of its own gets only the generic junk (the first ten).
      ["query", queryCases(op, fixtures, carried, rng).slice(0, op.query.length > 0 ? undefined : 10)],
      ["body", bodyAll.filter((fuzzCase) => !fuzzCase.mutation.startsWith("field["))],
      ["nest", bodyAll.filter((fuzzCase) => fuzzCase.mutation.startsWith("field["))],
      [
        "field",
        op.body !== undefined && body !== undefined ? fieldCases(op, fixtures, body, rng, share(BUDGET.field)) : []
      ],
      ["header", headerCases(op, fixtures, op.sendsBody ? body : undefined)],
      ["framing", framingCases(op, fixtures, body)],
      ["oversized", op.sendsBody && body !== undefined ? oversizedCases(op, fixtures, body, capOf(op.route)) : []]
    ]
    const planned: Array<Planned> = []
    for (const [kind, cases] of groups) {
      // The whole-body nesting cases find defects shared by every JSON route: never sample them away.
      const keep = kind === "body" ? cases.filter((fuzzCase) => fuzzCase.mutation.startsWith("body.nest.")) : []
      const rest = cases.filter((fuzzCase) => !keep.includes(fuzzCase))
      for (const fuzzCase of [...keep, ...rng.sample(rest, share(BUDGET[kind]))]) {
        planned.push({ mode: mode.name, op, prefix: prefixOf(mode, rng), fuzzCase })
      }
    }
    if (mode.base === "frontend") {
      const valid = pathCases(op, fixtures, carried)[0] as FuzzCase
      for (const variant of rng.sample(
        frontendPrefixVariants(projectId, fixtures.other.project),
        share(BUDGET.prefix)
      )) {
        planned.push({
          mode: mode.name,
          op,
          prefix: `/p/${variant.raw}`,
          fuzzCase: { ...valid, mutation: `prefix.${variant.label}` }
        })
      }
    }
    return planned
  }

  it("no request, however malformed, is answered 5xx or dropped", async () => {
    const started = Date.now()
    const rng = new Rng(SEED)
    const tally = new Tally()
    const operations = operationsOf(doc)
    expect(operations.length).toBeGreaterThan(20)
    let serial = 0
    // Deletions last, and a thread's after its messages', so that the other cases find their ids.
    const phases: [Array<Planned>, Array<Planned>, Array<Planned>] = [[], [], []]
    for (const mode of modes) {
      for (const op of operations.filter(mode.covers)) {
        const body = plausibleBody(mode, op, () => ++serial)
        const probe = probeOf(mode, op)
        const outcome = await send(gateway.baseUrl, probe, mergeHeaders(mode.headers, probe.fuzzCase.headers))
        tally.add(probe, outcome)
        const refused = outcome.status === 401 || outcome.status === 403
        phases[op.destructive ? (op.method === "DELETE" ? 2 : 1) : 0].push(...plan(mode, op, refused, body, rng))
      }
    }
    for (const phase of phases) {
      await pool(phase, CONCURRENCY, async (planned) => {
        const headers = mergeHeaders(modeOf(planned.mode).headers, planned.fuzzCase.headers)
        tally.add(planned, await send(gateway.baseUrl, planned, headers))
      })
    }

    const total = Object.values(tally.sent).reduce((sum, count) => sum + count, 0)
    const failures = [...tally.failures.values()]
    console.log(
      `fuzz (${storeUnderTest.name}): seed ${SEED}, share ${SHARE}, ${total} requests in ${((Date.now() - started) / 1000).toFixed(1)} s, ` +
        `per mode ${JSON.stringify(tally.sent)}, statuses ${JSON.stringify(tally.statuses)}, ` +
        `${failures.length} distinct failures`
    )
    // The assertion shows the first ones; FUZZ_REPORT=prefix writes them all to prefix.<store>.json.
    if (process.env.FUZZ_REPORT) {
      writeFileSync(`${process.env.FUZZ_REPORT}.${storeUnderTest.name}.json`, JSON.stringify(failures, null, 1))
    }
    expect(total).toBeGreaterThan(MIN_REQUESTS_PER_STORE * SHARE)
    for (const mode of modes) expect(tally.sent[mode.name] ?? 0, `requests in mode ${mode.name}`).toBeGreaterThan(100)
    expect(
      failures.slice(0, MAX_REPORTED_FAILURES),
      `the gateway logged: ${gatewayErrors.slice(0, MAX_REPORTED_FAILURES).join("\n") || "nothing at ERROR"}`
    ).toEqual([])
    expect(failures).toHaveLength(0)
  }, 600_000)
})
