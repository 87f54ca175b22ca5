/**
 * `svc evaluator create | list | update | delete` on every store, in this
 * process (test/support/cli-harness.ts): the limits of one evaluator and of a
 * project, a name taken, an unknown project, and the evaluators job run
 * through `svc jobs run`.
 */
import { beforeAll, describe, expect, it } from "vitest"
import { useCli } from "../../support/cli-harness.js"
import { stores } from "../../support/layers.js"

const categories = (n: number) =>
  JSON.stringify(Array.from({ length: n }, (_, i) => ({ name: `c${i}`, keywords: [`k${i}`] })))

describe.each(stores)("svc evaluator commands on the $name store", (given) => {
  const cli = useCli(given)
  let projectId = ""
  const json = (args: ReadonlyArray<string>) => cli.current.json(args)
  const failure = async (args: ReadonlyArray<string>) => {
    const result = await cli.current.run([...args, "--json"])
    expect(result.code, result.stdout).not.toBe(0)
    expect(result.stdout).toBe("")
    return { code: result.code, body: JSON.parse(result.stderr) }
  }
  beforeAll(async () => {
    projectId = (await json(["project", "create", "--name", "evaluators"])).project_id
  })

  it("creates, lists, updates and deletes evaluators within the limits", async () => {
    const create = ["evaluator", "create", "--project", projectId, "--target", "run"]
    const made = await json([...create, "--name", "tone", "--categories", categories(10), "--sampling-rate", "1"])
    expect(made).toMatchObject({ name: "tone", kind: "rule", target: "run", field: "output_text", sampling_rate: 1 })
    expect(made.categories).toHaveLength(10)
    expect(made.evaluator_id).toMatch(/^evl_/)

    const eleven = await failure([...create, "--name", "eleven", "--categories", categories(11)])
    expect(eleven).toMatchObject({ code: 2, body: { error: "invalid_request" } })
    const rate = await failure([...create, "--name", "rate", "--categories", categories(1), "--sampling-rate", "1.01"])
    expect(rate.body.error).toBe("invalid_request")
    expect(
      (await json([...create, "--name", "rate0", "--categories", categories(1), "--sampling-rate", "0"])).sampling_rate
    ).toBe(0)
    // Lookaround: RE2 (the pattern engine) has none.
    const badPattern = await failure([
      ...create,
      "--name",
      "bad",
      "--categories",
      '[{"name":"x","pattern":"sorry(?= now)"}]'
    ])
    expect(badPattern.body).toMatchObject({ error: "invalid_request", issues: [{ path: "categories.0.pattern" }] })
    expect(badPattern.body.message).toMatch(/^category "x": .*lookaround/)
    expect((await failure([...create, "--name", "nojson", "--categories", "[oops"])).body.error).toBe("invalid_request")
    const missing = await failure(["evaluator", "list", "--project", "proj_nope"])
    expect(missing.code).toBe(3)

    expect((await json(["evaluator", "list", "--project", projectId])).evaluators).toHaveLength(2)
    expect((await json(["project", "settings", "--project", projectId])).evaluators).toBe(2)
    const taken = await failure([...create, "--name", "tone", "--categories", categories(1)])
    expect(taken).toMatchObject({ code: 1, body: { error: "conflict" } })

    // 20 a project: the 20th is made, the 21st is a conflict.
    for (let i = 3; i <= 20; i++) await json([...create, "--name", `more${i}`, "--categories", categories(1)])
    const twentyFirst = await failure([...create, "--name", "more21", "--categories", categories(1)])
    expect(twentyFirst).toMatchObject({ code: 1, body: { error: "conflict" } })
    for (let i = 3; i <= 20; i++) {
      const listed = (await json(["evaluator", "list", "--project", projectId])).evaluators as Array<{
        name: string
        evaluator_id: string
      }>
      const extra = listed.find((evaluator) => evaluator.name === `more${i}`)
      if (extra !== undefined) await json(["evaluator", "delete", "--project", projectId, "--id", extra.evaluator_id])
    }

    const updated = await json([
      "evaluator",
      "update",
      "--project",
      projectId,
      "--id",
      made.evaluator_id,
      "--name",
      "tone2",
      "--target",
      "run",
      "--categories",
      '[{"name":"apology","pattern":"\\\\bsorry\\\\b"}]'
    ])
    expect(updated).toMatchObject({ evaluator_id: made.evaluator_id, name: "tone2", categories: [{ name: "apology" }] })
    expect(await json(["evaluator", "delete", "--project", projectId, "--id", made.evaluator_id])).toEqual({
      deleted: made.evaluator_id
    })
    expect((await failure(["evaluator", "delete", "--project", projectId, "--id", made.evaluator_id])).code).toBe(3)
    expect((await json(["project", "settings", "--project", projectId])).evaluators).toBe(1)

    const run = await json(["jobs", "run", "--job", "evaluators"])
    expect(run).toMatchObject({ job: "evaluators", error: null })
  })
})
