/**
 * Spans and the runs made of them are one unit (docs/decisions.md "Traces
 * (OTLP/HTTP)"): a failure of the run step, or a gateway killed while it
 * runs, leaves neither, so the exporter's retry (or the next export of the
 * same batch) stores both. Were spans committed first, the retry would find
 * them stored and make no run: the runs would be lost for good.
 */
import pg from "pg"
import { beforeAll, describe, expect, it } from "vitest"
import {
  ADMIN_TOKEN,
  call,
  createProject,
  freshPostgresDatabase,
  type Reply,
  stores,
  useGateway
} from "../../support/layers.js"
import { spawnGateway } from "../../support/process.js"
import { chatSpan, exportOf, FAULTY_MODEL, jsonSpan, postJson, spanIdOf, traceIdOf, whileRunsRefused } from "./otlp.js"

/** A model-call span (OpenTelemetry GenAI) of trace `trace`, which becomes one run. */
const chatExport = (trace: number, model: string) =>
  exportOf([jsonSpan({ trace, span: 1, name: "agent" }), chatSpan(trace, { model })])

const runsOf = async (baseUrl: string, apiKey: string, trace: number) => {
  const list = await call(baseUrl, "GET", `/v1/projects/runs?trace_id=${traceIdOf(trace)}`, {
    headers: { authorization: `Bearer ${apiKey}` }
  })
  expect(list.status, list.text).toBe(200)
  return list.body.runs as Array<{ id: string; span_id: string | null; model_id: string | null }>
}

describe.each(stores)("spans and their runs, one unit ($name)", (storeUnderTest) => {
  const gateway = useGateway(storeUnderTest)
  let apiKey: string
  const base = () => gateway.current.baseUrl
  const read = (path: string): Promise<Reply> =>
    call(base(), "GET", `/v1/projects${path}`, { headers: { authorization: `Bearer ${apiKey}` } })

  beforeAll(async () => {
    apiKey = (await createProject(gateway.current, "crash")).api_key
  })

  it("stores no span when making its run fails, and both when the export is sent again", async () => {
    // A fault in the run step: the runs table refuses this model's run.
    const body = chatExport(1, FAULTY_MODEL)
    await whileRunsRefused(gateway.current, async () => {
      const failed = await postJson(base(), apiKey, body)
      expect(failed.status, failed.text).toBe(500)
      expect((await read(`/traces/${traceIdOf(1)}`)).status).toBe(404)
    })
    const retried = await postJson(base(), apiKey, body)
    expect(retried.status, retried.text).toBe(200)
    const runs = await runsOf(base(), apiKey, 1)
    expect(runs.map((run) => [run.span_id, run.model_id])).toEqual([[spanIdOf(2), FAULTY_MODEL]])
    const trace = await read(`/traces/${traceIdOf(1)}`)
    expect(trace.body.spans.map((span: { run_id: string | null }) => span.run_id)).toEqual([null, runs[0]?.id])
  })
})

describe.skipIf(!process.env.TEST_DATABASE_URL)("a gateway killed between storing spans and making runs", () => {
  it("leaves neither, and the exporter's retry to another gateway stores both", { timeout: 120_000 }, async () => {
    const db = await freshPostgresDatabase(process.env.TEST_DATABASE_URL ?? "")
    const env = { DATABASE_URL: db.url, ADMIN_TOKEN, BOOTSTRAP_DEFAULT_PROJECT: "false" }
    const blocker = new pg.Client({ connectionString: db.url })
    try {
      const first = await spawnGateway(env)
      const project = await call(first.url, "POST", "/v1/admin/projects", {
        body: { name: "killed" },
        headers: { authorization: `Bearer ${ADMIN_TOKEN}` }
      })
      expect(project.status, project.text).toBe(201)
      const apiKey = project.body.api_key as string
      // Writers of `runs` wait behind this lock (readers do not): the export stops in its run step.
      await blocker.connect()
      await blocker.query("BEGIN")
      await blocker.query("LOCK TABLE runs IN SHARE MODE")
      const body = chatExport(2, "gpt-4o-mini")
      const pending = postJson(first.url, apiKey, body).catch((error: unknown) => error)
      // A writer waiting for the lock on `runs` (as early as its statement's parse, before it shows as active).
      const waiting = async () => {
        const rows = await blocker.query<{ n: number }>(
          "SELECT count(*)::int AS n FROM pg_locks WHERE NOT granted AND relation = 'runs'::regclass"
        )
        return (rows.rows[0]?.n ?? 0) > 0
      }
      const deadline = Date.now() + 30_000
      while (!(await waiting())) {
        if (Date.now() > deadline) throw new Error(`the export never reached the run step:\n${first.output()}`)
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
      const exited = new Promise((done) => first.child.once("exit", done))
      first.child.kill("SIGKILL")
      await exited
      expect(await pending).toBeInstanceOf(Error)
      await blocker.query("ROLLBACK")
      // The killed gateway's session ends once it finds its client gone; then what it wrote is visible or not.
      const settled = Date.now() + 30_000
      for (;;) {
        const open = await blocker.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM pg_stat_activity
           WHERE datname = current_database() AND pid <> pg_backend_pid() AND state <> 'idle'`
        )
        if ((open.rows[0]?.n ?? 0) === 0 || Date.now() > settled) break
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
      const spans = await blocker.query<{ n: number }>("SELECT count(*)::int AS n FROM spans")
      expect(spans.rows[0]?.n).toBe(0)

      const second = await spawnGateway(env)
      try {
        const retried = await postJson(second.url, apiKey, body)
        expect(retried.status, retried.text).toBe(200)
        const runs = await runsOf(second.url, apiKey, 2)
        expect(runs.map((run) => run.span_id)).toEqual([spanIdOf(2)])
      } finally {
        await second.stop()
      }
    } finally {
      await blocker.end().catch(() => {})
      await db.drop()
    }
  })
})
