/**
 * The project API's run filters `tag` and `environment`, and its score
 * filters `data_type` and `source`, over real HTTP on each store: reports
 * and scores posted by the app, scores written by a rule evaluator's pass,
 * read back through GET /v1/projects/runs and /v1/projects/scores; a value
 * outside the filter's set is 400; another project's rows never show.
 */
import { beforeAll, describe, expect, it } from "vitest"
import { asProject, expectError, newThread, runJob } from "../../support/helpers.js"
import { admin, asUser, createProject, stores, type UserClient, useGateway } from "../../support/layers.js"

const env = { JOBS_POLL_SECONDS: "0", EVALUATOR_RUN_DELAY_SECONDS: "0", EVALUATOR_THREAD_DELAY_SECONDS: "0" }

describe.each(stores)("project API filters ($name)", (storeUnderTest) => {
  const handle = useGateway(storeUnderTest, env)
  let alice: UserClient
  let read: ReturnType<typeof asProject>
  /** Run ids by name. */
  const runs: Record<string, string> = {}
  /** Score ids by name. */
  const scores: Record<string, string> = {}

  const report = async (client: UserClient, body: Record<string, unknown>) => {
    const reply = await client("POST", "/runs", { body: { status: "completed", ...body } })
    expect(reply.status, reply.text).toBe(201)
    return reply.body.run_id as string
  }
  const score = async (body: Record<string, unknown>) => {
    const reply = await alice("POST", "/scores", { body })
    expect(reply.status, reply.text).toBe(201)
    return reply.body.score_id as string
  }
  const listed = async (path: string, key: "runs" | "scores", names: Record<string, string>) => {
    const reply = await read(path)
    expect(reply.status, reply.text).toBe(200)
    return (reply.body[key] as Array<{ id: string }>).map(
      (row) => Object.keys(names).find((name) => names[name] === row.id) ?? row.id
    )
  }

  beforeAll(async () => {
    const project = await createProject(handle.current, "filters")
    const other = await createProject(handle.current, "other")
    alice = asUser(handle.current, project.api_key, "alice", "ws-1")
    read = asProject(handle.current, project.api_key)
    const stranger = asUser(handle.current, other.api_key, "alice", "ws-1")
    const thread = await newThread(alice)
    await report(stranger, { thread_id: await newThread(stranger), tags: ["beta"], environment: "production" })

    // A rule evaluator labels the runs reported after it.
    const evaluator = await admin(handle.current)("POST", `/projects/${project.project_id}/evaluators`, {
      name: "tone",
      target: "run",
      categories: [{ name: "greeting", keywords: ["hello"] }]
    })
    expect(evaluator.status, evaluator.text).toBe(201)
    runs.betaProd = await report(alice, { thread_id: thread, tags: ["beta", "web"], environment: "production" })
    runs.betaStaging = await report(alice, { thread_id: thread, tags: ["beta"], environment: "staging" })
    runs.greeting = await report(alice, {
      thread_id: thread,
      tags: ["web"],
      environment: "production",
      output_text: "hello there",
      status: "error"
    })
    runs.bare = await report(alice, { thread_id: thread })
    await runJob(handle.current, "evaluators")

    scores.quality = await score({ name: "quality", data_type: "numeric", value: 0.5, run_id: runs.betaProd })
    scores.helpful = await score({ name: "helpful", data_type: "boolean", value: true, thread_id: thread })
    scores.topic = await score({ name: "topic", data_type: "categorical", string_value: "billing" })
    // The app may use the evaluator's name: its score is still the API's.
    scores.toneByApp = await score({ name: "tone", data_type: "categorical", string_value: "greeting" })
    const evaluated = await read("/scores?name=tone&limit=10")
    const byEvaluator = evaluated.body.scores.find((row: { id: string }) => row.id !== scores.toneByApp)
    expect(byEvaluator, evaluated.text).toMatchObject({ run_id: runs.greeting, string_value: "greeting" })
    scores.toneByEvaluator = byEvaluator.id
  })

  it("GET /v1/projects/runs?tag= lists the runs carrying the tag", async () => {
    expect(await listed("/runs?tag=beta", "runs", runs)).toEqual(["betaStaging", "betaProd"])
    expect(await listed("/runs?tag=web", "runs", runs)).toEqual(["greeting", "betaProd"])
    expect(await listed("/runs?tag=bet", "runs", runs)).toEqual([])
    expect(await listed("/runs?tag=Beta", "runs", runs)).toEqual([])
  })

  it("GET /v1/projects/runs?environment= lists the runs of the environment, with the other filters", async () => {
    expect(await listed("/runs?environment=production", "runs", runs)).toEqual(["greeting", "betaProd"])
    expect(await listed("/runs?environment=staging", "runs", runs)).toEqual(["betaStaging"])
    expect(await listed("/runs?environment=production&tag=beta", "runs", runs)).toEqual(["betaProd"])
    expect(await listed("/runs?environment=production&status=error", "runs", runs)).toEqual(["greeting"])
    expect(await listed(`/runs?tag=web&limit=1&after=${runs.greeting}`, "runs", runs)).toEqual(["betaProd"])
    expect(await listed("/runs", "runs", runs)).toEqual(["bare", "greeting", "betaStaging", "betaProd"])
  })

  it("GET /v1/projects/scores?data_type= lists the scores of the type", async () => {
    expect(await listed("/scores?data_type=numeric", "scores", scores)).toEqual(["quality"])
    expect(await listed("/scores?data_type=boolean", "scores", scores)).toEqual(["helpful"])
    expect(await listed("/scores?data_type=categorical", "scores", scores)).toEqual([
      "toneByApp",
      "topic",
      "toneByEvaluator"
    ])
    expectError(await read("/scores?data_type=ordinal"), 400, "data_type")
  })

  it("GET /v1/projects/scores?source= tells an evaluator's scores from the API's", async () => {
    expect(await listed("/scores?source=evaluator", "scores", scores)).toEqual(["toneByEvaluator"])
    expect(await listed("/scores?source=api", "scores", scores)).toEqual(["toneByApp", "topic", "helpful", "quality"])
    expect(await listed("/scores?source=api&name=tone", "scores", scores)).toEqual(["toneByApp"])
    expect(await listed("/scores?source=evaluator&data_type=numeric", "scores", scores)).toEqual([])
    expect(await listed(`/scores?source=api&limit=2&after=${scores.topic}`, "scores", scores)).toEqual([
      "helpful",
      "quality"
    ])
    expectError(await read("/scores?source=human"), 400, "source")
  })
})
