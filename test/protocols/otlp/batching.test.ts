/**
 * Exports of one project's new traces are batched under load
 * (src/platform/GroupCommit.ts, src/traces/Traces.ts): while a statement
 * runs, the exports that arrive gather behind it and go in the next one.
 * Each export still gets what it alone would have: its spans kept once, its
 * runs made once, its own refusals counted and said; two exports of one trace
 * never share a statement.
 */

import * as Redacted from "effect/Redacted"
import pg from "pg"
import { beforeAll, describe, expect, it } from "vitest"
import { call, createProject, stores, useGateway } from "../../support/layers.js"
import { chatSpan, exportOf, FAULTY_MODEL, jsonSpan, postJson, traceIdOf, whileRunsRefused } from "./otlp.js"

/** Trace `trace`: an agent span and a model call under it (one run). */
const traceSpans = (trace: number, model = "gpt-4o-mini") => [
  jsonSpan({ trace, span: 1, name: `agent ${trace}` }),
  chatSpan(trace, { model, name: "chat gpt-4o-mini" })
]

/** The gateway's figures of new-trace statements and the exports they carried. */
const batchFigures = async (baseUrl: string) => {
  const text = (await call(baseUrl, "GET", "/metrics")).text
  const figure = (name: string) => {
    const line = text.split("\n").find((entry) => entry.startsWith(`${name} `))
    if (line === undefined) throw new Error(`${name} is not in /metrics`)
    return Number(line.split(" ")[1])
  }
  return {
    statements: figure("svc_otlp_new_trace_statements_total"),
    exports: figure("svc_otlp_new_trace_exports_total")
  }
}

