/**
 * Scores by data type and source on each store: the list's data_type and
 * source filters (a score is an evaluator's when an evaluation names it),
 * and the summary per name: counts, the 20 most frequent categories,
 * 10-bucket histograms (one bucket when every value is equal, bounds past
 * the largest double's half), boolean counts, at most 50 names.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as Schema from "effect/Schema"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { CallerShape } from "../../../schema/Api/Security.js"
import { ScoreSummary, ScoreSummaryQuery } from "../../../schema/Dashboard.js"
import { type CreateScore, ScoreListQuery } from "../../../schema/Score.js"
import * as Database from "../../../src/platform/db/Database.js"
import { ProjectAdmin } from "../../../src/projects/ProjectAdmin.js"
import { Scores } from "../../../src/scores/Scores.js"
import { Threads } from "../../../src/threads/Threads.js"
import { stores } from "../../support/layers.js"

const services = Layer.mergeAll(Scores.Default, ProjectAdmin.Default, Threads.Default)
type Services = Layer.Layer.Success<typeof services> | SqlClient.SqlClient

describe.each(stores)("score filters and summary ($name)", (storeUnderTest) => {
  let runtime: ManagedRuntime.ManagedRuntime<Services, unknown>
  let drop = async () => {}
  const run = <A, E>(effect: Effect.Effect<A, E, Services>) => runtime.runPromise(effect)
  let projectId: string
  let manyNamesProject: string
  /** The ids of the scores the evaluator wrote. */
  let byEvaluator: Array<string> = []
  /** A thread with scores of its own. */
  let threadId: string
  let otherProject: string

  beforeAll(async () => {
    const made = await storeUnderTest.make()
    drop = made.drop
    runtime = ManagedRuntime.make(Layer.provideMerge(services, Database.layerFor(made.store, 2)))
    await run(
      Effect.gen(function* () {
        const admin = yield* ProjectAdmin
        const scores = yield* Scores
        const sql = yield* SqlClient.SqlClient
        projectId = (yield* admin.create("scores")).project_id
        const otherProjectId = (yield* admin.create("other")).project_id
        manyNamesProject = (yield* admin.create("many")).project_id
        const alice: CallerShape = { projectId, userId: "alice", workspaceId: "ws-1", mode: "api_key" }
        const give = (input: CreateScore, who = alice) => scores.create(who, input)
        for (const value of [0, 1, 2.5, 2.5, 10]) yield* give({ name: "quality", data_type: "numeric", value })
        for (let i = 0; i < 3; i++) yield* give({ name: "flat", data_type: "numeric", value: 4 })
        for (const value of [-1.7e308, 1.7e308, 5e-324]) yield* give({ name: "huge", data_type: "numeric", value })
        for (const value of [0, 5e-324, 1e-323]) yield* give({ name: "tiny", data_type: "numeric", value })
        for (const value of [true, true, false]) yield* give({ name: "helpful", data_type: "boolean", value })
        // 25 topics: topic-00 given 25 times, topic-01 24 times, ... topic-24 once; and topic-x 20 times.
        for (let i = 0; i < 25; i++) {
          for (let n = 0; n < 25 - i; n++) {
            yield* give({
              name: "topic",
              data_type: "categorical",
              string_value: `topic-${String(i).padStart(2, "0")}`
            })
          }
        }
        for (let n = 0; n < 20; n++) yield* give({ name: "topic", data_type: "categorical", string_value: "topic-x" })
        // One name under two data types.
        yield* give({ name: "mixed", data_type: "numeric", value: 1 })
        yield* give({ name: "mixed", data_type: "categorical", string_value: "one" })
        yield* give({ name: "quality", data_type: "numeric", value: 99 }, { ...alice, projectId: otherProjectId })
        // In the other project, two scores of a thread: a distribution filtered to the thread counts these only.
        otherProject = otherProjectId
        const bob: CallerShape = { ...alice, projectId: otherProjectId }
        threadId = (yield* (yield* Threads).create(bob, { last_message_at: new Date() })).id
        for (const value of [true, false]) {
          yield* give({ name: "helpful", data_type: "boolean", value, thread_id: threadId }, bob)
        }
        // An evaluator's scores: written as the evaluator job writes them, each named by an evaluation.
        yield* sql`INSERT INTO evaluators (project_id, id, name, kind, target, field, sampling_rate, categories)
          VALUES (${projectId}, 'evl_1', 'tone', 'rule', 'run', 'output_text', 1, '[]')`
        byEvaluator = []
        for (const [i, label] of ["refusal", "refusal", "greeting"].entries()) {
          const id = `score_evaluated_${i}`
          yield* scores.insertDerived(alice, {
            id,
            userId: "alice",
            name: "tone",
            dataType: "categorical",
            value: null,
            stringValue: label,
            comment: null,
            threadId: null,
            messageId: null,
            runId: null
          })
          yield* sql`INSERT INTO evaluations (project_id, evaluator_id, target_id, status, category, score_id)
            VALUES (${projectId}, 'evl_1', ${`run_${i}`}, 'scored', ${label}, ${id})`
          byEvaluator.push(id)
        }
        // A no_match evaluation names no score.
        yield* sql`INSERT INTO evaluations (project_id, evaluator_id, target_id, status)
          VALUES (${projectId}, 'evl_1', 'run_9', 'no_match')`
        yield* give({ name: "tone", data_type: "categorical", string_value: "refusal" })
        // 55 names, name-NN scored NN + 1 times.
        yield* sql`INSERT INTO scores (project_id, id, workspace_id, user_id, name, data_type, value)
          SELECT ${manyNamesProject}, 'score_' || n || '_' || k, 'ws-1', 'u', 'name-' || lpad(n::text, 2, '0'),
            'numeric', k
          FROM generate_series(0, 54) AS n, generate_series(0, 54) AS k WHERE k <= n`
      })
    )
  })
  afterAll(async () => {
    await runtime?.dispose()
    await drop()
  })

  const list = (params: Record<string, string>) =>
    run(Effect.flatMap(Scores, (scores) => scores.list(projectId, Schema.decodeUnknownSync(ScoreListQuery)(params))))
  /** Every score listed, page by page. */
  const all = async (params: Record<string, string>) => {
    const rows: Array<{ readonly id: string }> = []
    for (;;) {
      const after = rows.at(-1)?.id
      const page = await list({ ...params, limit: "100", ...(after === undefined ? {} : { after }) })
      rows.push(...page)
      if (page.length < 100) return rows
    }
  }
  const summary = (params: Record<string, string>, project = projectId) =>
    run(
      Effect.flatMap(Scores, (scores) =>
        scores.summary(project, Schema.decodeUnknownSync(ScoreSummaryQuery)(params))
      ).pipe(Effect.map((answer) => Schema.encodeSync(ScoreSummary)(answer)))
    )
  const entry = async (params: Record<string, string>, name: string, dataType?: string) =>
    (await summary(params)).names.find((row) => row.name === name && (dataType ?? row.data_type) === row.data_type)

  it("lists by data_type and by source", async () => {
    const booleans = await list({ data_type: "boolean" })
    expect(booleans.map((score) => score.value)).toEqual([0, 1, 1])
    expect((await list({ data_type: "categorical", name: "mixed" })).map((s) => s.string_value)).toEqual(["one"])
    const evaluated = await all({ source: "evaluator" })
    expect(evaluated.map((score) => score.id).sort()).toEqual([...byEvaluator].sort())
    const api = await all({ source: "api" })
    expect(api.some((score) => byEvaluator.includes(score.id))).toBe(false)
    expect(api.length + evaluated.length).toBe((await all({})).length)
    expect(api).toHaveLength(365)
    expect(await list({ source: "api", name: "tone" })).toEqual([expect.objectContaining({ string_value: "refusal" })])
    expect(await list({ source: "evaluator", data_type: "numeric" })).toEqual([])
    const paged = await list({ source: "evaluator", limit: "2" })
    expect(await list({ source: "evaluator", after: paged[1]?.id as string })).toHaveLength(1)
  })

  it("numeric: min, max and 10 buckets of equal width; one bucket when every value is equal", async () => {
    const quality = await entry({}, "quality")
    expect(quality).toMatchObject({ data_type: "numeric", count: 5, categories: [], booleans: null })
    expect(quality?.histogram?.min).toBe(0)
    expect(quality?.histogram?.max).toBe(10)
    expect(quality?.histogram?.buckets).toEqual(
      Array.from({ length: 10 }, (_, i) => ({ from: i, to: i + 1, count: [1, 1, 2, 0, 0, 0, 0, 0, 0, 1][i] }))
    )
    expect((await entry({}, "flat"))?.histogram).toEqual({ min: 4, max: 4, buckets: [{ from: 4, to: 4, count: 3 }] })
    const huge = (await entry({}, "huge"))?.histogram
    expect(huge?.buckets).toHaveLength(10)
    expect(huge?.buckets.map((bucket) => bucket.count)).toEqual([1, 0, 0, 0, 0, 1, 0, 0, 0, 1])
    expect(huge?.buckets[0]?.from).toBe(-1.7e308)
    expect(huge?.buckets[9]?.to).toBe(1.7e308)
    expect(huge?.buckets.every((bucket) => Number.isFinite(bucket.from) && bucket.from < bucket.to)).toBe(true)
    // Bounds two of the smallest doubles apart: buckets of no width, every value still counted once.
    const tiny = (await entry({}, "tiny"))?.histogram
    expect(tiny).toMatchObject({ min: 0, max: 1e-323 })
    expect(tiny?.buckets).toHaveLength(10)
    expect(tiny?.buckets.at(-1)?.count).toBeGreaterThanOrEqual(1)
    for (const row of (await summary({ data_type: "numeric" })).names) {
      const counted = row.histogram?.buckets.reduce((sum, bucket) => sum + bucket.count, 0)
      expect(counted, row.name).toBe(row.count)
    }
  })

  it("categorical: the 20 most frequent values, ties by value", async () => {
    const topic = await entry({}, "topic")
    expect(topic).toMatchObject({ data_type: "categorical", count: 345, histogram: null, booleans: null })
    expect(topic?.categories).toHaveLength(20)
    expect(topic?.categories.slice(0, 6)).toEqual([
      { value: "topic-00", count: 25 },
      { value: "topic-01", count: 24 },
      { value: "topic-02", count: 23 },
      { value: "topic-03", count: 22 },
      { value: "topic-04", count: 21 },
      { value: "topic-05", count: 20 }
    ])
    expect(topic?.categories[6]).toEqual({ value: "topic-x", count: 20 })
    expect(topic?.categories[19]).toEqual({ value: "topic-18", count: 7 })
  })

  it("boolean: true and false counts", async () => {
    expect(await entry({}, "helpful")).toEqual({
      name: "helpful",
      data_type: "boolean",
      count: 3,
      categories: [],
      histogram: null,
      booleans: { true: 2, false: 1 }
    })
  })

  it("orders names by count and keeps each data type of a name apart", async () => {
    const names = (await summary({})).names.map((row) => `${row.name}/${row.data_type}/${row.count}`)
    expect(names).toEqual([
      "topic/categorical/345",
      "quality/numeric/5",
      "tone/categorical/4",
      "flat/numeric/3",
      "helpful/boolean/3",
      "huge/numeric/3",
      "tiny/numeric/3",
      "mixed/categorical/1",
      "mixed/numeric/1"
    ])
    expect((await entry({}, "mixed", "categorical"))?.categories).toEqual([{ value: "one", count: 1 }])
    expect((await entry({}, "mixed", "numeric"))?.histogram?.buckets).toEqual([{ from: 1, to: 1, count: 1 }])
  })

  it("filters by name, data_type and source", async () => {
    expect((await summary({ name: "quality" })).names.map((row) => row.name)).toEqual(["quality"])
    expect((await summary({ data_type: "boolean" })).names.map((row) => row.name)).toEqual(["helpful"])
    expect((await summary({ source: "evaluator" })).names).toEqual([
      expect.objectContaining({
        name: "tone",
        count: 3,
        categories: [
          { value: "refusal", count: 2 },
          { value: "greeting", count: 1 }
        ]
      })
    ])
    expect(await entry({ source: "api" }, "tone")).toMatchObject({
      count: 1,
      categories: [{ value: "refusal", count: 1 }]
    })
    expect((await summary({ name: "nothing" })).names).toEqual([])
  })

  it("filters by thread, as the score list does", async () => {
    const names = async (params: Record<string, string>) =>
      (await summary(params, otherProject)).names.map((row) => `${row.name}/${row.count}`)
    expect(await names({})).toEqual(["helpful/2", "quality/1"])
    expect((await summary({ thread_id: threadId }, otherProject)).names).toEqual([
      expect.objectContaining({ name: "helpful", count: 2, booleans: { true: 1, false: 1 } })
    ])
    expect(await names({ thread_id: threadId, name: "quality" })).toEqual([])
    expect(await names({ thread_id: "thread_none" })).toEqual([])
    expect(await names({ run_id: "run_none" })).toEqual([])
    expect(await names({ message_id: "msg_none" })).toEqual([])
    // The thread is another project's: this project's distributions filtered to it are empty.
    expect((await summary({ thread_id: threadId })).names).toEqual([])
  })

  it("answers at most 50 names, the most scored", async () => {
    const { names } = await summary({}, manyNamesProject)
    expect(names).toHaveLength(50)
    expect(names[0]).toMatchObject({ name: "name-54", count: 55 })
    expect(names[49]).toMatchObject({ name: "name-05", count: 6 })
    expect(names[49]?.histogram?.buckets.map((bucket) => bucket.count)).toEqual([1, 0, 1, 0, 1, 0, 1, 0, 1, 1])
  })
})
