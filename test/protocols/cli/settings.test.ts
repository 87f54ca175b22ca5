/**
 * `svc project settings | retention | topic-ceiling` and `svc jobs list | run`
 * on every store, in this process (test/support/cli-harness.ts), and one command as
 * a real process.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { beforeAll, describe, expect, it, onTestFinished } from "vitest"
import { useCli } from "../../support/cli-harness.js"
import { freshPostgresDatabase, stores } from "../../support/layers.js"
import { runCli } from "../../support/process.js"

describe.each(stores)("svc settings commands on the $name store", (given) => {
  const cli = useCli(given)
  let projectId = ""
  beforeAll(async () => {
    projectId = (await cli.current.json(["project", "create", "--name", "settings"])).project_id
  })

  it("reads the settings, sets retention and the topic ceiling with their limits", async () => {
    const settings = await cli.current.json(["project", "settings", "--project", projectId])
    expect(settings).toMatchObject({ project_id: projectId, topic_ceiling: 30, retention: { days: null } })
    const retention = await cli.current.json(["project", "retention", "--project", projectId, "--days", "30"])
    expect(retention).toMatchObject({ days: 30, effective_days: null })
    expect(await cli.current.json(["project", "retention", "--project", projectId, "--days", "forever"])).toMatchObject(
      {
        days: null,
        effective_days: null
      }
    )
    expect((await cli.current.run(["project", "retention", "--project", projectId, "--days", "8"])).code).toBe(2)
    expect(await cli.current.json(["project", "topic-ceiling", "--project", projectId, "--value", "60"])).toEqual({
      value: 60
    })
    expect(await cli.current.json(["project", "topic-ceiling", "--project", projectId, "--value", "10"])).toEqual({
      value: 10
    })
    for (const outside of ["61", "9"]) {
      const refused = await cli.current.run([
        "project",
        "topic-ceiling",
        "--project",
        projectId,
        "--value",
        outside,
        "--json"
      ])
      expect(refused.code).toBe(2)
      expect(JSON.parse(refused.stderr).error).toBe("invalid_request")
    }
    const missing = await cli.current.run(["project", "settings", "--project", "proj_nope", "--json"])
    expect(missing.code).toBe(3)
    expect(missing.stdout).toBe("")
  })

  it("lists the jobs and runs one", async () => {
    const run = await cli.current.json(["jobs", "run", "--job", "retention"])
    expect(run).toMatchObject({ job: "retention", error: null })
    const { jobs } = await cli.current.json(["jobs", "list"])
    expect(jobs.find((job: { name: string }) => job.name === "retention")).toMatchObject({ runs: 1, failures: 0 })
    expect((await cli.current.run(["jobs", "run", "--job", "nope", "--json"])).code).toBe(3)
  })
})

/**
 * On PostgreSQL when there is one (a process starts there in 2 s; a new
 * embedded store in a process takes 10 s, and test/protocols/cli/cli.test.ts
 * runs its commands as processes on the embedded store).
 */
describe("svc settings commands as a process", () => {
  it("prints the settings of a project it creates, and exits 3 for an unknown one", async () => {
    let env: Record<string, string>
    if (process.env.TEST_DATABASE_URL) {
      const db = await freshPostgresDatabase(process.env.TEST_DATABASE_URL)
      onTestFinished(() => db.drop())
      env = { DATABASE_URL: db.url }
    } else {
      const dataDir = mkdtempSync(join(tmpdir(), "svc-cli-settings-"))
      onTestFinished(() => rmSync(dataDir, { recursive: true, force: true }))
      env = { DATA_DIR: dataDir }
    }
    const created = await runCli(["project", "create", "--name", "process", "--json"], env)
    expect(created.code, created.stderr).toBe(0)
    const { project_id } = JSON.parse(created.stdout)
    const settings = await runCli(["project", "settings", "--project", project_id, "--json"], env)
    expect(settings.code, settings.stderr).toBe(0)
    expect(JSON.parse(settings.stdout)).toMatchObject({ project_id, retention: { days: null } })
    const missing = await runCli(["project", "settings", "--project", "proj_nope"], env)
    expect(missing.code).toBe(3)
    expect(missing.stderr).toMatch(/^svc: /)
  }, 120_000)
})