describe.each(stores)("exports batched under load ($name)", (storeUnderTest) => {
  const gateway = useGateway(storeUnderTest)
  let apiKey: string
  let projectId: string

  beforeAll(async () => {
    const project = await createProject(gateway.current, "batching")
    apiKey = project.api_key
    projectId = project.project_id
  })

  const count = async (text: string, params: ReadonlyArray<unknown>) =>
    Number((await gateway.current.sql<{ n: number }>(text, params))[0]?.n)

  it("gives each of many exports sent at once its own outcome, every span and run stored once", async () => {
    // 40 exports of two traces each, an export of a trace's first half and one of its second half,
    // and an export with a span past its trace's cap: all at once.
    const plain = Array.from({ length: 40 }, (_, i) =>
      exportOf([...traceSpans(1000 + 2 * i), ...traceSpans(1001 + 2 * i)])
    )
    const halves = [
      exportOf([jsonSpan({ trace: 2000, span: 1, name: "halves" }), jsonSpan({ trace: 2000, span: 2, parent: 1 })]),
      exportOf([jsonSpan({ trace: 2000, span: 3, parent: 1 }), jsonSpan({ trace: 2000, span: 4, parent: 1 })])
    ]
    const overCap = exportOf(
      Array.from({ length: 501 }, (_, i) => jsonSpan({ trace: 3000, span: i + 1, ...(i === 0 ? {} : { parent: 1 }) }))
    )
    const before = await batchFigures(gateway.current.baseUrl)
    const replies = await Promise.all(
      [...plain, ...halves, overCap].map((body) => postJson(gateway.current.baseUrl, apiKey, body))
    )
    for (const reply of replies.slice(0, -1)) expect(reply.text).toBe("{}")
    const last = replies.at(-1)
    expect(last?.status).toBe(200)
    expect(last?.body.partialSuccess.rejectedSpans).toBe("1")
    expect(last?.body.partialSuccess.errorMessage).toContain("past the 500th of its trace")

    const after = await batchFigures(gateway.current.baseUrl)
    // Every export went to a new-trace statement (the second half alone: its trace was the first half's).
    expect(after.exports - before.exports).toBe(plain.length + halves.length + 1)
    expect(after.statements - before.statements).toBeLessThanOrEqual(after.exports - before.exports)

    expect(await count("SELECT count(*)::int AS n FROM spans WHERE project_id = $1", [projectId])).toBe(
      plain.length * 4 + 4 + 500
    )
    expect(
      await count("SELECT count(*)::int AS n FROM runs WHERE project_id = $1 AND trace_id IS NOT NULL", [projectId])
    ).toBe(plain.length * 2)
    const traces = await gateway.current.sql<{ trace_id: string; span_count: number }>(
      "SELECT trace_id, span_count FROM traces WHERE project_id = $1 AND trace_id IN ($2, $3, $4)",
      [projectId, traceIdOf(1000), traceIdOf(2000), traceIdOf(3000)]
    )
    expect(new Map(traces.map((row) => [row.trace_id, Number(row.span_count)]))).toEqual(
      new Map([
        [traceIdOf(1000), 2],
        [traceIdOf(2000), 4],
        [traceIdOf(3000), 500]
      ])
    )
    // The runs count in usage once each.
    const usage = await call(gateway.current.baseUrl, "GET", "/v1/projects/usage/period", {
      headers: { authorization: `Bearer ${apiKey}` }
    })
    expect(usage.status, usage.text).toBe(200)
    expect(JSON.stringify(usage.body)).toContain(`"runs":${plain.length * 2}`)
  })

  /**
   * Sends `first`, holds their statements on a lock of the traces table until
   * `rest` have all joined the batch behind them, then lets them go: the
   * replies, and the statements and exports counted meanwhile.
   */
  const heldBehind = async (first: ReadonlyArray<unknown>, rest: ReadonlyArray<unknown>) => {
    const store = gateway.store
    if (store.kind !== "postgres") throw new Error("a PostgreSQL store was expected")
    const holder = new pg.Client({ connectionString: Redacted.value(store.url) })
    await holder.connect()
    try {
      // Inserts into traces wait while this lock is held: the first export's statement waits on it.
      await holder.query("BEGIN")
      await holder.query("LOCK TABLE traces IN SHARE MODE")
      const before = await batchFigures(gateway.current.baseUrl)
      const sent = first.map((body) => postJson(gateway.current.baseUrl, apiKey, body))
      const waitFor = async (what: string, done: () => Promise<boolean>) => {
        for (let waited = 0; !(await done()); waited += 20) {
          if (waited > 10_000) throw new Error(`${what} did not happen`)
          await new Promise((resolve) => setTimeout(resolve, 20))
        }
      }
      await waitFor("the first exports' statements waiting on the lock", async () => {
        const waiting = await holder.query(
          "SELECT count(*)::int AS n FROM pg_locks WHERE NOT granted AND relation = 'traces'::regclass"
        )
        return waiting.rows[0].n === first.length
      })
      for (const body of rest) sent.push(postJson(gateway.current.baseUrl, apiKey, body))
      // An export has joined the batch behind the waiting statement once it is counted.
      await waitFor(
        "the other exports joining the batch",
        async () =>
          (await batchFigures(gateway.current.baseUrl)).exports - before.exports === first.length + rest.length
      )
      await holder.query("COMMIT")
      const replies = await Promise.all(sent)
      const after = await batchFigures(gateway.current.baseUrl)
      return {
        replies,
        statements: after.statements - before.statements,
        exports: after.exports - before.exports
      }
    } finally {
      await holder.query("ROLLBACK").catch(() => {})
      await holder.end()
    }
  }

  // The tests' gateway has five turns (its pool's connections): five statements of a project run at once, and
  // what arrives while they do gathers.
  const FIVE = [0, 1, 2, 3, 4]
  it.runIf(storeUnderTest.name === "postgres")(
    "writes the exports that arrive while a statement waits in one statement after it",
    async () => {
      const held = await heldBehind(
        FIVE.map((i) => exportOf(traceSpans(5000 + i))),
        [5005, 5006, 5007].map((trace) => exportOf(traceSpans(trace)))
      )
      for (const reply of held.replies) expect(reply.text).toBe("{}")
      expect(held.exports).toBe(8)
      // Five alone, then the three that gathered in one.
      expect(held.statements).toBe(6)
      expect(
        await count("SELECT count(*)::int AS n FROM spans WHERE project_id = $1 AND trace_id = ANY($2)", [
          projectId,
          [5000, 5001, 5002, 5003, 5004, 5005, 5006, 5007].map(traceIdOf)
        ])
      ).toBe(16)
    }
  )

  it.runIf(storeUnderTest.name === "postgres")(
    "writes a failed batch again one export at a time: only the faulty export fails",
    async () => {
      // A fault in one export's run: the runs table refuses this model's run.
      await whileRunsRefused(gateway.current, async () => {
        const held = await heldBehind(
          FIVE.map((i) => exportOf(traceSpans(6010 + i))),
          [exportOf(traceSpans(6001)), exportOf(traceSpans(6002)), exportOf(traceSpans(6003, FAULTY_MODEL))]
        )
        expect(held.replies.map((reply) => reply.status)).toEqual([200, 200, 200, 200, 200, 200, 200, 500])
        for (const reply of held.replies.slice(0, 7)) expect(reply.text).toBe("{}")
        // Five alone, the batch of three (failed), then each of the three alone.
        expect(held.statements).toBe(9)
        const stored = await gateway.current.sql<{ trace_id: string; n: number }>(
          "SELECT trace_id, count(*)::int AS n FROM spans WHERE project_id = $1 AND trace_id = ANY($2) GROUP BY trace_id",
          [projectId, [6001, 6002, 6003].map(traceIdOf)]
        )
        expect(new Map(stored.map((row) => [row.trace_id, Number(row.n)]))).toEqual(
          new Map([6001, 6002].map((trace) => [traceIdOf(trace), 2]))
        )
      })
    }
  )
})
