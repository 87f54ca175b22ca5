/**
 * The run list's tag and environment filters on each store: a tag selects
 * the runs whose tags hold it exactly (not a part of one, not a tag of
 * another case), an environment is equal; both combine with the other
 * filters and with paging.
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as Schema from "effect/Schema"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { CallerShape } from "../../../schema/Api/Security.js"
import { RunListQuery, type RunReport } from "../../../schema/Run.js"
import * as Database from "../../../src/platform/db/Database.js"
import { ProjectAdmin } from "../../../src/projects/ProjectAdmin.js"
import { Runs } from "../../../src/runs/Runs.js"
import { Threads } from "../../../src/threads/Threads.js"
import { stores } from "../../support/layers.js"

const services = Layer.mergeAll(Runs.Default, Threads.Default, ProjectAdmin.Default)
type Services = Layer.Layer.Success<typeof services>

const query = (params: Record<string, string>) => Schema.decodeUnknownSync(RunListQuery)(params)

describe.each(stores)("run list filters ($name)", (storeUnderTest) => {
  let runtime: ManagedRuntime.ManagedRuntime<Services, unknown>
  let drop = async () => {}
  const run = <A, E>(effect: Effect.Effect<A, E, Services>) => runtime.runPromise(effect)
  let projectId: string
  /** Run ids by name. */
  const ids: Record<string, string> = {}

  beforeAll(async () => {
    const made = await storeUnderTest.make()
    drop = made.drop
    runtime = ManagedRuntime.make(Layer.provideMerge(services, Database.layerFor(made.store, 2)))
    await run(
      Effect.gen(function* () {
        const admin = yield* ProjectAdmin
        const runs = yield* Runs
        projectId = (yield* admin.create("runs")).project_id
        const otherProjectId = (yield* admin.create("other")).project_id
        const alice: CallerShape = { projectId, userId: "alice", workspaceId: "ws-1", mode: "api_key" }
        const stranger: CallerShape = { ...alice, projectId: otherProjectId }
        const { id: threadId } = yield* (yield* Threads).create(alice, { last_message_at: new Date() })
        const { id: otherThread } = yield* (yield* Threads).create(stranger, { last_message_at: new Date() })
        const report = (who: CallerShape, thread: string, fields: Partial<RunReport>) =>
          runs.report(who, { thread_id: thread, status: "completed", ...fields }, undefined)
        ids.betaProd = yield* report(alice, threadId, { tags: ["beta", "web"], environment: "production" })
        ids.betaStaging = yield* report(alice, threadId, { tags: ["beta"], environment: "staging", status: "error" })
        ids.betterProd = yield* report(alice, threadId, { tags: ["better", "Beta"], environment: "production" })
        ids.untagged = yield* report(alice, threadId, { environment: "Production" })
        ids.bare = yield* report(alice, threadId, {})
        ids.odd = yield* report(alice, threadId, { tags: ["a,b", '{"x"}', "with space"], environment: "" })
        ids.betaLast = yield* report(alice, threadId, { tags: ["web", "beta"], model_id: "m-2" })
        ids.elsewhere = yield* report(stranger, otherThread, { tags: ["beta"], environment: "production" })
      })
    )
  })
  afterAll(async () => {
    await runtime?.dispose()
    await drop()
  })

  /** The names of the runs listed, newest first. */
  const list = async (params: Record<string, string>) => {
    const rows = await run(Effect.flatMap(Runs, (runs) => runs.listJson(projectId, query(params))))
    return rows.map((row) => {
      const id = (JSON.parse(row) as { id: string }).id
      return Object.keys(ids).find((name) => ids[name] === id)
    })
  }

  it("tag: the runs whose tags hold it exactly", async () => {
    expect(await list({ tag: "beta" })).toEqual(["betaLast", "betaStaging", "betaProd"])
    expect(await list({ tag: "Beta" })).toEqual(["betterProd"])
    expect(await list({ tag: "bet" })).toEqual([])
    expect(await list({ tag: "web" })).toEqual(["betaLast", "betaProd"])
    expect(await list({ tag: "a,b" })).toEqual(["odd"])
    expect(await list({ tag: '{"x"}' })).toEqual(["odd"])
    expect(await list({ tag: "with space" })).toEqual(["odd"])
    expect(await list({ tag: "a" })).toEqual([])
  })

  it("environment: equal, case and all", async () => {
    expect(await list({ environment: "production" })).toEqual(["betterProd", "betaProd"])
    expect(await list({ environment: "Production" })).toEqual(["untagged"])
    expect(await list({ environment: "staging" })).toEqual(["betaStaging"])
    expect(await list({ environment: "" })).toEqual(["odd"])
    expect(await list({ environment: "test" })).toEqual([])
  })

  it("combines with each other, the other filters and paging", async () => {
    expect(await list({ tag: "beta", environment: "production" })).toEqual(["betaProd"])
    expect(await list({ tag: "beta", status: "error" })).toEqual(["betaStaging"])
    expect(await list({ tag: "web", model_id: "m-2" })).toEqual(["betaLast"])
    const first = await list({ tag: "beta", limit: "2" })
    expect(first).toEqual(["betaLast", "betaStaging"])
    expect(await list({ tag: "beta", limit: "2", after: ids.betaStaging as string })).toEqual(["betaProd"])
    expect(await list({})).toHaveLength(7)
  })
})
